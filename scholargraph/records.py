"""The normalised records every stage shares: works, materials, passages and search-log entries.

A :class:`Work` is one scholarly work as one source described it, or, after deduplication, as all
sources together describe it. ``Work.merge`` folds a duplicate into a work, keeping every identifier
and source, so deduplication is a fold over the list rather than a tangle of special cases.
"""

from __future__ import annotations

import hashlib
import html
import re
from datetime import UTC, date, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field, field_validator, model_validator

from scholargraph.deterministic.text import clean_text
from scholargraph.identifiers import (
    is_preprint_doi,
    is_preprint_venue,
    normalize_arxiv_id,
    normalize_doi,
    normalize_openalex_id,
    normalize_pmcid,
    normalize_pmid,
)

_MARKUP = re.compile(r"</?[A-Za-z][\w:.-]*(?:\s[^<>]*)?/?>")
_ESCAPED_FORMATTING = re.compile(
    r"</?(?:i|b|u|em|strong|sub|sup|sc|small|p|br|sec|title|span|jats:[\w-]+|mml:[\w-]+)"
    r"(?:\s[^<>]*)?/?>", re.IGNORECASE)
"""The formatting and JATS tags a source may serve escaped ('&lt;i&gt;Online Journal...');
other escaped angle brackets are text (a title about the '<script>' tag) and stay."""
_PLACEHOLDER_HEADING = re.compile(r"<title>\s*UNSTRUCTURED\s*</title>", re.IGNORECASE)
"""The heading JMIR gives an abstract that has no sections; OpenAlex serves it as text."""

SourceStatus = Literal["ok", "empty", "error", "skipped"]
WorkKind = Literal["article", "preprint", "chapter", "book", "web", "news", "material", "other"]
"""What a work is. ``chapter`` is a chapter of an edited book and ``book`` a whole book: OpenAlex
types them 'book-chapter' and 'book', PubMed's book records (NCBI Bookshelf) tell the two apart by
whether a chapter title is given, and every export has a type for each (BibTeX @incollection and
@book, RIS CHAP and BOOK, CSL chapter and book), so neither is called a journal article."""
BOOK_KINDS: tuple[WorkKind, ...] = ("chapter", "book")


class Record(BaseModel):
    """Base of every record: strict fields, so a misspelt field is an error, not a silent default.

    Every text a record is built with is cleaned of control characters first (a journal name
    recorded as '\\x98The \\x9cLancet. Digital health'), so no output, index or comparison ever
    sees them.
    """

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _clean_texts(cls, data: object) -> object:
        if isinstance(data, dict):
            return {key: _cleaned(value) for key, value in data.items()}
        return data


SourceType = Literal["peer_reviewed", "book", "preprint", "official", "news", "other"]
SOURCE_TYPE_LABELS: dict[str, str] = {
    "peer_reviewed": "peer-reviewed article", "book": "book or chapter", "preprint": "preprint",
    "official": "official or government page", "news": "news", "other": "other",
}
CREDIBILITY_WEAK = 0.5
"""A source scoring below this is weak: a claim resting only on such sources is flagged."""


class Credibility(Record):
    """A source's type and credibility score (0-1) with the reasons that make up the score
    (computed by :func:`scholargraph.deterministic.credibility.assess`)."""

    source_type: SourceType
    score: float = Field(ge=0.0, le=1.0)
    reasons: list[str] = Field(default_factory=list)

    @property
    def label(self) -> str:
        return SOURCE_TYPE_LABELS[self.source_type]

    @property
    def weak(self) -> bool:
        return self.score < CREDIBILITY_WEAK

    def describe(self) -> str:
        """'preprint · credibility 0.55: preprint: not peer reviewed; 12 citations'."""
        return f"{self.label} · credibility {self.score:.2f}: {'; '.join(self.reasons)}"


class TextSpan(Record):
    """Where one block of a structured full text lies in ``Work.full_text``, and what it is."""

    start: int
    end: int
    section: str = Field(description="Title path of its section: 'Results > Subgroups'")
    page: int | None = Field(None, description="1-based page, for a PDF")
    kind: Literal["paragraph", "caption", "table"] = "paragraph"


class Work(Record):
    """One scholarly work (article, preprint, book chapter, web page) with its identifiers."""

    title: str
    authors: list[str] = Field(default_factory=list, description="'Family, Given' or as given")
    year: int | None = None
    venue: str | None = Field(None, description="Journal, conference, 'arXiv' or web site")
    volume: str | None = Field(None, description="Journal volume as the source gives it")
    issue: str | None = Field(None, description="Journal issue as the source gives it")
    pages: str | None = Field(None, description="Page range or article number ('23-35', 'e1002')")
    abstract: str | None = None
    doi: str | None = None
    pmid: str | None = None
    pmcid: str | None = None
    arxiv_id: str | None = None
    openalex_id: str | None = None
    url: str | None = None
    sources: list[str] = Field(default_factory=list, description="Source agents that found it")
    kind: WorkKind = "article"
    publication_types: list[str] = Field(
        default_factory=list,
        description="The types its sources declare, as each words them: PubMed's publication "
        "types ('Randomized Controlled Trial', 'Editorial', 'Case Reports') and OpenAlex's "
        "type ('review', 'letter'); screening reads study designs from them")
    full_text: str | None = Field(None, description="Main text, where it was fetched")
    full_text_spans: list[TextSpan] = Field(
        default_factory=list,
        description="Where each section, caption and table row of ``full_text`` lies, with its "
        "page; empty for unstructured text (a web page's main text)")
    full_text_source: str | None = Field(
        None, description="Where the full text was read: 'PMC JATS', 'arXiv PDF', an "
        "open-access URL, or a library file")
    licence: str | None = Field(
        None, description="Licence of the open-access full text, as its source states it")
    published: date | None = Field(None, description="Publication date, where known (news)")
    found_via: str | None = Field(
        None, description="The page whose link led to this one (the web agent's shallow crawl), "
        "or the library file a record was read from ('library file embase.ris')")
    journal_ref: str | None = Field(
        None, description="Where a preprint says it was published (arXiv's journal reference)")
    version_ids: list[str] = Field(
        default_factory=list,
        description="Identifiers of other versions of this work ('doi:10.2196/preprints.28749', "
        "'osf:ndp8m'): those its source lists (OpenAlex's locations) and, after "
        "deduplication, those of the preprints and records merged into it")

    cited_by_count: int | None = None
    is_retracted: bool = False
    oa_url: str | None = Field(
        None, description="An open-access copy: OpenAlex's best_oa_location PDF, else its oa_url")
    referenced_works: list[str] = Field(
        default_factory=list, description="OpenAlex ids of the works it cites (from OpenAlex)")
    merged_by: list[str] = Field(default_factory=list, description="Dedup rules that merged it")
    notices: list[str] = Field(
        default_factory=list,
        description="What was published about this work rather than as a work of its own: "
        "records deduplication attached to it, each its kind ('Erratum', 'Reply', 'Meeting "
        "abstract') and identifiers ('Erratum: DOI 10.1056/nejmx090022, PMID 19494218'), or "
        "where it is printed when it has none; and the retractions, errata, expressions of "
        "concern, updates and comments PubMed links to it ('Comment in: Gut. 2017 "
        "Jun;66(6):1 (PMID 27920200)')")
    credibility: Credibility | None = Field(
        None, description="Source type and credibility, set by the retrieval node")
    first_seen: date | None = Field(
        None, description="The day the review first included it (set by ``scholargraph "
        "update``: the earlier run's day for the works it had, the update's for new ones)")

    @model_validator(mode="before")
    @classmethod
    def _retracted_by_title(cls, data: object) -> object:
        """A work whose title carries the publisher's retraction label ("RETRACTED: ...", as
        Elsevier and Wiley relabel a retracted article, and as a library export keeps it) is
        retracted, whichever source gave it: the review then says so wherever it cites it."""
        if isinstance(data, dict) and isinstance(data.get("title"), str) \
                and has_retraction_label(data["title"]):
            return {**data, "is_retracted": True}
        return data

    @field_validator("abstract", "full_text", mode="after")
    @classmethod
    def _blank_is_none(cls, value: str | None) -> str | None:
        return value if value and value.strip() else None

    @field_validator("abstract", mode="after")
    @classmethod
    def _without_heading(cls, value: str | None) -> str | None:
        """The abstract without the word "Abstract" its export printed before it, often glued
        to its first word ("AbstractYouth with inflammatory bowel disease ...", PsycINFO
        records in RIS): it is a heading, and a sentence quoted from the abstract must not
        begin with it."""
        if value is None:
            return None
        return _ABSTRACT_HEADING.sub("", value, count=1) or None

    @field_validator("doi", mode="before")
    @classmethod
    def _doi(cls, value: str | None) -> str | None:
        return normalize_doi(value)

    @field_validator("referenced_works", mode="before")
    @classmethod
    def _openalex_ids(cls, values: list[str] | None) -> list[str]:
        ids = (normalize_openalex_id(value) for value in values or [])
        return list(dict.fromkeys(value for value in ids if value))

    @field_validator("pmid", mode="before")
    @classmethod
    def _pmid(cls, value: str | int | None) -> str | None:
        return normalize_pmid(value)

    @field_validator("pmcid", mode="before")
    @classmethod
    def _pmcid(cls, value: str | None) -> str | None:
        return normalize_pmcid(value)

    @field_validator("arxiv_id", mode="before")
    @classmethod
    def _arxiv(cls, value: str | None) -> str | None:
        return normalize_arxiv_id(value)

    @field_validator("openalex_id", mode="before")
    @classmethod
    def _openalex(cls, value: str | None) -> str | None:
        return normalize_openalex_id(value)

    @field_validator("title", "abstract", mode="before")
    @classmethod
    def _plain_text(cls, value: str | None) -> str | None:
        """Markup stripped (JATS ``<sec><title>`` in OpenAlex abstracts, ``<i>`` in titles),
        also formatting the source escaped ('&lt;i&gt;Online Journal...&lt;/i&gt;'), which
        unescaping turns into markup; a bare '<' ('p < 0.05') and other escaped tags, which are
        text, are kept. Entities are unescaped twice: exports from reference managers and
        databases escape some abstracts twice ('aged &amp;lt;12 years'), and a reader must see
        '<12', not '&lt;12'."""
        if not isinstance(value, str):
            return value
        text = _MARKUP.sub(" ", _PLACEHOLDER_HEADING.sub(" ", value))
        text = _ESCAPED_FORMATTING.sub(" ", html.unescape(html.unescape(text)))
        return re.sub(r"\s+", " ", text).strip()

    @model_validator(mode="before")
    @classmethod
    def _drop_computed_id(cls, data: object) -> object:
        if isinstance(data, dict) and "id" in data:
            data = {key: value for key, value in data.items() if key != "id"}
        return data

    @computed_field  # type: ignore[prop-decorator]
    @property
    def id(self) -> str:
        """A stable id from the strongest identifier the work has."""
        for prefix, value in self.identifiers():
            return f"{prefix}:{value}"
        digest = hashlib.sha1(f"{self.title.lower()}|{self.year}".encode()).hexdigest()[:12]
        return f"title:{digest}"

    def identifiers(self) -> list[tuple[str, str]]:
        """The work's identifiers, strongest first (the order the id and dedup rules use)."""
        pairs = [
            ("doi", self.doi),
            ("pmid", self.pmid),
            ("pmcid", self.pmcid),
            ("arxiv", self.arxiv_id),
            ("openalex", self.openalex_id),
        ]
        return [(kind, value) for kind, value in pairs if value]

    @property
    def first_author_family(self) -> str | None:
        if not self.authors:
            return None
        first = self.authors[0]
        family = first.split(",")[0] if "," in first else first.split()[-1]
        return family.strip().lower() or None

    def merge(self, other: Work, rule: str) -> Work:
        """This work with ``other`` folded in: identifiers and sources united, best fields kept."""
        published, preprint = (other, self) if self._is_preprint_of(other) else (self, other)
        merged = published.model_copy(deep=True)
        for field in ("doi", "pmid", "pmcid", "arxiv_id", "openalex_id", "url", "venue", "year",
                      "volume", "issue", "pages", "cited_by_count", "oa_url"):
            if getattr(merged, field) is None and not (
                    field in PREPRINT_ONLY and preprint._is_preprint_of(published)):
                setattr(merged, field, getattr(preprint, field))
        if merged.full_text is None and preprint.full_text is not None:
            merged.full_text = preprint.full_text
            merged.full_text_spans = list(preprint.full_text_spans)
            merged.full_text_source = preprint.full_text_source
            merged.licence = preprint.licence
        if len(preprint.abstract or "") > len(merged.abstract or ""):
            merged.abstract = preprint.abstract
        if len(preprint.authors) > len(merged.authors):
            merged.authors = list(preprint.authors)
        merged.sources = _union(self.sources, other.sources)
        merged.merged_by = _union(self.merged_by, other.merged_by, [rule])
        merged.notices = _union(self.notices, other.notices)
        merged.publication_types = _union(self.publication_types, other.publication_types)
        merged.is_retracted = self.is_retracted or other.is_retracted
        merged.published = merged.published or preprint.published
        seen = [day for day in (self.first_seen, other.first_seen) if day is not None]
        merged.first_seen = min(seen) if seen else None
        if merged.kind == "web" and preprint.kind == "news":
            merged.kind = "news"  # the same page found as a news item keeps its label
        merged.referenced_works = _union(self.referenced_works, other.referenced_works)
        merged.journal_ref = merged.journal_ref or preprint.journal_ref
        own = {f"{kind}:{value}" for kind, value in merged.identifiers()}
        merged.version_ids = [value for value in _union(
            self.version_ids, other.version_ids,
            [f"{kind}:{value}" for work in (self, other) for kind, value in work.identifiers()])
            if value not in own]
        return merged

    def _is_preprint_of(self, other: Work) -> bool:
        return self._is_preprint() and not other._is_preprint()

    def _is_preprint(self) -> bool:
        """A preprint by its record's kind, its DOI (OpenAlex calls an SSRN paper an article) or
        its venue (an export's 'medRxiv' record without the server's DOI)."""
        return (self.kind == "preprint" or is_preprint_doi(self.doi)
                or is_preprint_venue(self.venue))


PREPRINT_ONLY = ("doi", "venue", "year", "url")
"""Fields of a preprint that do not fill its published article's record when that lacks them:
the work is cited as the article, and the preprint's DOI, server and year would cite it as a
journal article carrying an SSRN DOI dated a year early (an SSRN paper joined to its article in
the Journal of Labor Economics, whose record had no DOI, was cited with 10.2139/ssrn...). The
preprint's identifiers stay in ``version_ids``."""


MP_FUNCTIONAL = "GGA/GGA+U (PBE)"
"""The functionals of the Materials Project's summary values (PBE; +U for some transition-metal
oxides and fluorides)."""
MP_METHOD = f"{MP_FUNCTIONAL} as the Materials Project computes it"
"""How the Materials Project computes the values of its summary records. The summary route
names no functional per record, so every value it gives is described this way."""
COMPUTED_CAVEATS = {
    "band gap": "GGA/GGA+U underestimates band gaps, often by a third or more of the measured gap",
    "formation energy": ("a 0 K DFT energy with the Materials Project's fitted corrections, "
                         "not a measured enthalpy of formation"),
    "energy above hull": ("0 K stability against the phases the database holds; a phase a few "
                          "tens of meV/atom above the hull may still be made (metastable)"),
    "density": "of the relaxed DFT structure, which GGA tends to make slightly too large",
}
"""What a reader of a computed value should keep in mind, per property."""


class Material(Record):
    """A material from the Materials Project, with the properties a review may quote."""

    material_id: str
    formula: str
    band_gap_ev: float | None = None
    formation_energy_ev_per_atom: float | None = None
    energy_above_hull_ev_per_atom: float | None = None
    density_g_cm3: float | None = None
    is_stable: bool | None = None
    crystal_system: str | None = None
    space_group: str | None = None
    references: list[str] = Field(default_factory=list, description="DOIs attached to it")

    @property
    def url(self) -> str:
        return f"https://next-gen.materialsproject.org/materials/{self.material_id}"

    @property
    def structure(self) -> str:
        """The structure the record states ("tetragonal I4_1/amd"), "" when it states none.

        It is what tells apart the entries of one formula (its polymorphs): "band gap of
        anatase and rutile TiO2" gave "2.06 eV computed (Materials Project mp-390)" with
        nothing to say which polymorph mp-390 is. The summary record names no mineral, so
        none is named: the crystal system and space group are the record's own words."""
        system = (self.crystal_system or "").lower()
        return " ".join(part for part in (system, self.space_group or "") if part)

    @property
    def entry(self) -> str:
        """The entry as tables and the summary name it: its id and structure ("mp-390,
        tetragonal I4_1/amd")."""
        return ", ".join(part for part in (self.material_id, self.structure) if part)

    def as_work(self) -> Work:
        """The material as a citable work whose 'abstract' states its computed properties."""
        return Work(
            title=f"Materials Project entry {self.material_id}: {self.formula}",
            authors=["Materials Project"],
            venue="Materials Project",
            abstract=self.describe(),
            url=self.url,
            sources=["materials"],
            kind="material",
        )

    def describe(self) -> str:
        facts = [f"{self.formula} ({self.material_id})"]
        if self.crystal_system:
            facts.append(f"crystal system {self.crystal_system}")
        if self.space_group:
            facts.append(f"space group {self.space_group}")
        if self.band_gap_ev is not None:
            facts.append(f"computed band gap {self.band_gap_ev:.3g} eV")
        if self.formation_energy_ev_per_atom is not None:
            facts.append(f"formation energy {self.formation_energy_ev_per_atom:.3g} eV/atom")
        if self.energy_above_hull_ev_per_atom is not None:
            facts.append(f"energy above hull {self.energy_above_hull_ev_per_atom:.3g} eV/atom")
        if self.density_g_cm3 is not None:
            facts.append(f"density {self.density_g_cm3:.3g} g/cm3")
        if self.is_stable is not None:
            facts.append("stable at 0 K on the computed convex hull" if self.is_stable
                         else "not stable at 0 K: above the computed convex hull")
        said = "The Materials Project reports " + ", ".join(facts) + "."
        computed = [self.band_gap_ev, self.formation_energy_ev_per_atom,
                    self.energy_above_hull_ev_per_atom, self.density_g_cm3]
        if any(value is not None for value in computed):
            said += (f" The values for {self.formula} ({self.material_id}) are computed with "
                     f"{MP_METHOD}")
            said += f"; {COMPUTED_CAVEATS['band gap']}." if self.band_gap_ev is not None else "."
        return said


class Passage(Record):
    """A span of a work's text that a citation can point at; ``id`` is work id + character
    offsets."""

    id: str
    work_id: str
    text: str
    start: int
    end: int
    section: str = Field(
        "abstract", description="'title', 'abstract', 'full_text' (unstructured), or the title "
        "path of the full text's section ('Results > Subgroups', 'Table 2')")
    page: int | None = Field(None, description="1-based page of a PDF the text came from")
    kind: Literal["paragraph", "caption", "table"] = Field(
        "paragraph", description="What the text is: prose, a figure's or table's caption, or "
        "table rows (a structured full text's ``TextSpan.kind``); a caption is cited as context, "
        "never quoted as a finding")
    score: float = 0.0
    sub_question_id: str | None = None


PLAIN_PARTS = ("title", "abstract", "full_text")


def passage_location(passage: Passage) -> str:
    """Where a passage lies in its full text, as a citation shows it: its section (the first
    and last titles of a deep path: 'Results > Table 2') and its page ('Methods, p. 4'); '' for
    a title or an abstract."""
    parts: list[str] = []
    if passage.section not in PLAIN_PARTS:
        titles = [title for title in passage.section.split(" > ") if title]
        parts.append(" > ".join([titles[0], titles[-1]] if len(titles) > 2 else titles))
    if passage.page is not None:
        parts.append(f"p. {passage.page}")
    return ", ".join(part for part in parts if part)


def full_text_note(work: Work) -> str:
    """'read in full: PMC JATS; licence CC BY 4.0 URL' for a work whose full text was read
    (fetched or from the library), else ''."""
    if not work.full_text_source:
        return ""
    licence = f"; licence {work.licence}" if work.licence else "; licence not stated"
    return f"read in full: {work.full_text_source}{licence}"


class SearchLogEntry(Record):
    """One query sent to one source, as sent, and what came of it."""

    source: str
    query: str
    n_results: int = 0
    status: SourceStatus = "ok"
    error: str | None = None
    note: str | None = None
    """What the count alone does not say ("GaN: no Materials Project record")."""
    round: int = 1
    unreachable: bool = False
    """No connection could be made (refused, host not found): the source's other queries, this
    round and later, are skipped instead of failing the same way one by one."""
    at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    sent: list[str] = Field(default_factory=list)
    """Each request the search made, as sent (``GET URL?QUERY``, a POST's form fields as its
    query), keys and contact addresses left out: ``query`` is the search's words, this is what
    the service was asked, with the date filter and page size, for a colleague to send again."""
    record_ids: list[str] = Field(default_factory=list)
    """The ids of the works the search returned, in the source's order (``n_results`` of them,
    before deduplication and screening): which query found which work, and what a person
    watching the run in LangGraph Studio sees of them, without their abstracts."""


_RETRACTED_TITLE = re.compile(r"^\W*retracted(?: article)?\s*[:.\]]", re.IGNORECASE)
"""The retraction label opening a retracted article's title ("RETRACTED: ...", "[Retracted]
..."); "Retracted publications in oncology: a bibliometric study" carries none."""

def has_retraction_label(title: str) -> bool:
    """Whether a title opens with a retracted article's label (:data:`_RETRACTED_TITLE`)."""
    return _RETRACTED_TITLE.match(title) is not None


_ABSTRACT_HEADING = re.compile(r"^\s*(?:Abstract|ABSTRACT)(?:\s*[:.\u2014-]\s*|\s+(?=[A-Z])"
                               r"|(?=[A-Z][a-z]))")
"""The heading "Abstract" opening an abstract field: followed by a colon or stop, by a
capitalised word, or glued to one ("AbstractYouth"); "Abstracts of ..." and "Abstract
reasoning ..." are words of the text."""


def _cleaned(value: object) -> object:
    """A string, or the strings of a list, without control characters (see :func:`clean_text`)."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, list):
        return [clean_text(item) if isinstance(item, str) else item for item in value]
    return value


def _union(*lists: list[str]) -> list[str]:
    seen: dict[str, None] = {}
    for items in lists:
        seen.update(dict.fromkeys(items))
    return list(seen)
