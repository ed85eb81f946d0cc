"""Check the folder the README's review command wrote: every file there, review.json whole,
screening.csv a row per work screened.

Exit 1 with one line per problem, so a README command that "succeeds" without a review fails CI.
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

FILES = ("review.md", "review.json", "review.html", "references.bib", "references.ris",
         "references.csl.json", "prisma.svg", "years.svg", "screening.csv")
KEYS = ("question", "sub_questions", "papers", "findings", "references", "prisma", "search_log",
        "evaluation", "iterations")


def problems(out: Path) -> list[str]:
    found = [f"{out / name} is missing or empty" for name in FILES
             if not (out / name).is_file() or (out / name).stat().st_size == 0]
    if found:
        return found
    try:
        review = json.loads((out / "review.json").read_text(encoding="utf-8"))
    except ValueError as error:
        return [f"review.json does not parse: {error}"]
    missing = [key for key in KEYS if key not in review]
    if missing:
        return [f"review.json lacks {', '.join(missing)}"]
    if not review["papers"] or not review["findings"]:
        return ["review.json has no papers or no findings"]
    with (out / "screening.csv").open(encoding="utf-8", newline="") as table:
        rows = list(csv.DictReader(table))
    if not review.get("history") and len(rows) != review["prisma"].get("screened"):
        return [f"screening.csv has {len(rows)} rows for {review['prisma'].get('screened')} "
                "works screened"]
    return []


if __name__ == "__main__":
    found = problems(Path(sys.argv[1]))
    for line in found:
        print(f"check_review: {line}", file=sys.stderr)
    if not found:
        print(f"check_review: {len(FILES)} files in {sys.argv[1]}, review.json whole")
    sys.exit(1 if found else 0)
