"""retrieval: gather every record the sources returned into one deduplicated list of works.

Deduplication runs over all rounds' records together, so a work found again by a gap query is
merged, not double-counted. The PRISMA counts come from the same pass, so they add up by
construction: screened = identified - duplicates removed; included = screened - excluded.
When OpenAlex is one of the run's sources, the works are then enriched from it (citation counts,
open-access links, retractions) and, with ``snowball``, joined by the works one citation away
(see :mod:`scholargraph.tools.enrich`). Last, each included work gets its source type and
credibility (:mod:`scholargraph.credibility`), from the merged and enriched record.
"""

from __future__ import annotations

from collections import Counter
from datetime import date

from langgraph.runtime import Runtime

from scholargraph.context import ReviewContext
from scholargraph.credibility import assess
from scholargraph.records import Work
from scholargraph.state import Prisma, ReviewState
from scholargraph.tools.enrich import augment_with_openalex

EXCLUSION_NO_TEXT = "no title and abstract to assess"


def is_assessable(work: Work) -> bool:
    """A work can be screened when there is text beyond its title to judge it by."""
    return bool(work.abstract or work.full_text)


def retrieval(state: ReviewState, runtime: Runtime[ReviewContext]) -> dict:
    context = runtime.context or ReviewContext()
    found = augment_with_openalex(
        state.get("records", []), known=state.get("papers", []),
        use_openalex="openalex" in state.get("active_sources", []), snowball=context.snowball,
        limit=context.max_results, round_number=state.get("iteration", 1),
        settings=context.run_settings)
    records = [*state.get("records", []), *found.added]
    works = found.works
    this_year = date.today().year
    included = [work.model_copy(update={"credibility": assess(work, this_year)})
                for work in works if is_assessable(work)]
    identified = Counter(source for record in records for source in record.sources)
    prisma: Prisma = {
        "identified": dict(sorted(identified.items())),
        "duplicates_removed": len(records) - len(works),
        "screened": len(works),
        "excluded": len(works) - len(included),
        "excluded_reasons": {EXCLUSION_NO_TEXT: len(works) - len(included)}
        if len(works) > len(included) else {},
        "included": len(included),
    }
    return {"papers": included, "prisma": prisma, "records": found.added,
            "search_log": found.log, "notes": found.notes}
