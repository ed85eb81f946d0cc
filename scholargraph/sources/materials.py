"""The Materials Project source agent: computed properties of crystalline materials.

Queries are compact ``key=value`` criteria (``formula=TiO2``, ``elements=Li,Fe,O band_gap=1..3``,
``chemsys=Fe-Li-O`` for a chemical system, ``ids=mp-19017`` for entries named by id)
that :class:`MaterialsQuery` parses back into arguments of mp_api's
``materials.summary.search``. A search always carries at least one criterion: mp_api sends a
criterion-less search to a bulk download of the whole database, which this agent refuses.
Only the summary fields a :class:`~scholargraph.records.Material` uses are requested. Summary
documents carry no literature references, so each material becomes one citable work (its entry).

The agent uses mp_api's summary rester on its own rather than ``MPRester``, which asks the
heartbeat twice more (the emmet version, the database version) before any search: one search is
then two requests, the rester's heartbeat (once per endpoint and process) and the search. That
heartbeat is a bare ``requests.get`` with no timeout, so the rester is built on a daemon thread
and waited for no longer than ``SCHOLARGRAPH_TIMEOUT``: an endpoint that hangs or is not a
Materials Project API fails cleanly, and at worst one idle thread waits on a dead socket.
"""

from __future__ import annotations

import logging
import re
import threading
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Any, ClassVar

import requests

from scholargraph.agents.schemas import Domain, Intent
from scholargraph.deterministic.material_names import (
    MATERIAL_ID,
    NamedMaterial,
    chemical_systems,
    is_formula,
    material_classes,
    material_ids,
    named_elements,
    named_materials,
    reduced_formula,
    system_of,
    unheld_properties,
    working_ions,
)
from scholargraph.deterministic.text import ELEMENTS, chemical_formulas
from scholargraph.errors import SourceError, SourceResponseError, SourceUnavailable
from scholargraph.http.policy import (
    Politeness,
    http_session,
    redact,
    talks_to_official,
    unavailable,
)
from scholargraph.records import Material
from scholargraph.settings import Settings
from scholargraph.sources.base import SearchRequest, SourceAgent, SourceResult

log = logging.getLogger(__name__)

SUMMARY_FIELDS = (
    "material_id",
    "formula_pretty",
    "band_gap",
    "formation_energy_per_atom",
    "energy_above_hull",
    "density",
    "is_stable",
    "symmetry",
)
"""The summary fields a Material is built from: the only ones requested (``_fields``)."""

STAND_IN_DB_VERSION = "scholargraph-stand-in"
"""The database version the recorded corpus's stand-in names in its heartbeat: what a search
did not find there says "in the recorded corpus", not that the Materials Project lacks it."""
MP_KEY_LENGTH = 32
MAX_FORMULAS = 10
"""Formulas per query: a question comparing materials names a few, and each is searched."""

_RANGE = re.compile(r"^(-?\d+(?:\.\d+)?)?\.\.(-?\d+(?:\.\d+)?)?$")
_GAP_IN_TEXT = re.compile(
    r"band\s*gaps?\D{0,40}?(\d+(?:\.\d+)?)\s*(?:-|–|to|and)\s*(\d+(?:\.\d+)?)\s*ev", re.IGNORECASE
)


@dataclass(frozen=True)
class MaterialsQuery:
    """Search criteria in the agent's query syntax, and back.

    ``str(query)`` writes ``formula=TiO2 elements=Ti,O band_gap=1..3 stable=true`` (and
    ``chemsys=Fe-Li-O``, ``ids=mp-19017,mp-149``); :meth:`parse` reads it, and also takes a
    bare formula (``TiO2``) as ``formula=TiO2``.
    """

    formulas: tuple[str, ...] = ()
    elements: tuple[str, ...] = ()
    band_gap: tuple[float | None, float | None] | None = None
    stable_only: bool = False
    ignored: tuple[str, ...] = field(default=(), compare=False)
    chemsys: tuple[str, ...] = ()
    """Chemical systems: the compounds made of exactly these elements (``Fe-Li-O``)."""
    material_ids: tuple[str, ...] = ()

    KEYS: ClassVar[tuple[str, ...]] = ("formula", "elements", "chemsys", "ids", "band_gap",
                                       "stable")

    @property
    def has_criteria(self) -> bool:
        return bool(self.formulas or self.elements or self.band_gap or self.chemsys
                    or self.material_ids)

    def __str__(self) -> str:
        parts = []
        if self.material_ids:
            parts.append("ids=" + ",".join(self.material_ids))
        if self.chemsys:
            parts.append("chemsys=" + ",".join(self.chemsys))
        if self.formulas:
            parts.append("formula=" + ",".join(self.formulas))
        if self.elements:
            parts.append("elements=" + ",".join(self.elements))
        if self.band_gap:
            low, high = self.band_gap
            parts.append(f"band_gap={_number(low)}..{_number(high)}")
        if self.stable_only:
            parts.append("stable=true")
        return " ".join(parts)

    @classmethod
    def parse(cls, text: str) -> MaterialsQuery:
        """Criteria from a query string; malformed criteria raise ``ValueError`` saying why."""
        values: dict[str, Any] = {"formulas": [], "elements": [], "ignored": [], "chemsys": [],
                                  "material_ids": []}
        for token in text.split():
            key, sep, value = token.partition("=")
            if not sep:
                target = "formulas" if is_formula(token) else "ignored"
                values[target].append(token)
            elif key == "formula":
                values["formulas"].extend(_formulas(value))
            elif key == "elements":
                values["elements"].extend(_elements(value))
            elif key == "chemsys":
                values["chemsys"].extend(_systems(value))
            elif key == "ids":
                values["material_ids"].extend(_ids(value))
            elif key == "band_gap":
                values["band_gap"] = _range(value)
            elif key == "stable":
                if value.lower() not in ("true", "false"):
                    raise ValueError(f"stable wants true or false, got {value!r}")
                values["stable_only"] = value.lower() == "true"
            else:
                raise ValueError(f"unknown criterion {key!r}; use one of {', '.join(cls.KEYS)}")
        return cls(formulas=tuple(values.pop("formulas")), elements=tuple(values.pop("elements")),
                   ignored=tuple(values.pop("ignored")), chemsys=tuple(values.pop("chemsys")),
                   material_ids=tuple(values.pop("material_ids")), **values)

    def search_arguments(self) -> dict[str, Any]:
        """Keyword arguments for ``mpr.materials.summary.search``."""
        arguments: dict[str, Any] = {}
        if self.material_ids:
            arguments["material_ids"] = list(self.material_ids)
        if self.chemsys:
            arguments["chemsys"] = list(self.chemsys)
        if self.formulas:
            arguments["formula"] = list(self.formulas)
        if self.elements:
            arguments["elements"] = list(self.elements)
        if self.band_gap:
            low, high = self.band_gap
            arguments["band_gap"] = (0.0 if low is None else low, 1000.0 if high is None else high)
        if self.stable_only:
            arguments["is_stable"] = True
        return arguments


class MaterialsAgent(SourceAgent):
    """Searches the Materials Project summary route through mp_api's ``MPRester``."""

    name = "materials"
    order = 40
    politeness = Politeness(
        requests=5,  # unpublished ("IP temporarily blocked" when pushed): the project's own
        official_hosts=("materialsproject.org",), endpoint_envs=("SCHOLARGRAPH_MP_URL",))
    label = "Materials Project"
    domains: ClassVar[frozenset[Domain]] = frozenset({"materials"})
    query_syntax = (
        "space-separated criteria: formula=TiO2 (comma-separated for several), "
        "elements=Li,Fe,O (materials containing all of them), chemsys=Fe-Li-O (materials made "
        "of exactly these elements), ids=mp-19017 (entries by id), band_gap=LOW..HIGH in eV "
        "(either end may be left open), stable=true; at least one of formula, elements, "
        "chemsys, ids or band_gap"
    )

    def unavailable_reason(self) -> str | None:
        key = self.settings.mp_api_key
        if key is None or not key.get_secret_value():
            return ("the Materials Project needs an API key: set MP_API_KEY (free at "
                    "https://next-gen.materialsproject.org/api)")
        if len(key.get_secret_value()) != MP_KEY_LENGTH:
            return (f"MP_API_KEY is not a Materials Project key (those are {MP_KEY_LENGTH} "
                    "characters)")
        return None

    def build_query(self, terms: list[str], intent: Intent) -> str:
        """Criteria from the question: the entry ids its terms name (``ids=mp-19017``), else
        its chemical systems (``chemsys=Fe-Li-O``), else every formula its terms name (else the
        intent's), or else the elements its terms name ("lithium cobalt oxide" is
        ``elements=Li,Co,O``), and any band-gap range the terms state. No criteria at all gives
        ``""`` (no query)."""
        text = " ".join(terms)
        ids = tuple(dict.fromkeys(m.material_id for m in material_ids(text) if m.material_id))
        systems = tuple(dict.fromkeys(m.chemsys for m in chemical_systems(text) if m.chemsys))
        if ids or systems:
            return str(MaterialsQuery(material_ids=ids[:MAX_FORMULAS],
                                      chemsys=() if ids else systems[:MAX_FORMULAS],
                                      band_gap=_band_gap_in(text)))
        named = [*chemical_formulas(text), *(term for term in terms if is_formula(term))]
        formulas = list(dict.fromkeys(f for f in named if is_formula(f)))
        if not formulas and intent.formula:
            formulas = [intent.formula]
        elements = () if formulas else named_elements(text)
        return str(MaterialsQuery(formulas=tuple(formulas[:MAX_FORMULAS]), elements=elements,
                                  band_gap=_band_gap_in(text)))

    named_by = "once per material the question names"

    def named_queries(self, question: str, intent: Intent) -> list[str]:
        """One search per material the question names (:func:`named_materials`): its formula,
        or the elements of a name that allows several formulas ("iron oxide"), with any band-gap
        range the question states; at most ``MAX_FORMULAS``."""
        band_gap = _band_gap_in(question)
        return list(dict.fromkeys(
            str(_criteria_of(material, band_gap))
            for material in named_materials(question)))[:MAX_FORMULAS]

    def no_query_reason(self, intent: Intent) -> str:
        """Why a question naming no compound is not searched here, in a scientist's words: a
        kind of material ("lithium-ion cathode", "perovskite") has no formula to look up, and a
        search by a working ion's element alone (every compound holding Li) would not single out
        the kind asked about; the summary records carry no capacity or device figures. A name
        the source cannot search by ("graphene") is still a material to a scientist: "the
        question names no material" said otherwise of "thermal conductivity of graphene", so
        the note says what was not found, and that the property asked is not among the values
        read here (:func:`unheld_properties`)."""
        text = " ".join(intent.keywords)
        kinds = material_classes(text)
        unheld = unheld_properties(text)
        held = ("; nor would it give " + " or ".join(unheld) + ": its values read here are "
                "computed band gap, formation energy, energy above hull, density and structure"
                if unheld else "")
        if not kinds:
            return ("the question names no formula, element, compound name, chemical system or "
                    "entry id, which is what the Materials Project is searched by: formula "
                    "(TiO2), elements (lithium cobalt oxide), chemical system (Li-Fe-O), entry "
                    f"id (mp-149) or a band-gap range{held}")
        ions = working_ions(text)
        every = (f"; a search for every compound containing {', '.join(ions)} would not "
                 f"single out the {plural(kinds[0])}" if ions else "")
        return (f"the question names a kind of material ({', '.join(kinds)}), not a compound: "
                "the Materials Project gives computed properties compound by compound, found "
                f"by formula (LiCoO2), name (lithium iron phosphate) or elements{every}; name "
                "the compounds to have them looked up")

    def _search(self, request: SearchRequest) -> SourceResult:
        reason = self.unavailable_reason()
        if reason:
            raise SourceError(self.name, reason)
        query = _parse_or_refuse(self.name, request.query)
        documents, db_version = self._summary_search(query, request.limit)
        materials = [material_from_summary(self.name, doc) for doc in documents]
        return SourceResult(materials=materials, works=[m.as_work() for m in materials],
                            log_note=absent_note(query, materials, db_version))

    def _summary_search(self, query: MaterialsQuery, limit: int
                        ) -> tuple[list[dict[str, Any]], str]:
        """One page of summary documents, as plain dicts (fields limited to SUMMARY_FIELDS),
        and the database version the endpoint's heartbeat names."""
        from mp_api.client.core import MPRestError

        settings = self.settings
        key = settings.mp_api_key.get_secret_value() if settings.mp_api_key else ""
        session = http_session(self.name, settings)
        session.headers["x-api-key"] = key
        try:
            rester = _summary_rester(self.name, settings, key, session)
            documents = rester.search(**query.search_arguments(), fields=list(SUMMARY_FIELDS),
                                      num_chunks=1, chunk_size=max(1, limit))
        except MPRestError as exc:
            raise _classify(self.name, exc) from exc
        except ValueError as exc:  # json's and orjson's decode errors alike
            hint = ("" if talks_to_official(self.name, settings)
                    else ": is SCHOLARGRAPH_MP_URL a Materials Project API?")
            raise SourceResponseError(self.name, f"the answer is not valid JSON ({exc}){hint}") \
                from None
        finally:
            session.close()
        return list(documents)[:limit], str(getattr(rester, "db_version", "") or "")


def _summary_rester(source: str, settings: Settings, key: str, session: requests.Session) -> Any:
    """mp_api's ``SummaryRester`` for the configured endpoint, built within the timeout.

    Building it reads ``{endpoint}heartbeat`` (cached by mp_api per endpoint and process) with
    no timeout of its own; see the module docstring.
    """
    from mp_api.client.routes.materials.summary import SummaryRester  # slow import (pymatgen)

    endpoint = settings.mp_url
    built: Future[Any] = Future()

    def build() -> None:
        try:
            built.set_result(SummaryRester(
                api_key=key, endpoint=endpoint, session=session, use_document_model=False,
                mute_progress_bars=True, timeout=max(1, round(settings.timeout_s))))
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread as is
            built.set_exception(exc)

    threading.Thread(target=build, name="mp-heartbeat", daemon=True).start()
    try:
        return built.result(timeout=settings.timeout_s)
    except FutureTimeout:
        raise SourceUnavailable(source, f"{endpoint}heartbeat did not answer within "
                                f"{settings.timeout_s:g} s; try again later") from None
    except (ValueError, KeyError, TypeError) as exc:  # requests' JSON error is a ValueError too
        raise SourceResponseError(source, f"{endpoint}heartbeat is not the Materials Project's "
                                  f"({type(exc).__name__}): is SCHOLARGRAPH_MP_URL a Materials "
                                  "Project API?") from None
    except requests.RequestException as exc:
        raise unavailable(source, exc, settings) from exc


def _criteria_of(material: NamedMaterial,
                 band_gap: tuple[float | None, float | None] | None) -> MaterialsQuery:
    if material.material_id:
        return MaterialsQuery(material_ids=(material.material_id,), band_gap=band_gap)
    if material.chemsys:
        return MaterialsQuery(chemsys=(material.chemsys,), band_gap=band_gap)
    if material.formula and is_formula(material.formula):
        return MaterialsQuery(formulas=(material.formula,), band_gap=band_gap)
    return MaterialsQuery(elements=material.elements, band_gap=band_gap)


def absent_note(query: MaterialsQuery, found: list[Material], db_version: str) -> str | None:
    """The search log's word on each formula, chemical system or id asked for that no record
    matched ("GaN: no Materials Project record in the recorded corpus"), or on an elements
    search that found nothing; ``None`` when everything asked for was found."""
    where = " in the recorded corpus" if db_version == STAND_IN_DB_VERSION else ""
    held = {reduced_formula(m.formula) for m in found}
    systems = {system_of(m.formula) for m in found}
    ids = {m.material_id for m in found}
    missing = [i for i in query.material_ids if i not in ids]
    missing += [f"chemical system {c}" for c in query.chemsys if c not in systems]
    missing += [f for f in query.formulas if reduced_formula(f) not in held]
    if not (query.formulas or query.chemsys or query.material_ids) and query.elements \
            and not found:
        missing = ["elements " + ", ".join(query.elements)]
    if not missing:
        return None
    return "; ".join(f"{name}: no Materials Project record{where}" for name in missing)


def material_from_summary(source: str, doc: dict[str, Any]) -> Material:
    """A Material from one summary document (the real API's field names)."""
    try:
        symmetry = doc.get("symmetry") or {}
        return Material(
            material_id=str(doc["material_id"]),
            formula=doc["formula_pretty"],
            band_gap_ev=doc.get("band_gap"),
            formation_energy_ev_per_atom=doc.get("formation_energy_per_atom"),
            energy_above_hull_ev_per_atom=doc.get("energy_above_hull"),
            density_g_cm3=doc.get("density"),
            is_stable=doc.get("is_stable"),
            crystal_system=symmetry.get("crystal_system"),
            space_group=symmetry.get("symbol"),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise SourceResponseError(
            source, f"a summary document is not as documented: {exc}"
        ) from exc


def _parse_or_refuse(source: str, text: str) -> MaterialsQuery:
    try:
        query = MaterialsQuery.parse(text)
    except ValueError as exc:
        raise SourceError(source, f"cannot read the query {text!r}: {exc}") from exc
    if not query.has_criteria:
        raise SourceError(
            source,
            f"the query {text!r} has no formula, elements, chemical system, id or band-gap range; "
            "the Materials Project "
            "is only searched with criteria (an empty search downloads the whole database)",
        )
    if query.ignored:
        log.info("materials: ignored words that are not criteria: %s", " ".join(query.ignored))
    return query


def _classify(source: str, exc: Exception) -> SourceError:
    """mp_api reports every failure as MPRestError; the status code in its message tells which."""
    text = redact(str(exc))
    first_line = text.splitlines()[0][:200] if text else type(exc).__name__
    status = re.search(r"status code (\d{3})", text)
    code = status.group(1) if status else None
    if code == "429" or (code or "").startswith("5"):
        return SourceUnavailable(source, f"the Materials Project answered {code}; try again later")
    if code in ("401", "403"):
        return SourceError(source, f"the Materials Project refused the key in MP_API_KEY ({code}); "
                           "check it at https://next-gen.materialsproject.org/api")
    if code or "does not support the request" in text:
        return SourceResponseError(source, first_line)
    return SourceUnavailable(source, first_line)


def _formulas(value: str) -> list[str]:
    formulas = [item for item in value.split(",") if item]
    bad = [item for item in formulas if not is_formula(item)]
    if bad:
        raise ValueError(f"not a chemical formula: {', '.join(bad)}")
    return formulas


def _systems(value: str) -> list[str]:
    """Chemical systems as the Materials Project writes them: symbols in alphabetical order."""
    systems = []
    for item in (item for item in value.split(",") if item):
        symbols = item.split("-")
        bad = [s for s in symbols if s not in ELEMENTS]
        if bad or len(set(symbols)) < len(symbols):
            raise ValueError(f"not a chemical system: {item}")
        systems.append("-".join(sorted(symbols)))
    return systems


def _ids(value: str) -> list[str]:
    ids = [item for item in value.split(",") if item]
    bad = [item for item in ids if not MATERIAL_ID.fullmatch(item)]
    if bad:
        raise ValueError(f"not a Materials Project id (mp-NUMBER): {', '.join(bad)}")
    return ids


def plural(kind: str) -> str:
    """A kind of material in the plural ("cathodes"; "solid electrolytes" stays as it is)."""
    return kind if kind.endswith("s") else kind + "s"


def _elements(value: str) -> list[str]:
    elements = [item for item in value.split(",") if item]
    bad = [item for item in elements if item not in ELEMENTS]
    if bad:
        raise ValueError(f"not an element symbol: {', '.join(bad)}")
    return elements


def _range(value: str) -> tuple[float | None, float | None]:
    match = _RANGE.match(value)
    if not match or (match.group(1) is None and match.group(2) is None):
        raise ValueError(f"band_gap wants LOW..HIGH in eV, got {value!r}")
    low, high = (float(group) if group is not None else None for group in match.groups())
    if low is not None and high is not None and low > high:
        raise ValueError(f"band_gap range {value!r} is empty")
    return low, high


def _band_gap_in(text: str) -> tuple[float | None, float | None] | None:
    match = _GAP_IN_TEXT.search(text)
    if not match:
        return None
    low, high = sorted((float(match.group(1)), float(match.group(2))))
    return low, high


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:g}"
