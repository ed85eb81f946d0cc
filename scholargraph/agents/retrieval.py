"""retrieval: gather every record the sources returned into one deduplicated list of works.

Deduplication runs over all rounds' records together, so a work found again by a gap query is
merged, not double-counted. The PRISMA counts come from the same pass, so they add up by
construction: screened = identified - duplicates removed; included = screened - excluded.
"""

from __future__ import annotations

from collections import Counter

from scholargraph.rag.dedup import deduplicate
from scholargraph.records import Work
from scholargraph.state import Prisma, ReviewState

EXCLUSION_NO_TEXT = "no title and abstract to assess"


def is_assessable(work: Work) -> bool:
    """A work can be screened when there is text beyond its title to judge it by."""
    return bool(work.abstract or work.full_text)


def retrieval(state: ReviewState) -> dict:
    records = state.get("records", [])
    result = deduplicate(records)
    included = [work for work in result.works if is_assessable(work)]
    identified = Counter(source for record in records for source in record.sources)
    prisma: Prisma = {
        "identified": dict(sorted(identified.items())),
        "duplicates_removed": len(records) - len(result.works),
        "screened": len(result.works),
        "excluded": len(result.works) - len(included),
        "included": len(included),
    }
    return {"papers": included, "prisma": prisma}
