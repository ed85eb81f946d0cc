"""The ordered registry of source agents: the built-in five plus plug-ins.

A plug-in is a module with a :class:`~scholargraph.sources.base.SourceAgent` subclass, registered
either by an entry point of the package that ships it (its ``pyproject.toml``)::

    [project.entry-points."scholargraph.sources"]
    crossref = "scholargraph_crossref.agent:CrossrefAgent"

or, without packaging, by a dotted path in the environment::

    SCHOLARGRAPH_SOURCES="my_package.europepmc:EuropePMCAgent,other.module:OtherAgent"

Its ``order`` class variable places it in the fixed tool loop (PubMed 10, arXiv 20, OpenAlex 30,
Materials Project 40, web 50). Its ``politeness`` class variable declares its service's manners
(rate, key, timeout, size cap), which :func:`scholargraph.http.policy.http_session` applies to
every request under the agent's name. ``graph.py`` builds one node
per registered agent in this order,
so adding a source never means editing the graph. The registry is read once per value of
``SCHOLARGRAPH_SOURCES``; after installing a plug-in into a running process, call
:func:`refresh`.
"""

from __future__ import annotations

import inspect
import logging
import os
import re
from dataclasses import dataclass
from functools import cache
from importlib import import_module, invalidate_caches
from importlib.metadata import entry_points, packages_distributions, version
from typing import get_args

from scholargraph.agents.schemas import Domain
from scholargraph.errors import ConfigurationError
from scholargraph.http.policy import Declaration, Politeness, declare
from scholargraph.settings import Settings
from scholargraph.sources.base import SourceAgent, SourceResult

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "scholargraph.sources"
SOURCES_ENV = "SCHOLARGRAPH_SOURCES"
BUILT_IN = "built-in"

NAME_PATTERN = re.compile(r"[a-z][a-z0-9_-]*")
"""A source's name: a lower-case word (digits, ``_`` and ``-`` after the first letter), because
it is typed in ``--sources a,b``, names a graph node and keys the PRISMA counts and the search
log: a space or a comma in it would split on the command line."""
GRAPH_NODES = frozenset({"supervisor", "clean_query", "intent", "planning", "approve_plan",
                         "query_generation", "retrieval", "rag_filter", "synthesis",
                         "evaluation", "__start__", "__end__"})
"""The graph's own nodes (:mod:`scholargraph.graph`): a source cannot take one of their names,
as LangGraph refuses two nodes of one name only when the graph is built, naming neither."""
DOMAINS = frozenset(get_args(Domain))
"""The domains the intent agent can name: a source declaring any other is never activated."""

BUILTIN_AGENTS = (
    "scholargraph.sources.library:LibraryAgent",
    "scholargraph.sources.pubmed:PubMedAgent",
    "scholargraph.sources.arxiv:ArxivAgent",
    "scholargraph.sources.openalex:OpenAlexAgent",
    "scholargraph.sources.materials:MaterialsAgent",
    "scholargraph.sources.web.agent:WebAgent",
)


def _load(dotted: str, origin: str) -> type[SourceAgent]:
    """The agent class at ``module:Class``; ``origin`` says where the path came from."""
    module_name, colon, attribute = dotted.strip().partition(":")
    if not colon or not module_name or not attribute:
        raise ConfigurationError(f"{origin}: {dotted!r} is not a 'package.module:Class' path")
    try:
        agent_class = getattr(import_module(module_name), attribute)
    except ImportError as exc:
        if origin == BUILT_IN:
            raise ConfigurationError(
                f"scholargraph's own source module {module_name} cannot be imported ({exc}): a "
                "dependency is missing or broken; reinstall scholargraph (README, Set-up)"
            ) from exc
        raise ConfigurationError(f"{origin}: cannot import {module_name} ({exc}); is the plug-in "
                                 "installed?") from exc
    except AttributeError:
        raise ConfigurationError(f"{origin}: {module_name} has no {attribute}") from None
    if not (isinstance(agent_class, type) and issubclass(agent_class, SourceAgent)):
        raise ConfigurationError(f"{origin}: {dotted} is not a SourceAgent subclass")
    for declared in ("name", "order", "label", "domains"):
        if not hasattr(agent_class, declared):
            raise ConfigurationError(f"{origin}: {dotted} does not declare {declared!r}")
    problem = _declaration_problem(agent_class)
    if problem:
        raise ConfigurationError(f"{origin}: {dotted} {problem}")
    if not isinstance(agent_class.politeness, Politeness | None):
        raise ConfigurationError(f"{origin}: {dotted}.politeness is not a "
                                 "scholargraph.http.policy.Politeness")
    declare(agent_class.name, Declaration(agent_class.politeness, tuple(agent_class.secret_envs),
                                          tuple(agent_class.secret_parameters)))
    return agent_class


def _declaration_problem(agent_class: type[SourceAgent]) -> str | None:
    """What is wrong with an agent's declared class variables, or ``None``: checked when the
    registry is read, so a mistake is one line naming the module, not a ``TypeError`` from the
    sort of the tool loop or a source that is silently never asked."""
    name, order = agent_class.name, agent_class.order
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        return (f"declares name {name!r}: a source's name is one lower-case word (letters, "
                "digits, '_' or '-'), as typed after --sources")
    if name in GRAPH_NODES:
        return f"declares name {name!r}, which is a node of the graph itself; rename it"
    if isinstance(order, bool) or not isinstance(order, int):
        return (f"declares order {order!r}: an int placing it in the tool loop (PubMed 10, "
                "arXiv 20, OpenAlex 30, Materials Project 40, web 50)")
    if not isinstance(agent_class.label, str) or not agent_class.label.strip():
        return f"declares label {agent_class.label!r}: the source's name as a reader reads it"
    domains = agent_class.domains
    if not isinstance(domains, frozenset | set) or not (domains or agent_class.always_active):
        return f"declares domains {domains!r}: a frozenset of {', '.join(sorted(DOMAINS))}"
    unknown = sorted(str(domain) for domain in domains if domain not in DOMAINS)
    if unknown:
        return (f"declares unknown domains {unknown}: the question's domains are "
                f"{', '.join(sorted(DOMAINS))}, and no other would ever activate it")
    if inspect.isabstract(agent_class):
        missing = ", ".join(sorted(getattr(agent_class, "__abstractmethods__", ())))
        return f"does not implement {missing} (a SearchRequest in, a {SourceResult.__name__} out)"
    return None


def _plugin_paths(env_value: str) -> list[tuple[str, str]]:
    """(dotted path, where it came from) for every plug-in: entry points, then the variable."""
    found = [(entry.value, f"entry point {entry.name!r}")
             for entry in entry_points(group=ENTRY_POINT_GROUP)]
    found += [(dotted, SOURCES_ENV) for dotted in env_value.split(",") if dotted.strip()]
    return found


@dataclass(frozen=True)
class Registered:
    """A registered agent class and where it came from (the run record names the plug-ins)."""

    agent_class: type[SourceAgent]
    dotted: str
    origin: str


@cache
def _registered(env_value: str) -> tuple[Registered, ...]:
    found: dict[str, Registered] = {}
    for dotted in BUILTIN_AGENTS:
        agent_class = _load(dotted, BUILT_IN)
        found[agent_class.name] = Registered(agent_class, dotted, BUILT_IN)
    for dotted, origin in _plugin_paths(env_value):
        agent_class = _load(dotted, origin)
        taken = found.get(agent_class.name)
        if taken is not None and taken.agent_class is not agent_class:
            raise ConfigurationError(
                f"source plug-in {dotted} ({origin}) reuses the name {agent_class.name!r} of "
                f"{taken.dotted} ({taken.origin}); rename it")
        found[agent_class.name] = Registered(agent_class, dotted.strip(), origin)
    return tuple(sorted(found.values(),
                        key=lambda entry: (entry.agent_class.order, entry.agent_class.name)))


def agent_classes() -> tuple[type[SourceAgent], ...]:
    """Every source agent class, in tool-loop order (by ``order``, then by ``name`` where two
    declare the same order); names are unique."""
    return tuple(entry.agent_class for entry in _registered(os.environ.get(SOURCES_ENV, "")))


def plugins() -> dict[str, str]:
    """Each plug-in's name, with the class that implements it, where it was registered and the
    version of the package that ships it: a colleague re-running a review needs the same
    plug-in, which the command alone does not say."""
    return {entry.agent_class.name: _provenance(entry)
            for entry in _registered(os.environ.get(SOURCES_ENV, ""))
            if entry.origin != BUILT_IN}


def plugins_variable() -> str | None:
    """The plug-ins ``SCHOLARGRAPH_SOURCES`` registers for this process, as its value (dotted
    paths, comma-separated), or None: a re-run needs them registered the same way, and the run
    record's command sets the variable (the registry is the process's, so it is read here)."""
    env_value = os.environ.get(SOURCES_ENV, "")
    dotted = [path.strip() for path, origin in _plugin_paths(env_value) if origin == SOURCES_ENV]
    return ",".join(dotted) or None


def plugin_names() -> list[str]:
    """The names of the plug-ins (the sources not built in), in tool-loop order."""
    return [entry.agent_class.name for entry in _registered(os.environ.get(SOURCES_ENV, ""))
            if entry.origin != BUILT_IN]


def _provenance(entry: Registered) -> str:
    top = entry.dotted.partition(":")[0].split(".")[0]
    shipped = [f"{dist} {version(dist)}" for dist in packages_distributions().get(top, [])]
    return f"{entry.dotted} ({', '.join([entry.origin, *shipped])})"


def refresh() -> None:
    """Forget what was read, so newly installed entry points are found on the next call."""
    invalidate_caches()
    _registered.cache_clear()


def source_names() -> list[str]:
    """Names of all registered sources, in tool-loop order."""
    return [cls.name for cls in agent_classes()]


def get_agent(name: str, settings: Settings | None = None) -> SourceAgent:
    """A fresh agent for ``name``, configured by the run's ``settings``."""
    for entry in _registered(os.environ.get(SOURCES_ENV, "")):
        if entry.agent_class.name == name:
            return _made(entry, settings)
    raise ConfigurationError(f"unknown source {name!r}; known: {', '.join(source_names())}")


def _made(entry: Registered, settings: Settings | None) -> SourceAgent:
    """An agent of ``entry``'s class; a constructor that fails (a plug-in reading a missing file
    of its own) is a :class:`ConfigurationError` naming the module, not a traceback from the
    graph's node."""
    try:
        return entry.agent_class(settings)
    except ConfigurationError:
        raise
    except Exception as exc:  # noqa: BLE001 - re-raised as one line naming the module
        raise ConfigurationError(f"source {entry.agent_class.name!r} ({entry.dotted}, "
                                 f"{entry.origin}) could not be made: {type(exc).__name__}: "
                                 f"{exc}") from exc
