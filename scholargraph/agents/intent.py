"""intent: what kind of question this is, its fields, time window and key terms; which tools run.

The deterministic engine reads cue words; the LLM engine answers the same :class:`Intent` schema.
Either way the run context has the last word: explicit ``sources``, ``since`` and ``until``
override what the question seems to ask.
"""

from __future__ import annotations

import re
from datetime import date

from langgraph.runtime import Runtime

from scholargraph.context import ReviewContext
from scholargraph.engines import ask_structured, chat_model_for
from scholargraph.schemas import Domain, Intent, NewsWindow, QuestionKind
from scholargraph.state import ReviewState
from scholargraph.text import chemical_formulas, content_words, key_phrases, year_window
from scholargraph.tools.registry import agent_classes

KIND_CUES: tuple[tuple[QuestionKind, str], ...] = (
    ("comparative", (r"\b(compar\w*|versus|vs\.?|differ\w*|better than|outperform\w*|"
                     r"(?:more|less) \w+ than|which is (?:more|less|better|worse))\b")),
    ("material_property", (r"\b(band ?gap|formation energy|lattice|conductivity|stability|"
                           r"elastic|dielectric|magnetic moment|density of states)\b")),
    ("mechanism", r"\b(mechanism\w*|how does|how do|why does|why do|pathway\w*|cause\w*)\b"),
    ("dataset", r"\b(dataset\w*|data set\w*|benchmark\w*|corpus|corpora|database\w*)\b"),
    ("review", r"\b(review|overview|state of the art|survey|landscape|advances)\b"),
    ("factual", r"^(what|which|who|when|where|is|are|does|do|can|how many|how much)\b"),
)

DOMAIN_CUES: dict[Domain, str] = {
    "biomedical": r"\b(patient\w*|clinical|disease\w*|cancer\w*|tumou?r\w*|gene\w*|protein\w*|"
                  r"drug\w*|health\w*|therap\w*|(?<!solar )(?<!fuel )cell\w*|medic\w*|hospital\w*|infect\w*|vaccin\w*|"
                  r"epidemi\w*|mortality|diagnos\w*|surveillance|covid\w*|pesticide\w*|thyroid\w*|"
                  r"lung\w*|heart|brain|neuro\w*|mice|mouse|rat|human\w*|dose\w*|trial\w*|sepsis|"
                  r"diabet\w*|stroke|obes\w*|asthma|alzheimer\w*|hypertension|syndrome\w*|"
                  r"symptom\w*|mental|depress\w*|suicid\w*|antibiot\w*|bacteri\w*|vir(?:al|us\w*)|"
                  r"pathogen\w*|immun\w*|surg\w*|aspirin|pharmac\w*|pregnan\w*|maternal)\b",
    "computer_science": r"\b(machine learning|deep learning|neural|algorithm\w*|software|"
                        r"language model\w*|llm\w*|transformer\w*|comput\w*|testing|classif\w*|"
                        r"artificial intelligence|ai|reinforcement|dataset\w*|benchmark\w*)\b",
    "physics": r"\b(quantum|particle\w*|optic\w*|photon\w*|laser\w*|plasma|gravit\w*|"
               r"superconduct\w*|spin|magnet\w*|cosmolog\w*|thermodynamic\w*)\b",
    "materials": r"\b(material\w*|alloy\w*|crystal\w*|band ?gap|perovskite\w*|batter\w*|"
                 r"cathode\w*|anode\w*|semiconductor\w*|thin film\w*|oxide\w*|electrolyte\w*|"
                 r"photovoltaic\w*|solar cell\w*)\b",
    "chemistry": r"\b(molecul\w*|catalys\w*|reaction\w*|synthes\w*|compound\w*|chemi\w*|"
                 r"polymer\w*|solvent\w*|ligand\w*)\b",
}

NEWS_CUES: tuple[tuple[NewsWindow, str], ...] = (
    ("day", r"\b(today|breaking|past day|last 24 hours)\b"),
    ("week", r"\b(this|past|last) week\b"),
    ("year", r"\b(this|past|last) year\b"),
    ("month", (r"\b(news|latest|recent|recently|this month|past month|last month|"
               r"current events|up to date|nowadays)\b")),
)
"""Cue words of a question about current events, each with how far back its news may reach."""

DATA_CUE = (r"\b(values?|data|datasets?|data sets?|tables?|numbers?|statistics|measurements?|"
            r"percentages?|how many|how much)\b")
"""Cue words of a question asking for specific values; material properties and datasets too."""


def news_window(lowered: str, since: int | None, this_year: int) -> NewsWindow | None:
    """How far back news may reach, when the question is about current events.

    A stated window that starts within the last year counts as current, as a year of news.
    """
    window = next((w for w, cue in NEWS_CUES if re.search(cue, lowered)), None)
    if window is None and since is not None and since >= this_year - 1:
        return "year"
    return window


def detect_intent(question: str, *, this_year: int | None = None) -> Intent:
    """The deterministic reading of a question."""
    lowered = question.lower()
    kind = next((k for k, cue in KIND_CUES if re.search(cue, lowered)), "other")
    domains: list[Domain] = [d for d, cue in DOMAIN_CUES.items() if re.search(cue, lowered)]
    formulas = chemical_formulas(question)
    if formulas and "materials" not in domains:
        domains.append("materials")
    if kind == "material_property" and "materials" not in domains:
        domains.append("materials")
    this_year = this_year or date.today().year
    since, until = year_window(question, this_year)
    keywords = key_phrases(question) or content_words(question)[:6]
    wants_data = kind in ("dataset", "material_property") or bool(re.search(DATA_CUE, lowered))
    return Intent(kind=kind, domains=domains or ["general"], keywords=keywords, since=since,
                  until=until, formula=formulas[0] if formulas else None,
                  news_window=news_window(lowered, since, this_year), wants_data=wants_data)


def active_sources(intent: Intent, context: ReviewContext) -> list[str]:
    """Sources to search, in tool-loop order: the run's explicit list, else the relevant ones."""
    agents = [agent_class() for agent_class in agent_classes()]
    if context.sources:
        wanted = set(context.sources)
        return [agent.name for agent in agents if agent.name in wanted]
    return [agent.name for agent in agents if agent.is_relevant(intent)]


SYSTEM = """You classify research questions for a literature-review system.
Return the question's kind, its research domains, 3-8 key search terms (most specific first,
multi-word terms kept together), a publication-year window only if the question states one, and
a chemical formula only if the question names a material. Set a news window only when the
question asks for news, the latest or recent developments; say whether it asks for specific
values, numbers, a table or a dataset."""


def intent(state: ReviewState, runtime: Runtime[ReviewContext]) -> dict:
    context = runtime.context or ReviewContext()
    question = state["cleaned_question"]
    notes: list[str] = []
    model = chat_model_for(context)
    if model is None:
        found = detect_intent(question)
    else:
        found, notes = ask_structured(
            model, Intent, system=SYSTEM, user=f"Question: {question}",
            fallback=lambda: detect_intent(question), agent="intent",
        )
    found = found.model_copy(update={
        "since": context.since if context.since is not None else found.since,
        "until": context.until if context.until is not None else found.until,
    })
    return {"intent": found, "active_sources": active_sources(found, context), "notes": notes}
