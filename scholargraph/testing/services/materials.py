"""A stand-in for the Materials Project API (``/heartbeat`` and ``/materials/summary/``).

No permissively licensed recording of ``api.materialsproject.org`` exists, so the documents it
serves are hand-built from the emmet-core ``SummaryDoc`` schema with published values for a few
well-known materials (``fixtures/materials/summary_docs.json``; which values, and how sure they
are, is in ``fixtures/PROVENANCE_materials_web.md``). The filtering follows the real API's query
parameters as mp_api 0.46 sends them: ``formula``, ``chemsys``, ``elements``,
``exclude_elements``, ``material_ids``, ``<property>_min``/``<property>_max``, ``is_stable``,
``deprecated``, ``_limit``, ``_skip`` and ``_fields``. A parameter it does not implement is a
400, so a client sending something unexpected finds out instead of getting every document.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from scholargraph.sources.materials import STAND_IN_DB_VERSION
from scholargraph.testing.fixtures import fixture_bytes
from scholargraph.testing.messages import ReplayRequest, ReplayResponse

Document = dict[str, Any]

HEARTBEAT = {
    "version": "0.87.3",
    "db_version": STAND_IN_DB_VERSION,
    "access_controlled_batch_ids": [],
}
RANGE_PROPERTIES = ("band_gap", "energy_above_hull", "formation_energy_per_atom", "density")
BOOLEAN_FILTERS = ("is_stable", "deprecated", "theoretical")
PAGING = ("_limit", "_skip", "_fields", "_all_fields", "_page", "_per_page")
_FORMULA_PART = re.compile(r"([A-Z][a-z]?)(\d*\.?\d*)")


class MaterialsService:
    """Answers like ``https://api.materialsproject.org/`` for the summary route."""

    prefix = "mp"

    def __init__(self, documents: list[Document] | None = None) -> None:
        self.documents = documents if documents is not None else load_documents()

    def handle(self, request: ReplayRequest) -> ReplayResponse:
        path = request.path.rstrip("/")
        if path == "/heartbeat":
            return _json(200, HEARTBEAT)
        if path != "/materials/summary":
            return _json(404, {"detail": "Not Found"})
        if not request.headers.get("x-api-key"):
            return _json(401, {"detail": "No API key found in request"})
        return self._summary(request)

    def _summary(self, request: ReplayRequest) -> ReplayResponse:
        try:
            matches = [doc for doc in self.documents if _matches(doc, request)]
        except ValueError as exc:
            return _json(400, {"detail": str(exc)})
        skip = int(request.param("_skip") or 0)
        limit = int(request.param("_limit") or request.param("_per_page") or 100)
        page = [_project(doc, request.param("_fields")) for doc in matches[skip: skip + limit]]
        return _json(200, {"data": page, "meta": {"total_doc": len(matches)}})


def load_documents() -> list[Document]:
    """The hand-built summary documents shipped with the package."""
    documents: list[Document] = json.loads(fixture_bytes("materials/summary_docs.json"))
    return documents


def _matches(doc: Document, request: ReplayRequest) -> bool:
    for name in request.params:
        if name not in _FILTERS and name not in PAGING and not _is_range(name):
            raise ValueError(f"the Materials Project stand-in does not implement {name!r}")
    checks = [check(doc, request) for check in _FILTERS.values()]
    ranges = [_in_range(doc, request, prop) for prop in RANGE_PROPERTIES]
    return all(checks) and all(ranges)


def _is_range(name: str) -> bool:
    return any(name in (f"{prop}_min", f"{prop}_max") for prop in RANGE_PROPERTIES)


def _in_range(doc: Document, request: ReplayRequest, prop: str) -> bool:
    low, high = request.param(f"{prop}_min"), request.param(f"{prop}_max")
    if low is None and high is None:
        return True
    value = doc.get(prop)
    if value is None:
        return False
    return (low is None or value >= float(low)) and (high is None or value <= float(high))


def _listed(request: ReplayRequest, name: str) -> list[str] | None:
    value = request.param(name)
    return [item.strip() for item in value.split(",") if item.strip()] if value else None


def _formula_filter(doc: Document, request: ReplayRequest) -> bool:
    formulas = _listed(request, "formula")
    if formulas is None:
        return True
    own = _reduced(doc["composition_reduced"])
    return any(_reduced(_parse_formula(formula)) == own for formula in formulas)


def _chemsys_filter(doc: Document, request: ReplayRequest) -> bool:
    systems = _listed(request, "chemsys")
    if systems is None:
        return True
    return any(sorted(system.split("-")) == sorted(doc["elements"]) for system in systems)


def _elements_filter(doc: Document, request: ReplayRequest) -> bool:
    wanted = _listed(request, "elements")
    return wanted is None or set(wanted) <= set(doc["elements"])


def _exclude_filter(doc: Document, request: ReplayRequest) -> bool:
    unwanted = _listed(request, "exclude_elements")
    return unwanted is None or not set(unwanted) & set(doc["elements"])


def _ids_filter(doc: Document, request: ReplayRequest) -> bool:
    ids = _listed(request, "material_ids")
    return ids is None or doc["material_id"] in ids


def _boolean(name: str) -> Callable[[Document, ReplayRequest], bool]:
    def check(doc: Document, request: ReplayRequest) -> bool:
        value = request.param(name)
        if value is None:
            return not (name == "deprecated" and doc.get(name))
        return bool(doc.get(name)) == (value.lower() == "true")

    return check


_FILTERS: dict[str, Callable[[Document, ReplayRequest], bool]] = {
    "formula": _formula_filter,
    "chemsys": _chemsys_filter,
    "elements": _elements_filter,
    "exclude_elements": _exclude_filter,
    "material_ids": _ids_filter,
    **{name: _boolean(name) for name in BOOLEAN_FILTERS},
}


def _parse_formula(formula: str) -> dict[str, float]:
    """``"LiFePO4"`` as ``{"Li": 1, "Fe": 1, "P": 1, "O": 4}``; wildcards are not supported."""
    parts = _FORMULA_PART.findall(formula)
    if not parts or "".join(symbol + count for symbol, count in parts) != formula:
        raise ValueError(f"the stand-in only understands plain formulas, not {formula!r}")
    amounts: dict[str, float] = {}
    for symbol, count in parts:
        amounts[symbol] = amounts.get(symbol, 0.0) + float(count or 1)
    return amounts


def _reduced(amounts: dict[str, float]) -> dict[str, Fraction]:
    smallest = min(amounts.values())
    return {symbol: Fraction(amount / smallest).limit_denominator(100)
            for symbol, amount in amounts.items()}


def _project(doc: Document, fields: str | None) -> Document:
    if not fields:
        return dict(doc)
    wanted = [name for name in fields.split(",") if name]
    return {name: doc[name] for name in wanted if name in doc}


def _json(status: int, payload: object) -> ReplayResponse:
    return ReplayResponse(status, json.dumps(payload).encode(), "application/json")
