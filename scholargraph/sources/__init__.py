"""Source agents: the protocol (``base``), the ordered registry of built-ins and plug-ins
(``registry``), one module per source (``pubmed``, ``arxiv``, ``openalex``, ``materials``,
``library``; the web agent and its helpers in ``web/``), and OpenAlex enrichment (``enrich``).

A plug-in subclasses :class:`scholargraph.sources.base.SourceAgent`; the HTTP policy its
sessions obey lives in :mod:`scholargraph.http`.
"""
