"""Sentence-aware passages of a work's abstract and full text, with ids citations can point at.

A passage is a run of whole sentences of one section, at most ``max_chars`` long (a sentence
longer than that is cut at word boundaries). Its id is ``{work id}#{part}:{start}-{end}``, the
character offsets into that part's text (``title``, ``abstract`` or ``full_text``), so the same
work always yields the same ids and a citation can be checked by slicing:
``passage.text == source[passage.start:passage.end]``.

A structured full text (``Work.full_text_spans``, from a JATS article or a PDF) is cut within its
sections: a passage never spans two sections, two pages, or a table and the prose around it, and
it carries its section's title path and its page, which citations show ("Results > Efficacy",
"p. 6"), and its kind (prose, a caption, or table rows).
"""

from __future__ import annotations

import re
from functools import lru_cache

from scholargraph.deterministic.text import (
    FUNDING,
    SECTION_WORDS,
    not_a_statement,
    references_start,
)
from scholargraph.records import Passage, TextSpan, Work

DEFAULT_MAX_CHARS = 600
"""About 100 words, three or four sentences: with the title before it, the embedding model (192
tokens) sees a passage whole, where it used to cut 1,200-character passages short. BM25 still
scores the whole abstract (``select.lexical_text``). On SciFact train, with BM25 over whole
abstracts: 1,200 characters 0.733 hybrid nDCG@10, 800 0.740, 600 0.748, 400 0.748 with half as
many passages again to embed (``bench/retrieval.py``)."""

_SENTENCE_END = re.compile(
    r"[.!?][\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9\u00a9])"
    r"|(?<=[a-z0-9)%\],][.!?])(?=[A-Z][a-z]{2,}|[A-Z][a-z]?\b)"
    r"|(?<=[A-Z]{2}[.!?])(?=[A-Z][a-z]{2,}|[A-Z][a-z]?\b)"
    r"|(?<=[a-z)\]][.!?])\d{1,3}(?:[,\u2013-]\d{1,3})*\s+(?=[A-Z])"
    rf"|(?<=[A-Z]{{2}}[.!?])(?=(?:{SECTION_WORDS}):)"
    rf"|(?<=[A-Z][.])(?=[A-Z])(?i:(?={FUNDING.pattern}))")
"""The end of a sentence: a full stop (or ! ?) and a space before a capital, a digit or a
copyright sign ('... age-related bone loss. \u00a9 2016 American Society ...': the notice is a
sentence of its own, left out of what is screened and quoted, not the end of a finding); or,
where the space was lost when the text was put together ('...crowdsourced
data.Conclusion: Findings', '...chondroprotective properties,.We characterized'), a full stop
between a lower-case word, a number, a bracket or a stray comma and a capitalised word, or
between an acronym and one ('...by T2 mapping with follow-up MRI.No significant differences',
an export that joined a structured abstract's parts: all 170 such stops among the abstracts of
SciFact and the nine shared screening reviews end a sentence). '3.5',
'E.coli', 'S. aureus', 'U.S.' and 'ClinicalTrials.gov' have no capitalised word right after
the stop; web addresses and DOIs are told apart by the token the
stop is in (:func:`_inside_address`). A note number after the stop ('...a variety of
diseases.15 Science Clips, a weekly...') ends the sentence, and is left out of both. A
structured abstract's label with its colon glued to an abbreviation's stop ('... enacted stigma
towards IBD.Conclusion: For people living with IBD ...', a PsycINFO record) starts a sentence
too: a capital before the stop is otherwise read as an initial or a name ('E.Coli'); so does
a funding line glued to a name's letter ('... in haemophilia A.F Hoffmann-La Roche funded the
study', :data:`~scholargraph.deterministic.text.FUNDING`), which is then left out of what is
quoted."""
_SECTION_NEXT = re.compile(rf"(?:{SECTION_WORDS}):?\s+[A-Z]")
"""A structured abstract's next label ('...were conducted in R. Results The model...'): the
stop before it ends a sentence even after what reads as an initial."""
_ADDRESS = re.compile(r"://|www\.|@|\b10\.\d{4,9}/|\w\.[a-z]{2,}\S*/\S*$", re.IGNORECASE)
"""A web or e-mail address or a DOI: a path counts only after a dotted host
('example.org/Data.Set'), so a unit before a lost space ('3 mg/kg.Using the data') ends the
sentence."""
_ABBREVIATIONS = frozenset({
    "al", "fig", "figs", "eq", "eqs", "ref", "refs", "vs", "e.g", "i.e", "cf", "approx",
    "resp", "no", "nos", "vol", "dr", "mr", "mrs", "ms", "prof", "st", "ca", "sp", "spp",
    "etc", "incl", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct",
    "nov", "dec"
})


def chunk_work(work: Work, max_chars: int = DEFAULT_MAX_CHARS) -> list[Passage]:
    """Passages of the abstract and the full text (each its statements, :func:`statement_runs`);
    the title alone when there is neither."""
    passages: list[Passage] = []
    if work.abstract and work.abstract.strip():
        passages.extend(_passages(work.id, "abstract", work.abstract, max_chars))
    if work.full_text and work.full_text_spans:  # parsed: reference lists are already left out
        passages.extend(_structured_passages(work, max_chars))
    elif work.full_text and work.full_text.strip():
        passages.extend(_passages(work.id, "full_text", work.full_text, max_chars))
    if not passages and work.title.strip():
        passages.extend(_passages(work.id, "title", work.title, max_chars))
    return passages


def statement_runs(text: str | None,
                   max_chars: int = DEFAULT_MAX_CHARS) -> list[list[tuple[int, int]]]:
    """(start, end) of the sentences of a record's text that state something of the work, in
    runs of consecutive ones: the one reading of an abstract (or an unparsed full text) that
    screening judges (:func:`statement_text`) and passages are cut from (:func:`chunk_work`),
    so a record is never kept for words no finding could quote.

    Left out: its numbered reference list and all after it (a web page, or a publisher's
    abstract field holding the whole article: 'References1. Endsley MR. ...'), which holds
    only the titles of others; and each sentence that is not a statement
    (:func:`~scholargraph.deterministic.text.not_a_statement`): reference debris pasted into
    the text ('2021; 36: 908-915Crossref PubMed Scopus (2) Google Scholar'), a licence or
    copyright notice, a web page's links and labels. A run breaks where one was left out, so a
    passage never spans it. A sentence longer than ``max_chars`` is judged in pieces cut at
    whitespace. Offsets index ``text`` itself."""
    if not text:
        return []
    cut = references_start(text)
    kept = text[:cut] if cut is not None else text
    runs: list[list[tuple[int, int]]] = [[]]
    for start, end in _bounded_sentences(kept, max_chars):
        if not_a_statement(kept[start:end]):
            if runs[-1]:
                runs.append([])
        else:
            runs[-1].append((start, end))
    return [run for run in runs if run]


@lru_cache(maxsize=4096)
def statement_text(text: str | None, max_words: int | None = None) -> str:
    """A record's text as screening reads it: its statements (:func:`statement_runs`) joined
    by spaces, up to the sentence that reaches ``max_words`` words when given; empty when it
    states nothing (a licence notice alone). Kept for the last texts read: a work's abstract is
    asked for once by screening and once for each of its passages ranked."""
    kept: list[str] = []
    count = 0
    for start, end in (span for run in statement_runs(text) for span in run):
        if max_words is not None and count >= max_words:
            break
        kept.append((text or "")[start:end])
        count += len(kept[-1].split())
    return " ".join(kept)


def split_sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence, surrounding whitespace excluded; abbreviation-tolerant."""
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        spaced = bool(match.group(0))  # else a stop with no space after it (the lookbehind)
        noted = match.group(0)[:1].isdigit()  # a note number after the stop
        stop = match.start() + 1 if spaced and not noted else match.start()
        sentence = text[start:stop]
        if _ends_with_abbreviation(sentence) and not _SECTION_NEXT.match(
                text, match.end()) and not _named_letter_ends(sentence, text, match.end()) and (
                not FUNDING.match(text, match.end())):
            continue
        if not spaced and _inside_address(text, match.end()):
            continue
        end = match.start() if noted else (  # the note number is left between the two
            match.end() - len(match.group(0)) + len(match.group(0).rstrip()))
        spans.append(_strip(text, start, end))
        start = match.end()
    if text[start:].strip():
        spans.append(_strip(text, start, len(text)))
    return [span for span in spans if span[1] > span[0]]


def _inside_address(text: str, position: int) -> bool:
    """Whether ``position`` (right after a full stop with no space) is inside a web address,
    an e-mail address or a DOI ('https://example.org/Data.Set', '10.1000/ABC.Def')."""
    token_start = max(text.rfind(" ", 0, position), text.rfind("\n", 0, position)) + 1
    return bool(_ADDRESS.search(text[token_start:position]))


def _ends_with_abbreviation(sentence: str) -> bool:
    """'et al.', 'Fig.', 'e.g.', 'U.S.' and initials ('J. Smith') do not end a sentence; '12 h.'
    does."""
    words = sentence.rstrip(".!?\"')]").split()  # a sentence of marks alone ('...') has none
    last = words[-1] if words else ""
    word = last.lstrip("([\"'")
    return (word.lower() in _ABBREVIATIONS or bool(re.fullmatch(r"[A-Z]", word))
            or bool(re.fullmatch(r"(?:[A-Z]\.)+[A-Z]", word)))  # 'U.S.', 'U.K.'



_NAMED_LETTER = re.compile(r"\b[a-z]{3,} [A-Z][.!?]$")
_NEXT_WORD = re.compile(r"\s*([A-Za-z]+)")
_ITEM_LABEL = re.compile(r"\s*(?:(?P<enclosed>\(?[A-Z]\))|[A-Z]\.)\s+(?=[A-Z])")
"""A panel's or a list item's letter opening a sentence ("(B) We found ...", "B) Bleeds fell
...", "B. Results show ..."), before a capitalised word; a bracket after the letter is never an
initial's."""
_OPENERS = frozenset([
    "the", "this", "these", "those", "in", "we", "our", "a", "an", "it", "its", "there", "of",
    "for", "to", "among", "after", "during", "however", "moreover", "furthermore", "all",
    "both", "no", "overall", "here", "with", "on", "at", "by", "as", "from", "although",
    "while", "when", "since", "because", "thus", "therefore"])
"""Words that open a sentence and never follow an initial as a surname does."""


def _named_letter_ends(sentence: str, text: str, position: int) -> bool:
    """Whether a capital letter before the stop ends a name with its letter ("haemophilia A.",
    "vitamin D.", "meiosis I.") and the sentence: a lower-case word before it, and a word that
    opens sentences after it ("... in haemophilia A. In this survey, ..."), or a label opening
    the next sentence (:func:`_labelled_opening`). An initial stands after a capital or at the
    start ("J. Smith"), and before a surname. In SciFact's abstracts 19 such stops fall inside
    one of its sentences, none of them before a surname."""
    if not _NAMED_LETTER.search(sentence.rstrip()):
        return False
    following = _NEXT_WORD.match(text, position)
    return bool(following and following.group(1).lower() in _OPENERS) or (
        _labelled_opening(text, position))


def _labelled_opening(text: str, position: int) -> bool:
    """Whether the text at ``position`` opens a sentence with a panel's or an item's label
    (:data:`_ITEM_LABEL`): a bracketed one ("(B) We found ...", "B) Bleeds fell ...") before
    any capitalised word,
    since no initial is written so; a bare one ("B. Results show ...", which reads like the
    initial of "B. Smith") before a word that opens sentences or a section's name. Without
    this, "... in haemophilia A. (B) We found ..." was quoted as one sentence."""
    label = _ITEM_LABEL.match(text, position)
    if label is None:
        return False
    if label.group("enclosed"):
        return True
    following = _NEXT_WORD.match(text, label.end())
    return bool(following and (following.group(1).lower() in _OPENERS
                               or _SECTION_WORD.fullmatch(following.group(1))))


def item_label_end(text: str, start: int) -> int:
    """Where a sentence starting at ``start`` begins once a panel's or a list item's label
    opening it is passed ("(B) We found ...", "B. Results show ...": :func:`_labelled_opening`),
    else ``start``. The letter names a figure's panel or a list's place, not part of what the
    sentence states, and a quote carrying it reads "(B) We found ..." out of its figure."""
    label = _ITEM_LABEL.match(text, start)
    if label is None or not _labelled_opening(text, start):
        return start
    return label.end()


_SECTION_WORD = re.compile(SECTION_WORDS, re.IGNORECASE)


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
        for run in statement_runs(text, max_chars)
        for start, end in _pack(run, max_chars)
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
                    section=head.section or "full_text", page=head.page, kind=head.kind)
            for start, end in _pack(sentences, max_chars))
    return passages


def _runs(spans: list[TextSpan]) -> list[list[TextSpan]]:
    """Consecutive spans of one section, page and kind: table rows and a figure's or table's
    caption apart from prose. A caption joined to the paragraphs around it was quoted as a
    finding ("Kaplan-Meier curves for overall and progression free survival of the ...
    cohort."); in a passage of its own (``Passage.kind`` 'caption') it is still retrieved and
    cited as context, and :func:`~scholargraph.deterministic.extractive.quotable` never quotes
    it as a finding."""
    runs: list[list[TextSpan]] = []
    for span in spans:
        previous = runs[-1][-1] if runs else None
        if previous and (previous.section, previous.page, previous.kind) == (
                span.section, span.page, span.kind):
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
