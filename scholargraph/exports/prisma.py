"""The PRISMA 2020 record of a review and its two figures: the flow diagram and works by year.

:class:`PrismaRecord` gathers, per source, every search as sent (query, date, records found),
then the counts of the flow: identified, duplicates removed, screened, excluded (with reasons),
included. It refuses counts that do not add up, so a record that exists is consistent.

Both figures are SVG written here to the SVG 1.1 specification: plain ``<rect>``, ``<line>`` and
``<text>`` elements, system fonts, no scripts and no external references, so they embed in the
HTML report and open in any browser or vector editor. (matplotlib would draw the bar chart too,
but costs a quarter of a second to import and embeds its glyphs as paths; these stay readable,
searchable text.) Every string from a source (queries, reasons) is XML-escaped.
"""

from __future__ import annotations

import textwrap
from collections import Counter
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from pydantic import Field, model_validator

from scholargraph.records import Record, SearchLogEntry, Work
from scholargraph.sources.enrich import is_lookup
from scholargraph.wording import counted

FONT = "font-family=\"Helvetica, Arial, sans-serif\""
CHAR_WIDTH = 6.6
"""Average advance of a 12 px sans-serif character, to wrap text inside boxes."""
LINE_HEIGHT = 16
MIN_BOX_HEIGHT = 84
"""Room for the longest rotated phase label ("Identification") beside the box."""


FULL_TEXT_KEYS = ("reports_sought", "reports_not_retrieved", "not_retrieved_reasons",
                  "reports_assessed", "full_text_licences")


class PrismaSearch(Record):
    """One search as sent to one source."""

    source: str
    query: str
    date: str = Field(description="When it was sent (ISO 8601, UTC)")
    identified: int = Field(description="Records it returned")
    round: int = 1
    status: str = "ok"
    counted: bool = Field(True, description="A search PRISMA counts: not a source skipped, "
                                            "nor a look-up of works already found")


class PrismaRecord(Record):
    """The PRISMA 2020 flow of a review; the counts must add up or the record is refused."""

    searches: list[PrismaSearch] = Field(default_factory=list)
    identified: dict[str, int] = Field(default_factory=dict, description="Records per source")
    duplicates_removed: int = 0
    removed_before_screening: dict[str, int] = Field(
        default_factory=dict, description="Records removed before screening for other reasons "
        "than duplication, by reason (a library's records without a title)")
    screened: int = 0
    excluded: int = 0
    excluded_reasons: dict[str, int] = Field(default_factory=dict)
    included: int = 0
    reports_sought: int | None = Field(None, description="Included works sought in full")
    reports_not_retrieved: int = 0
    not_retrieved_reasons: dict[str, int] = Field(default_factory=dict)
    reports_assessed: int = Field(0, description="Works read in full")
    full_text_licences: dict[str, int] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _adds_up(self) -> PrismaRecord:
        self._full_text_adds_up()
        identified = sum(self.identified.values())
        removed = sum(self.removed_before_screening.values())
        if identified - self.duplicates_removed - removed != self.screened:
            raise ValueError(f"PRISMA: {identified} identified - {self.duplicates_removed} "
                             f"duplicates - {removed} removed != {self.screened} screened")
        if self.screened - self.excluded != self.included:
            raise ValueError(f"PRISMA: {self.screened} screened - {self.excluded} excluded != "
                             f"{self.included} included")
        if self.excluded_reasons and sum(self.excluded_reasons.values()) != self.excluded:
            counted = sum(self.excluded_reasons.values())
            raise ValueError(f"PRISMA: exclusion reasons count {counted}"
                             f" records, not the {self.excluded} excluded")
        return self

    def _full_text_adds_up(self) -> None:
        if self.reports_sought is None:
            return
        if self.reports_sought > self.included:
            raise ValueError(f"PRISMA: {self.reports_sought} reports sought of only "
                             f"{self.included} included")
        if self.reports_sought - self.reports_not_retrieved != self.reports_assessed:
            raise ValueError(f"PRISMA: {self.reports_sought} sought - "
                             f"{self.reports_not_retrieved} not retrieved != "
                             f"{self.reports_assessed} assessed")
        if sum(self.not_retrieved_reasons.values()) != self.reports_not_retrieved:
            raise ValueError("PRISMA: the reasons reports were not retrieved count "
                             f"{sum(self.not_retrieved_reasons.values())}, not "
                             f"{self.reports_not_retrieved}")

    @property
    def total_identified(self) -> int:
        return sum(self.identified.values())


def prisma_record(prisma: dict[str, Any], search_log: list[SearchLogEntry]) -> PrismaRecord:
    """The record of a run: its PRISMA counts (from the retrieval node) and its search log."""
    searches = [PrismaSearch(source=e.source, query=e.query, date=e.at, identified=e.n_results,
                             round=e.round, status=e.status,
                             counted=e.status != "skipped" and not is_lookup(e))
                for e in search_log]
    fields = {key: prisma[key] for key in ("identified", "duplicates_removed",
                                           "removed_before_screening", "screened",
                                           "excluded", "excluded_reasons", "included",
                                           *FULL_TEXT_KEYS)
              if key in prisma}
    return PrismaRecord(searches=searches, **fields)


# ---------------------------------------------------------------- drawing helpers

def _text_lines(lines: list[str], x: float, y: float, *, size: int = 12, anchor: str = "start",
                weight: str = "normal") -> str:
    spans = "".join(f'<tspan x="{x:g}" dy="{0 if i == 0 else LINE_HEIGHT}">{escape(line)}</tspan>'
                    for i, line in enumerate(lines))
    return (f'<text x="{x:g}" y="{y:g}" {FONT} font-size="{size}" font-weight="{weight}" '
            f'text-anchor="{anchor}" fill="#111">{spans}</text>')


def _wrap(paragraphs: list[str], width: float) -> list[str]:
    columns = max(10, int((width - 16) / CHAR_WIDTH))
    lines: list[str] = []
    for paragraph in paragraphs:
        lines += textwrap.wrap(paragraph, columns, subsequent_indent="  ") or [""]
    return lines


def _box(x: float, y: float, width: float, paragraphs: list[str], *,
         fill: str = "#ffffff") -> tuple[str, float]:
    """A box of wrapped text, at least tall enough for its phase's label; returns its SVG and
    its height."""
    lines = _wrap(paragraphs, width)
    height = max(MIN_BOX_HEIGHT, 16 + LINE_HEIGHT * len(lines))
    svg = (f'<rect x="{x:g}" y="{y:g}" width="{width:g}" height="{height:g}" fill="{fill}" '
           f'stroke="#333" stroke-width="1"/>' + _text_lines(lines, x + 8, y + 20))
    return svg, height


def _arrow(x1: float, y1: float, x2: float, y2: float) -> str:
    return (f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" stroke="#333" '
            f'stroke-width="1.5" marker-end="url(#arrow)"/>')


def _phase(label: str, top: float, bottom: float) -> str:
    """The blue bar naming a phase, as the PRISMA template draws it."""
    middle = (top + bottom) / 2
    return (f'<rect x="10" y="{top:g}" width="26" height="{bottom - top:g}" rx="4" '
            f'fill="#9cc3e6" stroke="#333"/>'
            f'<text x="23" y="{middle:g}" {FONT} font-size="12" font-weight="bold" '
            f'text-anchor="middle" dominant-baseline="middle" '
            f'transform="rotate(-90 23 {middle:g})">{escape(label)}</text>')


def _document(width: float, height: float, title: str, body: list[str]) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{width:g}" '
            f'height="{height:g}" viewBox="0 0 {width:g} {height:g}" role="img" '
            f'aria-label={quoteattr(title)}><title>{escape(title)}</title>'
            '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
            'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
            'fill="#333"/></marker></defs>'
            f'<rect width="100%" height="100%" fill="#ffffff"/>{"".join(body)}</svg>\n')


# ---------------------------------------------------------------- the two figures

def flow_svg(record: PrismaRecord) -> str:
    """The PRISMA 2020 flow diagram (identification, screening, included) as SVG."""
    left, main_width, side_x, side_width, gap = 46, 400, 486, 300, 34
    body: list[str] = []
    searches = Counter(s.source for s in record.searches if s.counted)
    when = _search_dates(record)
    sources = [f"{source} (n = {count}; {counted(searches.get(source, 0), 'search', 'searches')})"
               for source, count in record.identified.items()] or ["none"]
    y: float = 20
    box, high = _box(left, y, main_width, [
        f"Records identified (n = {record.total_identified}), {when}, from:", *sources])
    body.append(box)
    side, side_high = _box(side_x, y, side_width, [
        "Records removed before screening:",
        f"Duplicate records removed (n = {record.duplicates_removed})",
        *(f"Records removed, {reason} (n = {count})"
          for reason, count in record.removed_before_screening.items())])
    body += [side, _arrow(left + main_width, y + min(high, side_high) / 2, side_x,
                          y + min(high, side_high) / 2)]
    identification = (y - 6, y + max(high, side_high) + 6)
    y += max(high, side_high) + gap
    body.append(_arrow(left + main_width / 2, y - gap, left + main_width / 2, y))
    box, high = _box(left, y, main_width, [f"Records screened (n = {record.screened})"])
    reasons = [f"{reason} (n = {count})" for reason, count in record.excluded_reasons.items()]
    side, side_high = _box(side_x, y, side_width,
                           [f"Records excluded (n = {record.excluded})", *reasons])
    body += [box, side, _arrow(left + main_width, y + high / 2, side_x, y + high / 2)]
    screening = (y - 6, y + max(high, side_high) + 6)
    y += max(high, side_high) + gap
    body.append(_arrow(left + main_width / 2, y - gap, left + main_width / 2, y))
    if record.reports_sought is not None:
        y, screening = _full_text_stage(record, body, y, screening)
    box, high = _box(left, y, main_width, [f"Studies included in review (n = {record.included})"],
                     fill="#eef5fb")
    body.append(box)
    included = (y - 6, y + high + 6)
    body += [_phase("Identification", *identification), _phase("Screening", *screening),
             _phase("Included", *included)]
    return _document(side_x + side_width + 14, y + high + 20, "PRISMA 2020 flow diagram", body)


def _full_text_stage(record: PrismaRecord, body: list[str], y: float,
                     screening: tuple[float, float]) -> tuple[float, tuple[float, float]]:
    """Reports sought, not retrieved (with reasons) and assessed, below the screening boxes;
    the screening phase grows to hold them. Returns the next box's top and that phase."""
    left, main_width, side_x, side_width, gap = 46, 400, 486, 300, 34
    box, high = _box(left, y, main_width,
                     [f"Reports sought for retrieval (n = {record.reports_sought})"])
    reasons = [f"{reason} (n = {count})" for reason, count in record.not_retrieved_reasons.items()]
    side, side_high = _box(side_x, y, side_width,
                           [f"Reports not retrieved (n = {record.reports_not_retrieved})",
                            *reasons])
    body += [box, side, _arrow(left + main_width, y + high / 2, side_x, y + high / 2)]
    y += max(high, side_high) + gap
    body.append(_arrow(left + main_width / 2, y - gap, left + main_width / 2, y))
    licences = [f"{name} (n = {count})" for name, count in record.full_text_licences.items()]
    # every work read in full is included, and so is every work screened in whose full text
    # was not read: the flow says so, or its last box (all included) would not follow from this
    alone = record.included - record.reports_assessed
    box, high = _box(left, y, main_width,
                     [f"Reports assessed in full text (n = {record.reports_assessed})",
                      *([f"Licences: {'; '.join(licences)}"] if licences else []),
                      *([f"Included on title and abstract alone (n = {alone})"] if alone else [])])
    body.append(box)
    y += high + gap
    body.append(_arrow(left + main_width / 2, y - gap, left + main_width / 2, y))
    return y, (screening[0], y - gap + 6)


def _search_dates(record: PrismaRecord) -> str:
    dates = sorted({search.date[:10] for search in record.searches})
    if not dates:
        return "no search recorded"
    return f"searched {dates[0]}" + (f" to {dates[-1]}" if dates[-1] != dates[0] else "")


def years_svg(works: list[Work], title: str = "Included works by year") -> str:
    """A bar chart of how many works were published each year (every year of the span shown)."""
    counts = Counter(work.year for work in works if work.year)
    undated = sum(1 for work in works if not work.year)
    width, height, left, bottom, top = 640, 280, 48, 230, 40
    body = [_text_lines([title], width / 2, 22, size=14, anchor="middle", weight="bold")]
    if not counts:
        body.append(_text_lines(["No dated works"], width / 2, height / 2, anchor="middle"))
        return _document(width, height, title, body)
    years = list(range(min(counts), max(counts) + 1))
    peak = max(counts.values())
    slot = (width - left - 20) / len(years)
    scale = (bottom - top) / peak
    body.append(f'<line x1="{left}" y1="{bottom}" x2="{width - 16}" y2="{bottom}" stroke="#333"/>')
    for tick in sorted({0, peak, *range(0, peak + 1, max(1, peak // 4))}):
        y = bottom - tick * scale
        body.append(_text_lines([str(tick)], left - 8, y + 4, size=11, anchor="end"))
        body.append(f'<line x1="{left}" y1="{y:g}" x2="{width - 16}" y2="{y:g}" stroke="#ddd"/>')
    label_every = max(1, int(len(years) * 34 / (width - left)))
    for index, year in enumerate(years):
        x = left + index * slot
        bar = counts.get(year, 0) * scale
        if bar:
            body.append(f'<rect x="{x + slot * 0.15:g}" y="{bottom - bar:g}" '
                        f'width="{slot * 0.7:g}" height="{bar:g}" fill="#4a7fb5">'
                        f'<title>{year}: {counts[year]}</title></rect>')
        if index % label_every == 0 or year == years[-1]:
            body.append(_text_lines([str(year)], x + slot / 2, bottom + 16, size=11,
                                    anchor="middle"))
    if undated:
        body.append(_text_lines([f"{counted(undated, 'undated work')} not shown"],
                                width - 16, height - 10, size=11, anchor="end"))
    return _document(width, height, title, body)
