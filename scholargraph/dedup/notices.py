"""Attaching to a work what is not an independent study but belongs with it (rules 4 and 5 of
:mod:`scholargraph.dedup`).

- rule 4, :func:`attachment_links` and :func:`attach_notices`: an erratum the work's record
  names ('erratum'), a reply printed with the letter it answers ('reply'), a meeting abstract
  earlier in the paper's volume ('meeting_abstract');
- rule 5, :func:`join_review_versions`: the earlier versions of a Cochrane review, attached to
  the newest ('review_version');
- :func:`with_notice`, :func:`named_notices` and :func:`describe_notice`: how an attached item
  is folded into the work and named in ``Work.notices``.

What the title says (the labels stripped, the kind of notice, the erratum a note cites) is read
by :mod:`scholargraph.dedup.titles`; which review a record is, by
:func:`scholargraph.dedup.keys.cochrane_review`.
"""

from __future__ import annotations

from collections import defaultdict
from itertools import combinations

from scholargraph.dedup.groups import UnionFind
from scholargraph.dedup.keys import Keys, venues_agree
from scholargraph.dedup.rules import (
    MIN_SHARED_AUTHORS,
    first_authors_agree,
    has_page_range,
    same_title,
    titles_disagree,
    years_agree,
)
from scholargraph.dedup.titles import MIN_EXTENDED_WORDS, CitedPlace
from scholargraph.records import Work

NOTICE_LABELS = {"erratum": "Erratum", "reply": "Reply", "meeting_abstract": "Meeting abstract"}
"""How ``Work.notices`` names the kind of an attached item, by the rule that attached it."""
IDENTIFIER_LABELS = {"doi": "DOI", "pmid": "PMID", "pmcid": "PMCID", "arxiv": "arXiv",
                     "openalex": "OpenAlex"}
"""How ``Work.notices`` names an attached item's identifiers ('PMID 19494218')."""
Attachment = tuple[str, int, int, str]
"""(rule, attached record, record of the work it concerns, evidence)."""


def attachment_links(keys: list[Keys], pairs: list[tuple[int, int]]) -> list[Attachment]:
    """Records that are not the work itself but belong with it: its erratum, a reply printed
    with the letter it answers, a one-page item under its title and authors in its volume."""
    links: list[Attachment] = []
    for i, j in pairs:
        for item, work in ((i, j), (j, i)):
            if found := _attachment(keys[item], keys[work]):
                links.append((found[0], item, work, found[1]))
                break
    return links


def _attachment(item: Keys, work: Keys) -> tuple[str, str] | None:
    """(rule, evidence) when ``item`` is attached to ``work`` by one of the notice rules."""
    for rule, match in (("erratum", _erratum_match), ("reply", _reply_match),
                        ("meeting_abstract", _abstract_match)):
        if detail := match(item, work):
            return rule, detail
    return None


def _erratum_match(item: Keys, work: Keys) -> str | None:
    """Why ``item`` is an erratum of ``work``: the work's record names where its erratum is
    printed (MEDLINE's '[Erratum appears in N Engl J Med. 2009;360(23):2487]') and ``item`` is
    there (the volume, and the first page or the issue), under the work's title (its label
    stripped), in a journal that can be the work's.

    A record labelled an erratum that the work's record does not name stays apart, even by the
    work's authors: the labelled sets of ``bench/dedup.py`` keep such notices apart (DBLP-ACM's
    'Erratum: A Database Model for Object Dynamics'), and a notice need not say which of two
    same-titled works it corrects."""
    if item.notice not in (None, "erratum") or work.notice is not None:
        return None
    cited = next((place for place in work.errata if _is_at(item, place)), None)
    if cited is None or not (item.venue and work.venue and venues_agree(item.venue, work.venue)):
        return None
    if not (similarity := same_title(item, work)):
        return None
    where = (f"page {cited.page}" if item.pages and item.pages.first == cited.page
             else f"issue {cited.issue}")
    return (f"the work's record names its erratum at volume {cited.volume}, {where}; "
            f"title similarity {similarity:.3f}")


def _is_at(item: Keys, place: CitedPlace) -> bool:
    if item.volume != place.volume:
        return False
    if item.pages is not None and item.pages.first == place.page:
        return True
    return place.issue is not None and item.issue == place.issue


def _reply_match(item: Keys, work: Keys) -> str | None:
    """Why ``item`` is the reply printed with the letter ``work``: the letter's record is the
    whole exchange as one item (Embase's '(multiple letters)'), its page range covering the
    reply's page and its authors including the reply's, in the same journal volume.

    A reply indexed on its own beside a letter indexed on its own is two publications by two
    sets of authors, and stays apart."""
    if item.notice != "reply" or work.notice not in (None, "comment"):
        return None
    if not (item.pages and work.pages and work.pages.last and _same_volume(item, work)):
        return None
    if not work.pages.first <= item.pages.first <= work.pages.last:
        return None
    shared = item.all_authors & work.all_authors
    if not shared or len(shared) < min(MIN_SHARED_AUTHORS, len(item.all_authors)):
        return None
    if not (similarity := same_title(item, work)):
        return None
    return (f"the letter's record covers volume {item.volume}, pages {work.pages.first}-"
            f"{work.pages.last} and lists the reply's authors ({len(shared)}); "
            f"title similarity {similarity:.3f}")


def _abstract_match(item: Keys, work: Keys) -> str | None:
    """Why ``item`` is the meeting abstract of the paper ``work``: one page earlier in the same
    journal volume (the meeting's supplement or abstract issue), under the paper's title, by
    its first author and at least ``MIN_SHARED_AUTHORS`` of its authors.

    Only earlier: a one-page item under the title after the article is a correction printed
    without a label, which is attached only where the article's record names it ('erratum')."""
    if item.notice is not None or work.notice is not None or not has_page_range(work):
        return None
    if not (item.pages and work.pages and item.pages.last in (None, item.pages.first)):
        return None
    if item.pages.prefix != work.pages.prefix or item.pages.first >= work.pages.first:
        return None
    if not (_same_volume(item, work) and first_authors_agree(item, work)):
        return None
    if len(item.all_authors & work.all_authors) < MIN_SHARED_AUTHORS:
        return None
    if len(set(work.title.split())) < MIN_EXTENDED_WORDS:
        return None
    if not (similarity := same_title(item, work)):
        return None
    return (f"page {item.pages.first} of volume {item.volume} before pages "
            f"{work.pages.first}-{work.pages.last}, first author {work.author}; "
            f"title similarity {similarity:.3f}")


def _same_volume(a: Keys, b: Keys) -> bool:
    """Both records name journals that can be one, the same volume, and years that agree."""
    if a.volume is None or a.volume != b.volume or not years_agree(a, b):
        return False
    return bool(a.venue and b.venue and venues_agree(a.venue, b.venue))


def attach_notices(groups: UnionFind, links: list[Attachment]) -> None:
    """Attach each group of notice records to the one work its links point to.

    A notice whose links point to two works (two articles of one title) is ambiguous and stays
    apart; a group holding an article of its own (a record with a page range) is never attached.
    """
    targets: dict[int, dict[int, Attachment]] = defaultdict(dict)
    for link in links:
        item_root, work_root = groups.find(link[1]), groups.find(link[2])
        if item_root != work_root:
            targets[item_root].setdefault(work_root, link)
    for item_root, found in targets.items():
        if len(found) == 1 and groups.attachable(item_root):
            [(rule, item, work, detail)] = found.values()
            groups.attach(item, work, rule, detail)


def join_review_versions(groups: UnionFind, keys: list[Keys]) -> None:
    """Attach every version of a Cochrane review to its newest version (rule 5 of
    :mod:`scholargraph.dedup`). Versions whose order cannot be told stay apart, and so does
    a record with neither title words nor first author in common with the other (a DOI pasted
    into it)."""
    by_review: dict[str, list[int]] = defaultdict(list)
    for index, key in enumerate(keys):
        if key.review:
            by_review[key.review.number].append(index)
    for number, indices in by_review.items():
        for i, j in combinations(indices, 2):
            if link := _version_link(groups, keys, number, i, j):
                groups.attach(*link)


def _version_link(groups: UnionFind, keys: list[Keys], number: str, i: int, j: int
                  ) -> tuple[int, int, str, str] | None:
    """(older record, newer record, rule, evidence) when records ``i`` and ``j`` of review
    ``number``, not yet in one group, are two versions whose order the groups tell."""
    root_i, root_j = groups.find(i), groups.find(j)
    if root_i == root_j or _unrelated(keys[i], keys[j]):
        return None
    version_i, version_j = _group_version(groups, root_i, number), _group_version(
        groups, root_j, number)
    order = _newer(version_i, version_j)
    if order is None:
        return None
    (older, old), (newer, new) = (((j, version_j), (i, version_i)) if order > 0
                                  else ((i, version_i), (j, version_j)))
    return older, newer, "review_version", (
        f"Cochrane review {number.upper()}: {_describe_version(old)} updated by "
        f"{_describe_version(new)}")


VersionOrder = tuple[int | None, int | None]
"""(version number, year) of a group of records of one Cochrane review, each None if unknown."""


def _group_version(groups: UnionFind, root: int, number: str) -> VersionOrder:
    """The newest version number and year the group's records of review ``number`` give."""
    members = [key for key in (groups.keys[m] for m in groups.members[root])
               if key.review and key.review.number == number]
    versions = [key.review.version for key in members
                if key.review and key.review.version is not None]
    years = [key.year for key in members if key.year is not None]
    return max(versions, default=None), max(years, default=None)


def _newer(a: VersionOrder, b: VersionOrder) -> int | None:
    """1 when ``a`` is the later version, -1 when ``b`` is, None when it cannot be told: the
    version numbers and the years say nothing or contradict each other."""
    by_version, by_year = _compare(a[0], b[0]), _compare(a[1], b[1])
    if by_version and by_year and by_version != by_year:
        return None
    return by_version or by_year or None


def _compare(a: int | None, b: int | None) -> int:
    if a is None or b is None or a == b:
        return 0
    return 1 if a > b else -1


def _describe_version(version: VersionOrder) -> str:
    number, year = version
    year_text = str(year) if year is not None else "year unknown"
    return f"version {number} ({year_text})" if number is not None else year_text


def _unrelated(a: Keys, b: Keys) -> bool:
    """Neither the first author nor most title words in common: one of the two records carries
    an identifier that is not its own. (A review's update may change its title or its first
    author, rarely both.)"""
    return not first_authors_agree(a, b) and titles_disagree(a, b)


def with_notice(work: Work, notice: Work, rule: str) -> Work:
    """``work`` with a notice about it (or an earlier version of it) attached: the notice's
    sources and rule are recorded, but none of its fields or identifiers fill the work's (an
    erratum's DOI is not the article's); they stay in the
    :class:`~scholargraph.dedup.Merge`."""
    return work.model_copy(update={
        "sources": list(dict.fromkeys([*work.sources, *notice.sources])),
        "merged_by": list(dict.fromkeys([*work.merged_by, *notice.merged_by, rule])),
    })


def named_notices(works: list[Work], groups: UnionFind, indices: list[int]) -> list[str]:
    """The erratum, reply and meeting abstract attached to one work, as ``Work.notices`` names
    them: one entry per notice, however many records of it the sources gave."""
    notices: dict[int, list[int]] = defaultdict(list)
    for index in indices:
        if index in groups.attached and groups.attached[index][0] in NOTICE_LABELS:
            notices[groups.attached_with[index]].append(index)
    return [describe_notice([works[i] for i in records], groups.attached[records[0]][0])
            for records in notices.values()]


def describe_notice(records: list[Work], rule: str) -> str:
    """A notice attached by ``rule`` as ``Work.notices`` names it: its kind and the identifiers
    of its records ('Erratum: DOI 10.1056/nejmx090022, PMID 19494218'), or, when none has any,
    where it is printed ('Reply: Pediatric Nephrology 2004;19(8):945')."""
    identifiers = dict.fromkeys(f"{IDENTIFIER_LABELS[kind]} {value}"
                                for record in records for kind, value in record.identifiers())
    return f"{NOTICE_LABELS[rule]}: {', '.join(identifiers) or _printed_at(records[0])}"


def _printed_at(work: Work) -> str:
    """'Pediatric Nephrology 2004;19(8):945', from what the record gives; its title if nothing."""
    issue = f"({work.issue})" if work.issue else ""
    place = f"{work.volume or ''}{issue}" + (f":{work.pages}" if work.pages else "")
    year = str(work.year) if work.year else ""
    when = ";".join(part for part in (year, place) if part)
    return " ".join(part for part in (work.venue, when) if part) or work.title
