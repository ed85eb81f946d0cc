"""Pairwise precision, recall and F1 of the project's deduplication on labelled bibliographies.

    python bench/dedup.py --dataset ../shared/evaldata/dedup/bib_dedupe/haematology
    python bench/dedup.py --dataset ../shared/evaldata/dedup/dblp_acm

Two formats are read:
- bib-dedupe (``records_pre_merged.csv`` + ``merged_record_ids.csv``, gold groups of ids);
- DBLP-ACM (``DBLP2_tableA.csv``, ``ACM_tableB.csv`` and the gold pairs in
  ``DBLP-ACM_perfectMapping_noheader.csv``), deduplicated as one list, as the retrieval node does.

Also prints the time to deduplicate the set and a pool of ``--scale`` records drawn from every
set beside it, and, for a bib-dedupe folder, how many of the hand-made pairs of
``test_cases.json`` beside it (near-miss non-duplicates among them) are judged as labelled.
``--show-errors N`` prints N false merges (with the rule and evidence that made each) and N
missed pairs, each with the fields on which the two records differ. The last line is
``F1 <value>``.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
import time
from itertools import combinations
from pathlib import Path

from scholargraph.dedup import DedupResult, deduplicate
from scholargraph.records import Work

Pair = frozenset[str]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, required=True)
    parser.add_argument("--scale", type=int, default=10_000,
                        help="also time this many records pooled from the sibling sets (0: skip)")
    parser.add_argument("--show-errors", type=int, default=0,
                        help="print this many false merges and missed pairs")
    args = parser.parse_args()
    if not args.dataset.is_dir():
        sys.exit(f"no dataset at {args.dataset}")
    ids, works, gold = load(args.dataset)
    started = time.perf_counter()
    result = deduplicate(works)
    elapsed = time.perf_counter() - started
    predicted = {frozenset(pair) for group in result.groups
                 for pair in combinations([ids[i] for i in group], 2)}
    precision, recall, f1 = scores(predicted, gold)
    print(f"dataset     {args.dataset.name}: {len(works)} records, {len(gold)} gold pairs")
    print(f"merged      {result.duplicates_removed} records removed; "
          f"rules {_rule_counts(result.merges)}")
    print(f"time        {elapsed:.2f} s ({len(works) / elapsed:,.0f} records/s)")
    if args.scale:
        pool = pooled_works(args.dataset.parent.parent if args.dataset.parent.name == "bib_dedupe"
                            else args.dataset.parent, args.scale)
        started = time.perf_counter()
        deduplicate(pool)
        print(f"scale       {len(pool)} pooled records in {time.perf_counter() - started:.2f} s")
    cases = args.dataset.parent / "test_cases.json"
    if (args.dataset.parent.name == "bib_dedupe" and cases.exists()
            and (args.dataset / "records_pre_merged.csv").exists()):
        check_cases(cases, show=bool(args.show_errors))
    if args.show_errors:
        show_errors(predicted, gold, ids, works, result, args.show_errors)
    print(f"pairs       predicted {len(predicted)}, true positives {len(predicted & gold)}")
    print(f"precision   {precision:.4f}")
    print(f"recall      {recall:.4f}")
    print(f"F1 {f1:.4f}")


def load(folder: Path) -> tuple[list[str], list[Work], set[Pair]]:
    """Record ids, the records as works, and the gold duplicate pairs."""
    if (folder / "records_pre_merged.csv").exists():
        return load_bib_dedupe(folder)
    if (folder / "DBLP2_tableA.csv").exists():
        return load_dblp_acm(folder)
    sys.exit(f"{folder} holds neither a bib-dedupe nor a DBLP-ACM set")


def load_bib_dedupe(folder: Path) -> tuple[list[str], list[Work], set[Pair]]:
    rows = _read_csv(folder / "records_pre_merged.csv")
    works = [_bib_work(row) for row in rows]
    gold: set[Pair] = set()
    for row in _read_csv(folder / "merged_record_ids.csv"):
        members = row["merged_ids"].split(";")
        gold.update(frozenset(pair) for pair in combinations(members, 2))
    return [row["ID"] for row in rows], works, gold


def load_dblp_acm(folder: Path) -> tuple[list[str], list[Work], set[Pair]]:
    ids: list[str] = []
    works: list[Work] = []
    for name, prefix in (("DBLP2_tableA.csv", "dblp"), ("ACM_tableB.csv", "acm")):
        for row in _read_csv(folder / name):
            ids.append(f"{prefix}:{row['id']}")
            authors = [a.strip() for a in row["authors"].split(",") if a.strip()]
            works.append(_work(row["title"], authors, row["year"], row["venue"], None, None,
                               source=prefix))
    with (folder / "DBLP-ACM_perfectMapping_noheader.csv").open(encoding="utf-8") as handle:
        gold = {frozenset((f"dblp:{a}", f"acm:{b}")) for a, b in csv.reader(handle)}
    return ids, works, gold


def pooled_works(root: Path, limit: int) -> list[Work]:
    """Up to ``limit`` records from every labelled set under ``root`` (for timing only)."""
    works: list[Work] = []
    folders = sorted({p.parent for p in root.rglob("records_pre_merged.csv")}
                     | {p.parent for p in root.rglob("DBLP2_tableA.csv")})
    for folder in folders:
        works.extend(load(folder)[1])
    return works[:limit]


def scores(predicted: set[Pair], gold: set[Pair]) -> tuple[float, float, float]:
    true_positives = len(predicted & gold)
    precision = true_positives / len(predicted) if predicted else 1.0
    recall = true_positives / len(gold) if gold else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def check_cases(path: Path, show: bool) -> None:
    """Judge each hand-made pair of ``test_cases.json`` and print how many agree with the label."""
    cases = json.loads(path.read_text(encoding="utf-8"))["cases"]
    wrong = []
    for case in cases:
        pair = [_bib_work(record) for record in (case["record_a"], case["record_b"])]
        if (deduplicate(pair).duplicates_removed == 1) != case["expected_duplicate"]:
            wrong.append(case)
    print(f"cases       {len(cases) - len(wrong)}/{len(cases)} hand-made pairs as labelled")
    for case in wrong if show else []:
        print(f"  CASE {case['id']} (expected duplicate: {case['expected_duplicate']})")


def show_errors(predicted: set[Pair], gold: set[Pair], ids: list[str], works: list[Work],
                result: DedupResult, limit: int) -> None:
    """False merges with the rule and evidence of the merge that made them; missed pairs; for
    each, the two records and the fields on which they differ."""
    index = {record_id: position for position, record_id in enumerate(ids)}
    evidence = {merge.merged_id: f"{merge.rule} ({merge.detail})" for merge in result.merges}
    group_of = {position: group for group in result.groups for position in group}
    for label, pairs in (("FALSE MERGE", predicted - gold), ("MISSED", gold - predicted)):
        print(f"{label}: {len(pairs)} pairs")
        for pair in sorted(pairs, key=sorted)[:limit]:
            a, b = sorted(pair, key=lambda record_id: index[record_id])
            print(f"--- {label} {a} / {b}")
            if label == "FALSE MERGE":
                rules = [evidence.get(works[i].id, "first record")
                         for i in group_of[index[b]] if i != group_of[index[b]][0]]
                print(f"  group of {len(group_of[index[b]])}, merged by: {'; '.join(rules)}")
            for field in ("title", "authors", "year", "venue", "volume", "pages", "doi"):
                va, vb = (getattr(works[index[r]], field) for r in (a, b))
                if va != vb:
                    print(f"  {field:8} {_short(va)}\n  {'':8} {_short(vb)}")


def _short(value: object) -> str:
    text = "; ".join(value[:3]) if isinstance(value, list) else str(value)
    return text if len(text) <= 150 else text[:147] + "..."


def _bib_work(row: dict[str, str | None]) -> Work:
    """A work from a bib-dedupe record ('number' and 'issue' name the same field)."""
    return _work(row.get("title") or "", _split_bibtex_authors(row.get("author") or ""),
                 row.get("year") or "", row.get("journal") or row.get("booktitle"),
                 row.get("doi"), row.get("abstract"), volume=row.get("volume"),
                 issue=row.get("number") or row.get("issue"), pages=row.get("pages"))


def _work(title: str, authors: list[str], year: str, venue: str | None, doi: str | None,
          abstract: str | None, source: str | None = None, volume: str | None = None,
          issue: str | None = None, pages: str | None = None) -> Work:
    year_match = re.search(r"\d{4}", year or "")
    return Work(title=title or "", authors=authors, year=int(year_match.group()) if year_match
                else None, venue=venue or None, doi=doi or None, abstract=abstract or None,
                volume=volume or None, issue=issue or None, pages=pages or None,
                sources=[source] if source else [])


def _split_bibtex_authors(field: str) -> list[str]:
    return [name.strip() for name in re.split(r"\s+and\s+|;", field) if name.strip()]


def _read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def _rule_counts(merges: list) -> str:
    counts: dict[str, int] = {}
    for merge in merges:
        counts[merge.rule] = counts.get(merge.rule, 0) + 1
    return ", ".join(f"{rule} {n}" for rule, n in sorted(counts.items())) or "none"


if __name__ == "__main__":
    main()
