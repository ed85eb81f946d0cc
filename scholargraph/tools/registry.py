"""The ordered registry of source agents: the built-in five plus plug-ins found by entry point.

A plug-in is a package that declares, in its ``pyproject.toml``::

    [project.entry-points."scholargraph.sources"]
    europepmc = "my_package.europepmc:EuropePMCAgent"

Its ``order`` class variable places it in the fixed tool loop. ``graph.py`` builds one node per
registered agent in this order, so adding a source never means editing the graph.
"""

from __future__ import annotations

import logging
from functools import cache
from importlib import import_module
from importlib.metadata import entry_points

from scholargraph.errors import ConfigurationError
from scholargraph.tools.base import SourceAgent

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "scholargraph.sources"

BUILTIN_AGENTS = (
    "scholargraph.tools.pubmed:PubMedAgent",
    "scholargraph.tools.arxiv:ArxivAgent",
    "scholargraph.tools.openalex:OpenAlexAgent",
    "scholargraph.tools.materials:MaterialsAgent",
    "scholargraph.tools.web:WebAgent",
)


def _load(dotted: str) -> type[SourceAgent]:
    module_name, _, attribute = dotted.partition(":")
    agent_class = getattr(import_module(module_name), attribute)
    if not (isinstance(agent_class, type) and issubclass(agent_class, SourceAgent)):
        raise ConfigurationError(f"{dotted} is not a SourceAgent subclass")
    return agent_class


@cache
def agent_classes() -> tuple[type[SourceAgent], ...]:
    """Every source agent class, in tool-loop order; names are unique."""
    classes: dict[str, type[SourceAgent]] = {}
    for dotted in BUILTIN_AGENTS:
        agent_class = _load(dotted)
        classes[agent_class.name] = agent_class
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        agent_class = entry.load()
        if agent_class.name in classes and classes[agent_class.name] is not agent_class:
            raise ConfigurationError(
                f"source plug-in {entry.value} reuses the name {agent_class.name!r}; rename it"
            )
        classes[agent_class.name] = agent_class
    return tuple(sorted(classes.values(), key=lambda cls: (cls.order, cls.name)))


def source_names() -> list[str]:
    """Names of all registered sources, in tool-loop order."""
    return [cls.name for cls in agent_classes()]


def get_agent(name: str) -> SourceAgent:
    """A fresh agent for ``name``."""
    for agent_class in agent_classes():
        if agent_class.name == name:
            return agent_class()
    raise ConfigurationError(f"unknown source {name!r}; known: {', '.join(source_names())}")
