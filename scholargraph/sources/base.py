"""The source-agent protocol: what a module must provide to become a node of the tool loop.

A source agent declares its ``name`` (the graph node), its ``order`` in the fixed tool loop
(PubMed 10, arXiv 20, OpenAlex 30, Materials Project 40, web 50: a plug-in picks a number in
between), the research ``domains`` that make it active, how to write a query in its own syntax,
and its service's ``politeness`` (published rate, a key that raises it, timeout, size cap), which
every session of :func:`~scholargraph.http.policy.http_session` under its name obeys.
The public :meth:`SourceAgent.search` is a template method: it does the shared work (timing,
turning client failures into typed :class:`~scholargraph.errors.SourceError`, logging, and keeping
nothing in the on-disk cache from a search that failed) and calls the agent's own
:meth:`SourceAgent._search`.
"""

from __future__ import annotations

import logging
import re
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from functools import wraps
from itertools import combinations
from typing import Any, ClassVar

import requests

from scholargraph.agents.schemas import Domain, Intent, NewsWindow
from scholargraph.errors import (
    ScholargraphError,
    SourceAgentError,
    SourceError,
    SourceResponseError,
    SourceUnavailable,
    SourceUnreachable,
)
from scholargraph.http.cache import all_or_nothing
from scholargraph.http.policy import Declaration, Politeness, declare, http_session, is_unreachable
from scholargraph.records import Material, Work
from scholargraph.settings import Settings

log = logging.getLogger(__name__)

AGENT_HOOKS = ("build_query", "build_any_two_query", "named_queries", "no_query_reason",
               "is_relevant", "unavailable_reason")
"""The methods an agent may override that the graph calls outside :meth:`SourceAgent.search`:
an exception from one is a :class:`SourceAgentError` naming the class and the method."""


@dataclass(frozen=True, kw_only=True)
class SearchRequest:
    """One search: a query already in the source's syntax, and the run's limits."""

    query: str
    limit: int = 20
    since: int | None = None
    until: int | None = None
    news_window: NewsWindow | None = None
    """Set when the question is about current events: sources with news search it this far back."""
    wants_data: bool = False
    """Set when the question asks for specific values: sources may look one step further."""
    added_since: date | None = None
    """Set by an update (``scholargraph update``): only records the service added on or after
    this day (PubMed's Entrez date, arXiv's submission date, OpenAlex's creation date, the
    web's time window), up to ``added_until``."""
    added_until: date | None = None
    """The last day of the added-records window (an update: the day it runs)."""


@dataclass(kw_only=True)
class SourceResult:
    """What a search found. Material agents fill ``materials`` as well as ``works``."""

    works: list[Work] = field(default_factory=list)
    materials: list[Material] = field(default_factory=list)
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)
    """What the reader of the review should know (a step skipped, and how to enable it)."""
    log_note: str | None = None
    """What the search log should say beside the count (a material the source holds no record
    of)."""

    def __len__(self) -> int:
        return len(self.works) + len(self.materials)


class SourceAgent(ABC):
    """Base of every source agent. Subclasses set the class variables and implement ``_search``."""

    name: ClassVar[str]
    order: ClassVar[int]
    label: ClassVar[str]
    domains: ClassVar[frozenset[Domain]]
    always_active: ClassVar[bool] = False
    query_syntax: ClassVar[str] = "plain keywords"
    politeness: ClassVar[Politeness | None] = None
    """The service's manners, applied by :func:`~scholargraph.http.policy.http_session` to every
    request made under this agent's ``name``. ``None``: two requests a second
    (:data:`~scholargraph.http.policy.DEFAULT_POLITENESS`)."""
    secret_envs: ClassVar[tuple[str, ...]] = ()
    """Environment variables holding this source's own secrets (API keys, tokens). Their values
    are scrubbed from errors, search logs and log lines, as the built-in keys are."""
    secret_parameters: ClassVar[tuple[str, ...]] = ()
    """Names of the headers, query parameters or form fields that carry those secrets: kept out
    of the HTTP cache's keys and redacted in the requests it stores."""

    def __init_subclass__(cls, **kwargs: object) -> None:
        """Declare the class's politeness and secrets to the HTTP policy, by its name, so that
        every session under that name (the enrichment look-ups use OpenAlex's) obeys them."""
        super().__init_subclass__(**kwargs)
        for hook in AGENT_HOOKS:
            if hook in cls.__dict__:
                setattr(cls, hook, _naming_failures(cls, hook, cls.__dict__[hook]))
        name = getattr(cls, "name", None)
        if isinstance(name, str):
            declare(name, Declaration(cls.politeness, tuple(cls.secret_envs),
                                      tuple(cls.secret_parameters)))

    def __init__(self, settings: Settings | None = None) -> None:
        """``settings``: the run's configuration (the graph passes its context's); a script
        calling an agent directly gets the environment's, read once here."""
        self.settings: Settings = settings if settings is not None else Settings()

    def session(self, *, rewrite: tuple[str, str] | None = None) -> requests.Session:
        """An HTTP session for this agent's service, obeying its own declared politeness and
        keeping its secret parameters out of the cache (see :func:`http_session`)."""
        return http_session(self.name, self.settings, declared=self.politeness,
                            secret_parameters=tuple(self.secret_parameters), rewrite=rewrite)

    def unavailable_reason(self) -> str | None:
        """Why the agent cannot run now (a missing key), or ``None`` when it can."""
        return None

    def is_relevant(self, intent: Intent) -> bool:
        """Whether the question's domains call for this source."""
        return self.always_active or bool(self.domains.intersection(intent.domains))

    def build_query(self, terms: list[str], intent: Intent) -> str:
        """A query in this source's syntax from key terms, most specific first (the
        deterministic query writer): the records about the first term, ranked by the others."""
        return " ".join(terms)

    named_by: ClassVar[str] = "by the names the question holds"
    """How a source with :meth:`named_queries` is searched, for the note saying a model's own
    queries for it were replaced."""

    def named_queries(self, question: str, intent: Intent) -> list[str]:
        """The source's own queries, sent whatever the sub-questions' terms: one per thing the
        question names that it looks up by name (the Materials Project: each material), or the
        one that reads a library whole; ``[]`` (this default): the source is searched by terms
        (:meth:`build_query`)."""
        return []

    def build_any_two_query(self, words: list[str], intent: Intent) -> str:
        """A query for the records naming any two of ``words`` (the question's most specific
        words, rarest first), or ``""`` when the source's syntax has no OR, as this default.

        It finds a study that words the question differently ("folate" and "homocysteine"
        without "deficiency" or "blood levels"), which a query requiring one chosen term misses
        when that term is not the study's word. Sources with boolean search implement it with
        :func:`any_two`.
        """
        return ""

    def no_query_reason(self, intent: Intent) -> str:
        """Why ``build_query`` wrote no query for this question, for the search log."""
        return f"no {self.label} query could be written from the question's terms"

    def search(self, request: SearchRequest) -> SourceResult:
        """Run one search; failures come out as :class:`SourceError`, never as a client's own."""
        started = time.monotonic()
        try:
            with all_or_nothing():
                result = self._search(request)
        except SourceError:
            raise
        except (OSError, TimeoutError) as exc:
            if is_unreachable(exc):
                raise SourceUnreachable(self.name, _describe(exc)) from exc
            raise SourceUnavailable(self.name, _describe(exc)) from exc
        except Exception as exc:
            log.debug("%s failed", self.name, exc_info=True)
            raise SourceResponseError(self.name, _describe(exc)) from exc
        self._check_result(result)
        for work in result.works:
            if work.sources != [self.name]:
                work.sources = [self.name]
        result.seconds = time.monotonic() - started
        log.info("%s: %d results for %r in %.1fs", self.name, len(result), request.query,
                 result.seconds)
        return result

    def _check_result(self, result: object) -> None:
        """Refuse what ``_search`` returned when it is not a :class:`SourceResult` of
        :class:`Work` and :class:`Material` records: the search fails with one line naming the
        agent's class (recorded in the search log), instead of an ``AttributeError`` deep in
        retrieval that stops the whole review."""
        where = f"{type(self).__module__}.{type(self).__qualname__}._search"
        if not isinstance(result, SourceResult):
            raise SourceResponseError(self.name, f"{where} returned {type(result).__name__}, "
                                      "not a scholargraph.sources.base.SourceResult")
        for records, kind in ((result.works, Work), (result.materials, Material)):
            wrong = next((record for record in records if not isinstance(record, kind)), None)
            if wrong is not None:
                raise SourceResponseError(
                    self.name, f"{where} returned a {type(wrong).__name__} among its "
                    f"{'works' if kind is Work else 'materials'}, not a "
                    f"scholargraph.records.{kind.__name__}")

    @abstractmethod
    def _search(self, request: SearchRequest) -> SourceResult:
        """Send the query to the service through its client and normalise what comes back."""


def _naming_failures(cls: type, hook: str, method: Callable[..., Any]) -> Callable[..., Any]:
    """``method`` (``cls``'s own ``hook``), its exceptions but scholargraph's own raised as a
    :class:`SourceAgentError` naming ``module.Class.hook``: the graph calls these hooks from its
    query-writing nodes, where an ``IndexError`` would name neither the module nor the source."""

    @wraps(method)
    def named(*args: Any, **kwargs: Any) -> Any:
        try:
            return method(*args, **kwargs)
        except ScholargraphError:
            raise
        except Exception as exc:
            where = f"{cls.__module__}.{cls.__qualname__}.{hook}"
            raise SourceAgentError(f"{where} failed: {_describe(exc)}") from exc

    return named


def clean_terms(terms: list[str], syntax_chars: str = '"():[]') -> list[str]:
    """Search terms without the characters the source's query syntax gives meaning to (so a
    term can never open a group or name a field), blank and repeated terms dropped."""
    pattern = "[\\s" + re.escape(syntax_chars) + "]+"
    cleaned = (re.sub(pattern, " ", term).strip() for term in terms)
    return list(dict.fromkeys(term for term in cleaned if term))


def any_two(groups: list[str]) -> str:
    """``(A AND B) OR (A AND C) OR (B AND C)``: groups already in a source's syntax, any two of
    them together (one group alone is itself)."""
    if len(groups) <= 1:
        return "".join(groups)
    return " OR ".join(f"({a} AND {b})" for a, b in combinations(groups, 2))


def first_and_any(groups: list[str]) -> str:
    """``A AND (B OR C ...)``: the first (most specific) group required, any other may join it."""
    if len(groups) <= 1:
        return "".join(groups)
    return f"{groups[0]} AND ({' OR '.join(groups[1:])})"


def _describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}"[:300] if text else type(exc).__name__


NAME_SUFFIXES = frozenset({"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"})
"""What may follow a family name ('Robert W. Heath Jr.'): not the family name itself."""


def family_first(name: str) -> str:
    """A name written 'Given Family' (arXiv, OpenAlex) as 'Family, Given': a particle kept with
    the family name ('van der Sommen, Fons'), a suffix after the given names ('Heath, Robert
    W., Jr.' for 'Robert W. Heath Jr.', whose family name is not 'Jr.'), so that the first
    author's family name deduplication compares is the same whichever source wrote it. A name
    with a comma (already 'Family, Given') or of one word is kept as it is."""
    parts = name.strip().split()
    suffix = parts.pop() if len(parts) > 2 and parts[-1].lower() in NAME_SUFFIXES else ""
    if len(parts) < 2 or "," in name:
        return name.strip()
    particles = {"van", "von", "de", "der", "del", "da", "di", "la", "le", "du", "dos"}
    split = len(parts) - 1
    while split > 1 and parts[split - 1].lower() in particles:
        split -= 1
    return f"{' '.join(parts[split:])}, {' '.join(parts[:split])}" + (f", {suffix}" if suffix
                                                                     else "")
