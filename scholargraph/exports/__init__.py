"""The files a review is handed over in: Markdown for reading, BibTeX, RIS and CSL-JSON for
reference managers.

Each format has its module with one entry point (``bibtex.dumps``, ``ris.dumps``,
``csljson.to_csl``, ``markdown.render``); what they must agree on (citation keys, entry kinds,
author names, links, the formatted reference) lives once, in :mod:`scholargraph.exports.citation`.
"""
