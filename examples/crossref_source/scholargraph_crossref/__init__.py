"""scholargraph-crossref: a Crossref source agent, the worked example of a scholargraph plug-in."""

from scholargraph_crossref.agent import CrossrefAgent

__all__ = ["CrossrefAgent"]
