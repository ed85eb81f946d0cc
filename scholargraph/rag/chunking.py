"""Sentence-aware passages of a work's abstract and full text, with ids citations can point at.

A passage is a run of whole sentences of one section, at most ``max_chars`` long (a sentence
longer than that is cut at word boundaries). Its id is ``{work id}#{part}:{start}-{end}``, the
character offsets into that part's text (``title``, ``abstract`` or ``full_text``), so the same
work always yields the same ids and a citation can be checked by slicing:
``passage.text == source[passage.start:passage.end]``.

A structured full text (``Work.full_text_spans``, from a JATS article or a PDF) is cut within its
sections: a passage never spans two sections, two pages, or a table and the prose around it, and
it carries its section's title path and its page, which citations show ("Results > Efficacy",
"p. 6").
"""

from __future__ import annotations

import re

from scholargraph.records import Passage, TextSpan, Work

DEFAULT_MAX_CHARS = 1200
"""About 250 words: a typical abstract stays one passage, as most embedding models see it whole."""

_SENTENCE_END = re.compile(r"[.!?][\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")
_ABBREVIATIONS = frozenset({
    "al", "fig", "figs", "eq", "eqs", "ref", "refs", "vs", "e.g", "i.e", "cf", "approx",
    "resp", "no", "nos", "vol", "dr", "mr", "mrs", "ms", "prof", "st", "ca", "sp", "spp",
    "etc", "incl", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct",
    "nov", "dec"
})


def chunk_work(work: Work, max_chars: int = DEFAULT_MAX_CHARS) -> list[Passage]:
    """Passages of the abstract and the full text; the title alone when there is neither."""
    passages: list[Passage] = []
    if work.abstract and work.abstract.strip():
        passages.extend(_passages(work.id, "abstract", work.abstract, max_chars))
    if work.full_text and work.full_text_spans:
        passages.extend(_structured_passages(work, max_chars))
    elif work.full_text and work.full_text.strip():
        passages.extend(_passages(work.id, "full_text", work.full_text, max_chars))
    if not passages and work.title.strip():
        passages.extend(_passages(work.id, "title", work.title, max_chars))
    return passages


def split_sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence, surrounding whitespace excluded; abbreviation-tolerant."""
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        if _ends_with_abbreviation(text[start:match.start() + 1]):
            continue
        end = match.end() - len(match.group(0)) + len(match.group(0).rstrip())
        spans.append(_strip(text, start, end))
        start = match.end()
    if text[start:].strip():
        spans.append(_strip(text, start, len(text)))
    return [span for span in spans if span[1] > span[0]]


def _ends_with_abbreviation(sentence: str) -> bool:
    """'et al.', 'Fig.', 'e.g.' and initials ('J. Smith') do not end a sentence; '12 h.' does."""
    last = sentence.rstrip(".!?\"')]").rsplit(None, 1)[-1] if sentence.strip() else ""
    word = last.lstrip("([\"'")
    return word.lower() in _ABBREVIATIONS or bool(re.fullmatch(r"[A-Z]", word))


def _strip(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _passages(work_id: str, section: str, text: str, max_chars: int) -> list[Passage]:
    return [
        Passage(id=f"{work_id}#{section}:{start}-{end}", work_id=work_id, text=text[start:end],
                start=start, end=end, section=section)
        for start, end in _pack(_bounded_sentences(text, max_chars), max_chars)
    ]


def _structured_passages(work: Work, max_chars: int) -> list[Passage]:
    """Passages of a structured full text, packed within runs of spans that share section,
    page and kind; ids and offsets index ``work.full_text`` itself."""
    text = work.full_text or ""
    passages: list[Passage] = []
    for run in _runs(work.full_text_spans):
        sentences = [(span.start + start, span.start + end) for span in run
                     for start, end in _bounded_sentences(text[span.start:span.end], max_chars)]
        head = run[0]
        passages.extend(
            Passage(id=f"{work.id}#full_text:{start}-{end}", work_id=work.id,
                    text=text[start:end], start=start, end=end,
                    section=head.section or "full_text", page=head.page)
            for start, end in _pack(sentences, max_chars))
    return passages


def _runs(spans: list[TextSpan]) -> list[list[TextSpan]]:
    """Consecutive spans of one section and page, table rows apart from prose (a figure's
    caption joins the paragraphs around it: one passage fewer to embed, the same citation)."""
    runs: list[list[TextSpan]] = []
    for span in spans:
        previous = runs[-1][-1] if runs else None
        if previous and (previous.section, previous.page, previous.kind == "table") == (
                span.section, span.page, span.kind == "table"):
            runs[-1].append(span)
        else:
            runs.append([span])
    return runs


def _bounded_sentences(text: str, max_chars: int) -> list[tuple[int, int]]:
    """Sentence spans, with any sentence longer than ``max_chars`` cut at whitespace."""
    spans: list[tuple[int, int]] = []
    for start, end in split_sentences(text):
        while end - start > max_chars:
            cut = text.rfind(" ", start + 1, start + max_chars)
            cut = cut if cut > start else start + max_chars
            spans.append(_strip(text, start, cut))
            start = _strip(text, cut, end)[0]
        spans.append((start, end))
    return spans


def _pack(sentences: list[tuple[int, int]], max_chars: int) -> list[tuple[int, int]]:
    """Consecutive sentences joined greedily into spans of at most ``max_chars``."""
    packed: list[tuple[int, int]] = []
    for start, end in sentences:
        if packed and end - packed[-1][0] <= max_chars:
            packed[-1] = (packed[-1][0], end)
        else:
            packed.append((start, end))
    return packed
