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

import logging
import os
from functools import cache
from importlib import import_module, invalidate_caches
from importlib.metadata import entry_points

from scholargraph.errors import ConfigurationError
from scholargraph.http.policy import Declaration, Politeness, declare
from scholargraph.settings import Settings
from scholargraph.sources.base import SourceAgent

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "scholargraph.sources"
SOURCES_ENV = "SCHOLARGRAPH_SOURCES"
BUILT_IN = "built-in"

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
    if not isinstance(agent_class.politeness, Politeness | None):
        raise ConfigurationError(f"{origin}: {dotted}.politeness is not a "
                                 "scholargraph.http.policy.Politeness")
    declare(agent_class.name, Declaration(agent_class.politeness, tuple(agent_class.secret_envs),
                                          tuple(agent_class.secret_parameters)))
    return agent_class


def _plugin_paths(env_value: str) -> list[tuple[str, str]]:
    """(dotted path, where it came from) for every plug-in: entry points, then the variable."""
    found = [(entry.value, f"entry point {entry.name!r}")
             for entry in entry_points(group=ENTRY_POINT_GROUP)]
    found += [(dotted, SOURCES_ENV) for dotted in env_value.split(",") if dotted.strip()]
    return found


@cache
def _agent_classes(env_value: str) -> tuple[type[SourceAgent], ...]:
    classes: dict[str, type[SourceAgent]] = {}
    for dotted in BUILTIN_AGENTS:
        agent_class = _load(dotted, BUILT_IN)
        classes[agent_class.name] = agent_class
    for dotted, origin in _plugin_paths(env_value):
        agent_class = _load(dotted, origin)
        if agent_class.name in classes and classes[agent_class.name] is not agent_class:
            raise ConfigurationError(
                f"source plug-in {dotted} ({origin}) reuses the name {agent_class.name!r}; "
                "rename it")
        classes[agent_class.name] = agent_class
    return tuple(sorted(classes.values(), key=lambda cls: (cls.order, cls.name)))


def agent_classes() -> tuple[type[SourceAgent], ...]:
    """Every source agent class, in tool-loop order; names are unique."""
    return _agent_classes(os.environ.get(SOURCES_ENV, ""))


def refresh() -> None:
    """Forget what was read, so newly installed entry points are found on the next call."""
    invalidate_caches()
    _agent_classes.cache_clear()


def source_names() -> list[str]:
    """Names of all registered sources, in tool-loop order."""
    return [cls.name for cls in agent_classes()]


def get_agent(name: str, settings: Settings | None = None) -> SourceAgent:
    """A fresh agent for ``name``, configured by the run's ``settings``."""
    for agent_class in agent_classes():
        if agent_class.name == name:
            return agent_class(settings)
    raise ConfigurationError(f"unknown source {name!r}; known: {', '.join(source_names())}")
