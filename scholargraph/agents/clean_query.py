"""clean_query: normalise the question and refuse what cannot be one, with a clear reason.

The same checks run before the graph starts (the CLI and ``review()`` call :func:`clean_question`
up front so bad input fails fast with exit code 2) and inside the node (so Studio runs get them
too).
"""

from __future__ import annotations

import re
import unicodedata

from scholargraph.deterministic.questions import without_review_subtitle
from scholargraph.errors import InputError
from scholargraph.state import ReviewState

MAX_QUESTION_CHARS = 1000
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_QUOTES = "\"'“”‘’«»`"


def clean_question(question: object) -> str:
    """The question with Unicode, whitespace and wrapping quotes normalised; raises InputError."""
    if not isinstance(question, str):
        raise InputError("the question must be text")
    text = unicodedata.normalize("NFKC", question)
    text = _CONTROL.sub(" ", text)
    text = re.sub(r"\s+", " ", text).strip().strip(_QUOTES).strip()
    if not text:
        raise InputError("the question is empty; write the research question in words")
    if len(text) > MAX_QUESTION_CHARS:
        raise InputError(
            f"the question is {len(text)} characters long; the limit is {MAX_QUESTION_CHARS}. "
            "State the question itself and put background in sub-questions or a later run"
        )
    if sum(char.isalpha() for char in text) < 3:
        raise InputError(f"{text!r} is not a question: it has no words to search for")
    return text


def language_notes(text: str) -> list[str]:
    """A note when the question is mostly not Latin script (sources index mostly English)."""
    letters = [char for char in text if char.isalpha()]
    latin = sum("LATIN" in unicodedata.name(char, "") for char in letters)
    if letters and latin / len(letters) < 0.5:
        return [("the question is mostly in a non-Latin script; most sources index English "
                 "titles and abstracts, so results may be few: consider asking in English")]
    return []


def subtitle_notes(text: str, topic: str) -> list[str]:
    """A note when the question's subtitle, naming the kind of review, is left out of what the
    review searches and screens for."""
    if topic == text:
        return []
    return [f"the question's subtitle names the kind of review, not its subject: the review "
            f"searches and screens for {topic!r}"]


def clean_query(state: ReviewState) -> dict:
    """The question normalised, without a subtitle naming the kind of review ("...: a
    systematic review"): searched as written, "systematic" became a word every study had to
    name."""
    text = clean_question(state["question"])
    topic = without_review_subtitle(text)
    return {"cleaned_question": topic, "notes": language_notes(text) + subtitle_notes(text, topic)}
