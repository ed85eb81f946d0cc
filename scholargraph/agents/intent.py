"""intent: what kind of question this is, its fields, time window and key terms; which tools run.

The deterministic engine reads cue words, and, when no biomedical cue word matches, the
question's meaning (:mod:`scholargraph.deterministic.fields`: the run's MiniLM against short
sketches of fields), so that an everyday clinical question still asks PubMed, and a question
no cue word places at all ("Topological insulators") takes the field its meaning reads. The LLM
engine answers the same :class:`Intent` schema, checked against that reading.
Either way the run context has the last word: explicit ``sources``, ``since`` and ``until``
override what the question seems to ask.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date

from langgraph.runtime import Runtime

from scholargraph.agents.schemas import Domain, Intent, NewsWindow, QuestionKind
from scholargraph.context import ReviewContext
from scholargraph.deterministic.fields import field_embedder, read_field
from scholargraph.deterministic.material_names import named_materials
from scholargraph.deterministic.questions import asserts, is_question
from scholargraph.deterministic.text import (
    chemical_formulas,
    content_words,
    key_phrases,
    year_window,
)
from scholargraph.engines import session_for
from scholargraph.rag.embeddings import Embedder
from scholargraph.sources.registry import get_agent, source_names
from scholargraph.state import ReviewState

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

BIOMEDICAL_CUES: dict[str, str] = {
    "clinical care and public health": (
        r"patient\w*|clinical|disease\w*|cancer\w*|tumou?r\w*|drug\w*|health\w*|\w*therap\w*|"
        r"medic(?!i\b)\w*|hospital\w*|infect\w*|vaccin\w*|epidemi\w*|mortality|diagnos\w*|"
        r"surveillance|covid\w*|pesticide\w*|dose\w*|trial\w*|surg\w*|aspirin|pharmac\w*|"
        r"pregnan\w*|maternal|infertil\w*"),
    "conditions and symptoms": (
        r"sepsis|diabet\w*|stroke|obes\w*|asthma|alzheimer\w*|hypertension|syndrome\w*|"
        r"symptom\w*|mental|depress\w*|suicid\w*|inflamm\w*|insulin"),
    "the body, its organs and cells": (
        r"(?<!solar )(?<!fuel )cell\w*|\w+cytes?|\w+blasts?|tissue\w*|thyroid\w*|lung\w*|heart|"
        r"brain|neuro\w*|cardio\w*|cardiac|liver|kidney\w*|renal|hepat\w*|muscle\w*|"
        r"adipo\w*|blood|serum|human\w*|mitochondri\w*|apoptosis|autophagy"),
    "genes, nucleic acids and their editing": (
        r"genes?|genetic\w*(?! algorithm| programming)|genom\w*|epigene\w*|allel\w*|"
        r"mutat\w*|dna|(?:m|mi|micro|si|sh|lnc|nc|circ|t|r)?rnas?|transcription\w*|chromatin|"
        r"histone\w*|crispr\w*|cas\d+\w*|(?:gene|genome|base|prime) editing"),
    "proteins and signalling": (
        r"protein\w*|enzym\w*|kinase\w*|receptor\w*|antibod\w*|antigen\w*|cytokine\w*|"
        r"hormon\w*|phosphorylat\w*|\w*immun\w*"),
    "organisms and microbes": (
        r"mice|mouse|rat|antibiot\w*|bacteri\w*|vir(?:al|us\w*)|pathogen\w*|microb\w*|"
        r"microbio\w*|yeast\w*|zebrafish|drosophila"),
}
"""What PubMed indexes, by family: the life sciences as a whole, not only disease and drugs.
A question on gene editing, the microbiome or a cell type is biomedical though it names no
disease. Words shared with other fields are kept out or narrowed: "gene" is a word, not the
start of "general" or "generative", and a genetic algorithm is computer science."""

DOMAIN_CUES: dict[Domain, str] = {
    "biomedical": r"\b(" + "|".join(BIOMEDICAL_CUES.values()) + r")\b",
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

NOT_MATERIALS_SCIENCE = re.compile(
    r"\b(?:teaching|learning|training|educational|education|course|class|lecture|reading|"
    r"instructional|curricul(?:um|ar)|study|supplementary|supplemental|marketing|promotional|"
    r"advertising|campaign|source|raw|written|audiovisual|multimedia|"
    r"online|patient|consent|recruitment|outreach|communication|press|"
    r"information(?:al)?)\s+materials?\b|\bmaterials? and methods\b")
"""Where "material(s)" is not materials science: what is taught, read or bought ("teaching
materials for undergraduate chemistry", "raw materials supply chain", "patient information
materials"). Phrases a materials scientist uses too are not listed: "printed", "digital",
"open" and "reference" materials are made and measured. Such a phrase is no cue for the
materials field, so the Materials Project is not asked (before, "teaching materials" made it
active, only to be skipped in the search log for naming no compound); a material noun
elsewhere in the question still counts."""
CHEMICAL_NAMES = (r"(?<![\w-])[A-Z][a-z]?(?:[-\u2013][A-Z][a-z]?){2,}(?![\w-])|"
                  r"(?<![\w-])mp-\d+(?![\w-])")
"""A chemical system written out (Li-Fe-O) or a Materials Project id (mp-19017): materials
questions however few words surround them (:mod:`scholargraph.deterministic.material_names`
decides which of them name a material)."""

NEWS_CUES: tuple[tuple[NewsWindow, str], ...] = (
    ("day", r"\b(today|breaking|past day|last 24 hours)\b"),
    ("week", r"\b(this|past|last) week\b"),
    ("year", r"\b(this|past|last) year\b"),
    ("month", (r"\b(news|latest|recent|recently|this month|past month|last month|"
               r"current events|up to date|nowadays)\b")),
)
"""Cue words of a question about current events, each with how far back its news may reach."""

DATA_CUE = (r"\b(values?|(?:what|which|any|available) data|data (?:on|about)|datasets?|"
            r"data sets?|tables?|numbers?|statistics|measurements?|percentages?|how many|"
            r"how much)\b")
"""Cue words of a question asking for specific values; material properties and datasets too.
"Data" alone is what a study uses, not what the question asks for ("machine learning on
surveillance data for outbreak detection"): it counts when asked for ("what data", "data on
measles vaccine uptake")."""


def news_window(lowered: str, since: int | None, this_year: int) -> NewsWindow | None:
    """How far back news may reach, when the question is about current events.

    A stated window that starts within the last year counts as current, as a year of news.
    """
    window = next((w for w, cue in NEWS_CUES if re.search(cue, lowered)), None)
    if window is None and since is not None and since >= this_year - 1:
        return "year"
    return window


def publication_window(question: str, this_year: int) -> tuple[int | None, int | None]:
    """The publication years the question asks for ("since 2015", "2010-2020", "last 5
    years"). None for a statement of a finding: its years date the finding ("sepsis mortality
    has risen from 2009 to 2014"), not the studies that test it, which come later."""
    if not is_question(question) and asserts(question):
        return None, None
    return year_window(question, this_year)


GENE_LIKE = re.compile(r"[A-Z]+\d[A-Z\d]*|[A-Z][a-z]?\d+")
"""A formula as a gene, protein or virus is named: capital letters and digits only ("C2",
"NOS2", "HSP90", "PINK1", "H1N1", "VO2" max) or one element with a count ("C1698", "Ca2" of
"Ca2+")."""


def material_formulas(question: str, domains: Sequence[str]) -> list[str]:
    """The question's chemical formulas that name a material: in a biomedical question (by its
    words or its meaning, ``domains``) a formula written as genes and proteins are
    (:data:`GENE_LIKE`) is one of them. "C2 deficiency increases risk of lupus." names the
    complement protein C2, not carbon: read as a formula it made the question a materials one,
    and the Materials Project was asked for C2. A formula in mixed case ("LiFePO4", "TiO2",
    "GaN") names a compound in any question, so a materials question about health stays both."""
    found = chemical_formulas(question)
    if "biomedical" not in domains:
        return found
    return [formula for formula in found if not GENE_LIKE.fullmatch(formula)]


def detect_intent(question: str, *, this_year: int | None = None,
                  embedder: Embedder | None = None) -> Intent:
    """The deterministic reading of a question. With ``embedder`` (the run's MiniLM), a question
    no biomedical cue word names is biomedical too when its meaning reads so, and a question no
    cue word places at all takes the field its meaning reads ("Topological insulators":
    physics), so that arXiv is asked; cue words decide first, the meaning only adds."""
    lowered = question.lower()
    kind = next((k for k, cue in KIND_CUES if re.search(cue, lowered)), "other")
    cued = {d: NOT_MATERIALS_SCIENCE.sub(" ", lowered) if d == "materials" else lowered
            for d in DOMAIN_CUES}
    domains: list[Domain] = [d for d, cue in DOMAIN_CUES.items() if re.search(cue, cued[d])]
    if "biomedical" not in domains:
        read = read_field(question, embedder)
        if read == "biomedical":
            domains.insert(0, "biomedical")
        elif read is not None and not domains:
            domains.append(read)
    formulas = material_formulas(question, domains)
    named = [m for m in named_materials(question) if m.chemsys or m.material_id] \
        if re.search(CHEMICAL_NAMES, question) else []
    if (formulas or named) and "materials" not in domains:
        domains.append("materials")
    if kind == "material_property" and "materials" not in domains:
        domains.append("materials")
    this_year = this_year or date.today().year
    since, until = publication_window(question, this_year)
    keywords = key_phrases(question) or content_words(question)[:6]
    wants_data = kind in ("dataset", "material_property") or bool(re.search(DATA_CUE, lowered))
    return Intent(kind=kind, domains=domains or ["general"], keywords=keywords, since=since,
                  until=until, formula=formulas[0] if formulas else None,
                  news_window=news_window(lowered, since, this_year), wants_data=wants_data)


def active_sources(intent: Intent, context: ReviewContext) -> list[str]:
    """Sources to search, in tool-loop order: the run's explicit list, else the relevant ones."""
    agents = [get_agent(name, context.run_settings) for name in source_names()]
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

NEIGHBOUR_DOMAINS: dict[str, tuple[str, ...]] = {
    "physics": ("materials", "chemistry"), "materials": ("physics", "chemistry"),
    "chemistry": ("materials", "physics", "biomedical"), "biomedical": ("chemistry",),
}
"""Fields a question found in one field may also belong to without a cue word of its own (the
band gap of ZnO is physics as well as materials); computer science always needs its own cue
or meaning."""
MAX_KEYWORD_CHARS = 80
INTENT_TOKENS = 256
"""Room for the intent's reply: a kind, a few domains, 3-8 short terms and a few scalars."""
EARLIEST_YEAR, LATEST_YEAR = 1800, 2100
"""The publication years a user may give (the same bounds as ``--since``/``--until``)."""


def checked_intent(found: Intent, question: str, *, this_year: int | None = None,
                   embedder: Embedder | None = None) -> tuple[Intent, list[str]]:
    """The model's intent with every value a user could not have given, or the question does not
    bear out, replaced by the deterministic reading (each with a note).

    A model value must pass the rule its option passes from a user (years 1800-2100, since before
    until) and have evidence in the question: a year window or news window only when the
    question states one, a formula only one the question names, a domain only one its words
    touches (or a neighbour of one it touches; any, when it touches none; biomedical, which
    asks PubMed, never as a neighbour of a materials question: a model called "Which polymorph
    of TiO2 is most stable?" biomedical by way of chemistry); key terms must be searchable (not
    blank, at most 80 characters).
    """
    this_year = this_year or date.today().year
    rules = detect_intent(question, this_year=this_year, embedder=embedder)
    notes: list[str] = []
    update: dict = {}

    def drop(field: str, value: object, why: str, replacement: object) -> None:
        notes.append(f"intent: dropped the model's {field} {value!r} ({why})")
        update[field] = replacement

    stated = publication_window(question, this_year)
    for field, value, said in (("since", found.since, stated[0]), ("until", found.until,
                                                                   stated[1])):
        if value is None:
            continue
        if not EARLIEST_YEAR <= value <= LATEST_YEAR:
            drop(field, value, "not a plausible publication year", said)
        elif said is None:
            drop(field, value, "the question states no such year", None)
    since = update.get("since", found.since)
    until = update.get("until", found.until)
    if since is not None and until is not None and since > until:
        drop("until", until, f"it is before since {since}", stated[1])
    if found.formula is not None and found.formula not in material_formulas(question,
                                                                             rules.domains):
        drop("formula", found.formula, "not a chemical formula the question names", rules.formula)
    if found.news_window is not None and rules.news_window is None:
        drop("news_window", found.news_window, "the question asks for no news",
             None)
    known = set(rules.domains) - {"general"}
    near = known | {n for d in known for n in NEIGHBOUR_DOMAINS.get(d, ())}
    if "materials" in known and "biomedical" not in known:
        near.discard("biomedical")  # a materials question's health side is read, not assumed
    unsupported = [d for d in found.domains if known and d not in near and d != "general"]
    if unsupported:
        kept = [d for d in found.domains if d not in unsupported]
        drop("domains", unsupported, "no word of the question belongs to those fields",
             kept or rules.domains)
    keywords = [k.strip() for k in found.keywords if k.strip() and len(k) <= MAX_KEYWORD_CHARS]
    if len(keywords) < len(found.keywords):
        dropped = [k for k in found.keywords if k.strip() not in keywords]
        drop("keywords", dropped, "blank or too long to search for", keywords or rules.keywords)
    return found.model_copy(update=update), notes


def intent(state: ReviewState, runtime: Runtime[ReviewContext]) -> dict:
    context = runtime.context or ReviewContext()
    question = state["cleaned_question"]
    notes: list[str] = []
    embedder = field_embedder(context.run_settings)
    session = session_for(context, state)
    if session is None:
        found = detect_intent(question, embedder=embedder)
    else:
        found, notes = session.ask(
            Intent, system=SYSTEM, user=f"Question: {question}",
            fallback=lambda: detect_intent(question, embedder=embedder), step="intent",
            max_tokens=INTENT_TOKENS,
        )
        found, dropped = checked_intent(found, question, embedder=embedder)
        notes = notes + dropped
    found = found.model_copy(update={
        "since": context.since if context.since is not None else found.since,
        "until": context.until if context.until is not None else found.until,
    })
    update = {"intent": found, "active_sources": active_sources(found, context), "notes": notes}
    if session is not None:
        update["model_steps"] = session.steps
    return update
