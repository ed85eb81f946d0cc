"""Sentence-aware passages of a work's abstract and full text, with ids citations can point at.

A passage is a run of whole sentences of one section, at most ``max_chars`` long (a sentence
longer than that is cut at word boundaries). Its id is ``{work id}#{section}:{start}-{end}``, the
character offsets into that section's text, so the same work always yields the same ids and a
citation can be checked by slicing: ``passage.text == source[passage.start:passage.end]``.
"""

from __future__ import annotations

import re

from scholargraph.records import Passage, Work

DEFAULT_MAX_CHARS = 600
"""About 100 words, three or four sentences: with the title before it, the embedding model (192
tokens) sees a passage whole, where it used to cut 1,200-character passages short. BM25 still
scores the whole abstract (``select.lexical_text``). On SciFact train, with BM25 over whole
abstracts: 1,200 characters 0.733 hybrid nDCG@10, 800 0.740, 600 0.748, 400 0.748 with half as
many passages again to embed (``bench/retrieval.py``)."""

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
    for section, text in (("abstract", work.abstract), ("full_text", work.full_text)):
        if text and text.strip():
            passages.extend(_passages(work.id, section, text, max_chars))
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
