"""Full texts as structured documents: JATS articles and PDFs parsed into sections, pages and
tables (:mod:`.jats`, :mod:`.pdf`, :mod:`.model`). Fetching them is
:mod:`scholargraph.fulltext.fetch`."""
