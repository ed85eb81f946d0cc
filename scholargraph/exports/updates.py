"""What an update changed, as ``review.md`` and ``review.html`` show it: the retractions and
corrections published since (at the top), and a "New since DATE" section with the update's
PRISMA counts, the new works, the new versions joined to works already there, the new findings
and the earlier runs. A review that was never updated shows neither. The lines are written
here once; :mod:`~scholargraph.exports.markdown` sets them as Markdown, this module as HTML."""

from __future__ import annotations

from collections.abc import Callable
from html import escape as html_escape
from typing import TYPE_CHECKING

from scholargraph.agents.schemas import Finding
from scholargraph.history import UpdateSection
from scholargraph.options import option_words
from scholargraph.wording import counted

if TYPE_CHECKING:
    from scholargraph.report import Report


def counts_sentence(section: UpdateSection) -> str:
    """The update's PRISMA counts in one sentence, each record counted once: identified,
    duplicates removed, removed before screening by reason (a library export's records without
    a title, records screened before and unchanged since, records outside the years asked
    for), screened, excluded, kept. A review written before the reasons were kept counts the
    records neither removed as duplicates nor screened as without a title."""
    counts = section.prisma
    identified = ", ".join(f"{source} {count}" for source, count in counts.identified.items())
    removed = dict(counts.removed_before_screening)
    if not removed:
        untitled = sum(counts.identified.values()) - counts.duplicates_removed - counts.screened
        removed = {"without a title": untitled} if untitled > 0 else {}
    set_aside = "".join(f", {count} {_removed_words(reason)}" for reason, count in removed.items()
                        if count)
    searched = (f"Read the new export of the search on {section.date}"
                if set(counts.identified) == {"library"} else
                f"Searched on {section.date} for records added since {section.since}")
    return (f"{searched}: "
            f"{sum(counts.identified.values())} identified ({identified or 'none'}), "
            f"{counted(counts.duplicates_removed, 'duplicate')} removed{set_aside}, "
            f"{counts.screened} "
            f"screened, {counts.excluded} excluded, {counts.included} kept; of these "
            f"{counts.duplicates_of_earlier} {_were(counts.duplicates_of_earlier)} already in "
            f"the review and {counts.new_included} {'is' if counts.new_included == 1 else 'are'} "
            f"new. The review now holds {counted(counts.total_included, 'work')} "
            f"({counts.earlier_included} before).{options_sentence(section)}")


def options_sentence(section: UpdateSection) -> str:
    """' Run with the review's own --max-results 50, --full-text 0; --full-text 5 given for
    this update.' (with a space before it), or '' when the update kept no option of the
    review's and was given none: the reader of the update can tell its method from the
    review's."""
    kept = ", ".join(option_words(name, value) for name, value in section.options_kept.items())
    given = ", ".join(option_words(name, value)
                      for name, value in section.options_given.items())
    parts = [f"Run with the review's own {kept}" if kept else "",
             f"{given} given for this update" if given else ""]
    return f" {'; '.join(filter(None, parts))}." if kept or given else ""


def _removed_words(reason: str) -> str:
    """A reason records were removed before screening, as the sentence says it."""
    if reason in ("no title", "without a title"):
        return "without a title removed"
    return f"removed before screening ({reason})"


def _were(count: int) -> str:
    return "was" if count == 1 else "were"


def flag_lines(report: Report) -> list[str]:
    """One line per retraction or correction flagged: '[3] Title: Retraction in: ... (pubmed)'."""
    if report.update is None:
        return []
    return [(f"[{flag.reference}] " if flag.reference else "")
            + f"{flag.title}: {flag.detail} (read in {flag.source})"
            for flag in report.update.flags]


def new_work_lines(report: Report) -> list[str]:
    """The new works, each with its reference number where the review cites it, in the
    reference list's order (the uncited last), so [11] is found before [12]."""
    if report.update is None:
        return []
    numbers = report.reference_numbers()
    lines = []
    for work_id in sorted(report.update.new_work_ids,
                          key=lambda work_id: numbers.get(work_id, len(numbers) + 1)):
        work = report.work(work_id)
        where = ", ".join(str(part) for part in (work.venue, work.year) if part)
        number = f"[{numbers[work_id]}] " if work_id in numbers else "(not cited) "
        lines.append(f"{number}{work.title}" + (f" ({where})" if where else ""))
    return lines


def joined_lines(report: Report) -> list[str]:
    if report.update is None:
        return []
    return [f"{joined.title}: {joined.joined_id} joined {joined.earlier_id}"
            + (f" (rule: {joined.rule})" if joined.rule else "")
            for joined in report.update.joined]


NOW_EXCLUDED_TITLE = "Works of the review this update's screening excludes"
"""The heading over :func:`now_excluded_lines`: works kept in the review, to be looked at
again."""


def now_excluded_lines(report: Report) -> list[str]:
    """The works of the review that the update screened again and excluded, each with its
    reference number where cited and the reason: they stay in the review (its findings cite
    them) until the reviewer decides."""
    if report.update is None:
        return []
    numbers = report.reference_numbers()
    return [(f"[{numbers[item.work_id]}] " if item.work_id in numbers else "")
            + f"{item.title}: {item.reason} (still in the review; look at it again)"
            for item in report.update.now_excluded]


def history_lines(report: Report) -> list[str]:
    return [f"{entry.date}: {entry.kind}, {entry.included} works, {entry.findings} findings"
            + (f"; its files are in {entry.files}" if entry.files else "")
            for entry in report.history]


# ---------------------------------------------------------------- HTML

def _items(lines: list[str]) -> str:
    return "<ul>" + "".join(f"<li>{html_escape(line)}</li>" for line in lines) + "</ul>"


def html_flags(report: Report) -> str:
    lines = flag_lines(report)
    if not lines:
        return ""
    return ('<div class="flags"><strong>Retracted or corrected since the last run</strong>'
            f"{_items(lines)}</div>")


def html_section(report: Report, finding_item: Callable[[Finding], str]) -> str:
    """The "New since DATE" section of ``review.html``; ``finding_item`` renders a finding as
    the findings section does (its citations and evidence)."""
    section = report.update
    if section is None:
        return ""
    body = [f"<h2>New since {html_escape(section.since)}</h2>",
            f"<p>{html_escape(counts_sentence(section))}</p>"]
    parts = [("New works", new_work_lines(report)),
             ("New versions of works already included", joined_lines(report)),
             (NOW_EXCLUDED_TITLE, now_excluded_lines(report))]
    for title, items in parts:
        if items:
            body.append(f"<h3>{title}</h3>{_items(items)}")
    new = [report.findings[i] for i in section.new_findings if i < len(report.findings)]
    if new:
        body.append("<h3>New findings</h3><ul>" + "".join(finding_item(f) for f in new)
                    + "</ul>")
    if report.history:
        body.append(f"<h3>Earlier runs</h3>{_items(history_lines(report))}")
    return "\n".join(body) + "\n"
