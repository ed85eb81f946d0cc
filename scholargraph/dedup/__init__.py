"""Deduplication across sources: one work per paper, every identifier and source kept.

The same paper reaches a review several times: PubMed and OpenAlex describe the published
article, arXiv the preprint, the web a landing page. A duplicate counts the same evidence twice;
a false merge silently loses a paper. So the rules go from certain to probable, and each one
refuses a merge that a stronger signal contradicts:

1. **identifiers** (rules 'doi', 'pmid', 'pmcid', 'arxiv', 'openalex', 'osf', 'url'): records
   sharing a DOI, PMID, PMCID, arXiv id, OpenAlex id or OSF id (or, for web pages and
   materials, a URL) are one work; identifiers are normalised by :mod:`scholargraph.identifiers`
   when a ``Work`` is built. **Versions** (rule 'version'): a record naming another record's
   identifier as another version of itself (``Work.version_ids``: OpenAlex lists a journal
   article's OSF or arXiv preprint among its locations, and a preprint's published DOI among
   its own; JMIR's preprint '10.2196/preprints.N' is published as '10.2196/N') is one work
   with it, unless their titles and first authors both disagree;
2. **fuzzy title** (rule 'fuzzy_title', rapidfuzz): normalised titles near-identical (database
   notes such as '[Review]', '[Spanish]', '(Tutorial)', '[corrected]' or ', Guest Editors'
   Foreword' dropped; a long title may carry a subtitle the other lacks; a title given in two
   languages matches on either), the same year (a preprint, or an article online ahead of
   print, may be a year older), the same first author (or two shared co-authors; a '?' the
   database wrote for a letter it could not encode matches that letter), and venues that can
   be the same journal ('N Engl J Med' / 'New England Journal of Medicine').
   Where both records give the same volume and first page, that place in the journal stands in
   for a venue written another way (a translated or section name: 'Zhonghua Yi Xue Za Zhi' /
   'National Medical Journal of China', 'Cancer Cytopathology' / 'Cancer'), for a collaborative
   group listed as author by one database only, for a year recorded one off, and for a year
   or an author list one record leaves out;
3. **volume and pages** (rule 'volume_pages'): a multi-page article is identified by its
   journal, volume and page range, so records agreeing on all of them, on the year and on the
   first author are one work even when the titles differ (a translated title, a title corrected
   by the publisher), provided the titles share most of their words;
4. **attached items** (rules 'erratum', 'reply', 'meeting_abstract'): a record that is not an
   independent study but belongs with one is attached to that work, keeping its sources, its
   rule in ``Work.merged_by`` and its own identifiers in its :class:`Merge`; none of its fields
   fill the work's. Labels are stripped to the title of the work concerned ('Erratum: X',
   'Correction to X', 'X (vol 360, pg 542, 2009)', 'X - Reply', 'Reply to X', 'Re: X', 'X
   [Erratum appears in ...]' all give X), and each rule asks for more than the title, in a
   journal that can be the work's:
   - 'erratum': the work's own record names where its erratum is printed (MEDLINE's
     '[Erratum appears in N Engl J Med. 2009;360(23):2487]', PubMed's 'Erratum in') and a
     record under the title is there (volume, and first page or issue);
   - 'reply': one record of the correspondence covers the letter and the reply (Embase's
     '(multiple letters)': its pages include the reply's page, its authors the reply's);
   - 'meeting_abstract': a one-page item earlier in the same volume (the journal's meeting
     supplement) under the paper's title, naming its first author and two of its authors.
   An item whose links point to two works, or a group holding a paper of its own (a page
   range), is not attached; the identifier veto does not apply (a notice has its own PMID);
5. **versions of a Cochrane review** (rule 'review_version'): the Cochrane Database of Systematic
   Reviews publishes each update of a review under the review's number with a version suffix
   (10.1002/14651858.CD002273, .pub2, .pub3...), each with its own DOI and PMID. For a
   literature review they are one review updated, and the newest version is the one to cite:
   the other versions are attached to it like the items of rule 4 (sources and rule kept, their
   identifiers in their :class:`Merge`, none of their fields fill the newest one's). The review
   number comes from the DOI (only that prefix: other publishers' version suffixes are not
   read) or, in a record of the Cochrane Database without one, from its article number
   ('CD002273'). The newest is the highest version number (no suffix: version 1) or, for
   records without a DOI, the latest year; versions whose order cannot be told, or whose DOI
   and year disagree on it, or records with neither title words nor first author in common (a
   DOI pasted into the wrong record) are not joined.

Precision guards, each learnt from a false merge in the labelled sets of ``bench/dedup.py``:
- a shared identifier is not trusted when title, first author and year all say otherwise (a
  DOI pasted into the wrong record);
- different identifiers of a kind a work has only one of (two PMIDs, two journal DOIs, two
  DOIs of one preprint server other than two versions of one preprint) veto a merge, whatever
  the titles say (the versions of a Cochrane review, rule 5, aside). A preprint server's DOI
  beside a journal's is the principled exception: a preprint and its article, joined when
  title, authors and year agree (rule 2) or a record names the other (rule 1). Preprint
  servers are told by their DOIs (:data:`~scholargraph.identifiers.PREPRINT_SERVERS`);
- a journal's recurring column ('Editor's Comments', 'From the Editor', 'Guest Editorial':
  a title made only of such words) has the same title, editor and year in every issue of a
  volume: its records are joined only at the same volume and first page and the same issue
  where both give one, or, with no place at all, as one record of each of two sources (the
  next guard then refuses a record matching two columns of one source);
- two volumes, or in one volume two page ranges that do not overlap, are two publications
  (a paper and its erratum printed under the same title, a letter and the article it
  discusses), unless rule 4 attaches one to the other; two single pages of a record labelled a
  meeting abstract do not conflict (one database gives the page, another the abstract number);
- a notice about a work (erratum, correction, retraction, reply, comment) never merges with the
  work by the title rules, only with another record of the same notice, and is attached to the
  work only by the evidence of rule 4. A notice the evidence does not place stays apart (the
  labelled sets disagree on errata: DBLP-ACM keeps a labelled erratum by the paper's authors
  apart, the haematology set joins some errata and keeps others apart), and so do retractions
  and comments, which a review must see;
- a changed word or number in a near-identical title ('FOCUS 1' / 'FOCUS 2', 'Pediatric' /
  'Adult', 'Hepatitis A' / 'Hepatitis B', 'TNF-α' / 'TNF-β') is another work, a typo is not,
  and so is another part of a series ('X' / 'X: Part II');
- a record without volume is an online-first version of a printed one only if it is the
  earlier, a year before; dated after, it is next year's column or a meeting abstract;
- the same title in two journals is two publications (guidelines printed twice, a conference
  abstract and its paper) unless the volume and pages say it is one printed article;
- one source lists a work once per version (the published one, or one per preprint server):
  two records of one source and version are joined only by a shared identifier, and a record
  that matches two records of one source (a recurring column such as 'Book review column') is
  ambiguous and joins neither. A scientist's library is not such a source: an export often
  holds several databases' hits, duplicates and all (:func:`~scholargraph.dedup.keys.
  record_keys`).

Groups are found with a union-find, then folded with :meth:`Work.merge` (attached items with
:func:`~scholargraph.dedup.notices.with_notice`) into their first record that is not an
attached item; each rule is recorded. An attached erratum, reply or meeting abstract is also
named in the work's ``notices`` ('Erratum: DOI 10.1056/nejmx090022, PMID 19494218'), so that
the review's outputs show it.

Where each part lives (every public name is importable from this module too):
- here: :func:`deduplicate` (the order the rules run in), rule 1's identifier links, the blocks
  of candidate pairs, the one-record-per-source guard, and the fold into :class:`Merge` and
  :class:`DedupResult`;
- :mod:`scholargraph.dedup.titles`: title normalisation and label stripping, notice
  detection (:func:`notice_kind`) and the errata a note cites (:func:`cited_errata`);
- :mod:`scholargraph.dedup.keys`: what the rules compare, each record's fields parsed once
  (authors, venue, volume, pages, :func:`cochrane_review`);
- :mod:`scholargraph.dedup.rules`: rules 1 to 3 between two records (the identifier guard,
  'fuzzy_title', 'volume_pages') and the place, title, year and author tests they share;
- :mod:`scholargraph.dedup.groups`: the union-find and its identifier, place and notice
  vetoes;
- :mod:`scholargraph.dedup.notices`: rules 4 and 5, attaching errata, replies, meeting
  abstracts and earlier Cochrane versions, and :func:`describe_notice`.
"""


from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import combinations

from pydantic import Field

from scholargraph.dedup.groups import SINGLE_VALUED, UnionFind
from scholargraph.dedup.keys import (
    COCHRANE_ARTICLE,
    COCHRANE_DOI,
    Keys,
    Pages,
    ReviewVersion,
    author_key,
    cochrane_review,
    names_agree,
    normalize_volume,
    parse_pages,
    record_keys,
    venue_names,
    venues_agree,
)
from scholargraph.dedup.notices import (
    IDENTIFIER_LABELS,
    NOTICE_LABELS,
    attach_notices,
    attachment_links,
    describe_notice,
    join_review_versions,
    named_notices,
    with_notice,
)
from scholargraph.dedup.rules import (
    CONTRADICTING_TITLE_WORDS,
    MIN_SHARED_AUTHORS,
    MIN_TITLE_CHARS,
    PLACE_TITLE_WORDS,
    TITLE_SIMILARITY,
    contradicts,
    fuzzy_match,
    place_match,
    versions_disagree,
)
from scholargraph.dedup.titles import (
    MIN_EXTENDED_WORDS,
    CitedPlace,
    cited_errata,
    normalize_title,
    notice_kind,
    title_variants,
)
from scholargraph.identifiers import PREPRINT_SERVERS
from scholargraph.records import Record, Work

__all__ = [
    "COCHRANE_ARTICLE",
    "COCHRANE_DOI",
    "CONTRADICTING_TITLE_WORDS",
    "IDENTIFIER_LABELS",
    "MAX_BLOCK",
    "MIN_EXTENDED_WORDS",
    "MIN_SHARED_AUTHORS",
    "MIN_TITLE_CHARS",
    "NOTICE_LABELS",
    "PLACE_TITLE_WORDS",
    "PREPRINT_SERVERS",
    "SINGLE_VALUED",
    "TITLE_SIMILARITY",
    "CitedPlace",
    "DedupResult",
    "Merge",
    "Pages",
    "ReviewVersion",
    "author_key",
    "cited_errata",
    "cochrane_review",
    "deduplicate",
    "describe_notice",
    "names_agree",
    "normalize_title",
    "normalize_volume",
    "notice_kind",
    "parse_pages",
    "title_variants",
    "venue_names",
    "venues_agree",
]

MAX_BLOCK = 300
"""A blocking key shared by more records than this is too common to compare pairwise."""


class Merge(Record):
    """One record folded into another, and why."""

    rule: str = Field(description="'doi', 'pmid', 'pmcid', 'arxiv', 'openalex', 'osf', 'url', "
                      "'version', 'fuzzy_title', 'volume_pages', or, for a record attached to "
                      "the work it concerns, 'erratum', 'reply', 'meeting_abstract' or "
                      "'review_version' (an earlier version of a Cochrane review)")
    work_id: str = Field(description="Id of the merged work, as it is after deduplication")
    kept_id: str = Field(description="Id of the record folded into (the group's first record "
                         "that is not attached to it as a notice or an earlier version)")
    merged_id: str = Field(description="Id of the record folded in")
    detail: str = Field("", description="The shared identifier, or the evidence")
    identifiers: list[str] = Field(
        default_factory=list,
        description="Every identifier of the record folded in ('pmid:19234567'): an attached "
        "notice keeps its own PMID and DOI here, since the work does not take them")


@dataclass
class DedupResult:
    """Works after deduplication, in order of first appearance, and the merges that made them."""

    works: list[Work]
    duplicates_removed: int
    merges: list[Merge] = field(default_factory=list)
    groups: list[list[int]] = field(default_factory=list)
    """For each merged work, the indices of the input records folded into it."""


def deduplicate(works: list[Work]) -> DedupResult:
    """Merge the records of the same work; see the module docstring for the rules."""
    keys = [record_keys(work) for work in works]
    groups = UnionFind(keys)
    for rule, i, j, detail in _identifier_links(keys):
        groups.union(i, j, rule, detail)
    pairs = _candidate_pairs(keys)
    for rule, i, j, detail in _probable_links(keys, pairs):
        groups.union(i, j, rule, detail, by_identifier=False)
    join_review_versions(groups, keys)
    attach_notices(groups, attachment_links(keys, pairs))
    return _fold(works, groups)


def _identifier_links(keys: list[Keys]) -> Iterator[tuple[str, int, int, str]]:
    """(rule, earlier record, record, identifier) for records sharing an identifier, unless
    everything else the two records say contradicts it; then (rule 'version') for a record
    and the records of the other versions it names."""
    seen: dict[tuple[str, str], list[int]] = defaultdict(list)
    for index, key in enumerate(keys):
        for kind, value in key.identifiers.items():
            earlier = seen[(kind, value)]
            twin = next((i for i in earlier if not contradicts(keys[i], key)), None)
            earlier.append(index)
            if twin is not None:
                yield kind, twin, index, f"{kind}:{value}"
    for index, key in enumerate(keys):
        for kind, value in sorted(key.versions):
            for other in seen.get((kind, value), []):
                if other != index and not versions_disagree(key, keys[other]):
                    yield "version", min(index, other), max(index, other), f"{kind}:{value}"


def _candidate_pairs(keys: list[Keys]) -> list[tuple[int, int]]:
    """The pairs of records sharing a block (see :func:`_blocks`), each once, in order."""
    compared: dict[tuple[int, int], None] = {}
    for block in _blocks(keys):
        for pair in combinations(block, 2):
            compared.setdefault(pair)
    return list(compared)


def _probable_links(keys: list[Keys], pairs: list[tuple[int, int]]
                    ) -> list[tuple[str, int, int, str]]:
    """(rule, record, record, evidence) for pairs the fuzzy-title or volume-pages rule joins,
    without the ambiguous ones."""
    links: list[tuple[str, int, int, str]] = []
    for i, j in pairs:
        if detail := fuzzy_match(keys[i], keys[j]):
            links.append(("fuzzy_title", i, j, detail))
        elif detail := place_match(keys[i], keys[j]):
            links.append(("volume_pages", i, j, detail))
    return _unambiguous(links, keys)


def _blocks(keys: list[Keys]) -> Iterable[list[int]]:
    """Records that could be duplicates share a title prefix or suffix (of any of their title
    variants), author + year, or volume + first page."""
    blocks: dict[tuple[str, str], list[int]] = defaultdict(list)
    for index, key in enumerate(keys):
        if len(key.title) < MIN_TITLE_CHARS:
            continue
        for title in key.titles:
            blocks[("prefix", title[:20])].append(index)
            blocks[("suffix", title[-20:])].append(index)
        if key.author and key.year:
            blocks[("author", f"{key.author}|{key.year}")].append(index)
        if key.volume and key.pages:
            blocks[("place", f"{key.volume}|{key.pages.first}")].append(index)
    unique = (list(dict.fromkeys(block)) for block in blocks.values())
    return [block for block in unique if 1 < len(block) <= MAX_BLOCK]


def _unambiguous(links: list[tuple[str, int, int, str]], keys: list[Keys]
                 ) -> list[tuple[str, int, int, str]]:
    """The links without those of a record matching two records of one version of one source.

    A source lists a work once per version, so a record matching two of its records (the
    'Book review column' of each issue) cannot tell which one is its twin, and joins neither.
    """
    partners: dict[int, list[int]] = defaultdict(list)
    for _, i, j, _ in links:
        partners[i].append(j)
        partners[j].append(i)
    ambiguous: set[frozenset[int]] = set()
    for index, others in partners.items():
        by_version: dict[tuple[str, str], list[int]] = defaultdict(list)
        for other in others:
            for source in keys[other].sources:
                by_version[(source, keys[other].version)].append(other)
        for twins in by_version.values():
            if len(twins) > 1 and not _share_identifier([keys[t] for t in twins]):
                ambiguous.update(frozenset((index, twin)) for twin in twins)
    return [link for link in links if frozenset(link[1:3]) not in ambiguous]


def _share_identifier(keys: list[Keys]) -> bool:
    values = [set(key.identifiers.items()) for key in keys]
    return bool(set.intersection(*values))


def _fold(works: list[Work], groups: UnionFind) -> DedupResult:
    """Fold each group into its first record that is not an attached item, the group's other
    records first and its attached items last, in order of first appearance."""
    members: dict[int, list[int]] = defaultdict(list)
    for index in range(len(works)):
        members[groups.find(index)].append(index)
    merged_works: list[Work] = []
    merges: list[Merge] = []
    ordered = sorted(members.values(), key=lambda indices: indices[0])
    for indices in ordered:
        base = next((i for i in indices if i not in groups.attached), indices[0])
        work = works[base]
        folded: list[tuple[int, str, str]] = []
        for index in sorted((i for i in indices if i != base), key=groups.attached.__contains__):
            if index in groups.attached:
                rule, detail = groups.attached[index]
                work = with_notice(work, works[index], rule)
            else:
                rule, detail = groups.links[index]
                work = work.merge(works[index], rule)
            folded.append((index, rule, detail))
        if named := named_notices(works, groups, indices):
            work = work.model_copy(update={"notices": list(dict.fromkeys([*work.notices,
                                                                          *named]))})
        merges.extend(Merge(rule=rule, work_id=work.id, kept_id=works[base].id,
                            merged_id=works[index].id, detail=detail,
                            identifiers=[f"{kind}:{value}"
                                         for kind, value in works[index].identifiers()])
                      for index, rule, detail in folded)
        merged_works.append(work)
    return DedupResult(works=merged_works, duplicates_removed=len(works) - len(merged_works),
                       merges=merges, groups=ordered)
