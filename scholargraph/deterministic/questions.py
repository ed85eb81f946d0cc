"""How a research question is put together, read without a language model.

The deterministic planner needs more than key terms: which concepts are alternatives ("suicide
ideation or opioid overdose"), which two are compared ("metformin versus sulfonylureas"), which
qualify another ("in adults"), and the question turned into a clause ("whether CRISPR-Cas9 gene
editing cures sickle cell disease in adults") so a sub-question can be written around it without
repeating it. Everything here works on the concepts of
:func:`scholargraph.deterministic.text.phrase_spans` and the words between them, so the same
question always reads the same way.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise

from scholargraph.deterministic.text import (
    COPULAS,
    MODALS,
    NOUN_TOO,
    PREDICATE_VERBS,
    PREDICATES,
    asked_verbs,
    is_generic,
    ly_adverb,
    past_participle,
    phrase_spans,
    stopwords,
)

REVIEW_SUBTITLE = re.compile(
    r"\s*(?P<mark>[:?]|\s[–—-]|[–—])\s*(?:an?\s+|the\s+)?(?:updated\s+|comparative\s+)?"
    r"(?:systematic|scoping|rapid|narrative|umbrella|literature|tertiary|meta|integrative|"
    r"critical|mapping|review)\b.*$", re.IGNORECASE | re.DOTALL)
"""A subtitle naming the kind of review (": a systematic review and meta-analysis", " - a
tertiary study"): it describes the review, not what it is about. A hyphen joining two words is
no subtitle mark ("self-critical", "peer-review")."""


def without_review_subtitle(question: str) -> str:
    """The question without a subtitle naming the kind of review (:data:`REVIEW_SUBTITLE`), its
    question mark kept: a scientist often types the title of the review they are writing, and
    "systematic" or "tertiary study" is no word to search the studies for."""
    def mark(match: re.Match[str]) -> str:
        return "?" if match.group("mark") == "?" else ""
    return REVIEW_SUBTITLE.sub(mark, question).strip() or question.strip()


AUXILIARIES = frozenset(["does", "do", "did", "is", "are", "was", "were", "can", "could",
                         "should", "will", "would", "may", "might", "has", "have"])
QUESTION_OPENERS = AUXILIARIES | {"what", "which", "who", "when", "where", "why", "how"}
IMPERATIVES = re.compile(r"^(?:please\s+)?(?:compare|review|summari[sz]e|describe|explain|list|"
                         r"find|investigate|assess|evaluate)\s+(?:the\s+)?", re.IGNORECASE)
COMPARISON = re.compile(r"^,?\s*(?:vs\.?|versus|or|and|against|than|(?:[\w\-]+\s+)*compared "
                        r"(?:with|to)|(?:better|worse|more \w+|less \w+) than)\s*$",
                        re.IGNORECASE)
ALTERNATIVE = re.compile(r"^\s*(?:,|,?\s*or|and/or)\s*$", re.IGNORECASE)
QUALIFIER = re.compile(r"^\s*(in|among)(?:\s+the)?\s*$", re.IGNORECASE)
COMPLEMENT = re.compile(r"^\s*(of|for)(?:\s+the)?\s*$", re.IGNORECASE)
CONTEXT_PREPOSITION = re.compile(r"\b(for|in|on|against|among)\s+(?:the\s+)?$", re.IGNORECASE)


@dataclass(frozen=True)
class Concept:
    text: str
    start: int
    end: int


@dataclass(frozen=True)
class Comparison:
    """Two compared concepts and what they are compared for ("for type 2 diabetes")."""

    a: str
    b: str
    context: str


def concepts(question: str) -> list[Concept]:
    return [Concept(text, start, end) for text, start, end in phrase_spans(question)]


def between(question: str, left: Concept, right: Concept) -> str:
    return question[left.end:right.start]


def alternatives(question: str) -> list[Concept]:
    """The concepts of the first "A or B" (or "A, B or C") list of the question, else []."""
    found = concepts(question)
    group: list[Concept] = []
    joined_by_or = False
    for left, right in pairwise(found):
        link = between(question, left, right)
        if ALTERNATIVE.match(link):
            group = group or [left]
            group.append(right)
            joined_by_or = joined_by_or or bool(re.search(r"\bor\b", link, re.IGNORECASE))
        elif group:
            break
    return group if joined_by_or else []


def comparison(question: str) -> Comparison | None:
    """The two concepts the question compares, and the concepts they are compared for.

    They stand on either side of "versus", "or", "than"..., except after "compared with", which
    compares with the question's subject: "Do e-cigarettes help smokers quit compared with
    nicotine replacement therapy?" compares e-cigarettes, not smokers."""
    setting = leading_setting(question)
    body = setting[1] if setting else 0
    found = concepts(question)
    for i, (left, right) in enumerate(pairwise(found)):
        link = between(question, left, right)
        if COMPARISON.match(link) and left.start >= body:
            if "compared" in link.lower():
                left = next(c for c in found[:i + 1]
                            if c.start >= body and (not is_generic(c.text) or c is left))
            rest = [c for c in found if c not in (left, right) and c.start >= body]
            context = _context(question, rest, right)
            if setting:
                context = f"{context} {setting[0]}".strip()
            return Comparison(left.text, right.text, context)
    return None


def _context(question: str, rest: list[Concept], right: Concept) -> str:
    """What the pair is compared for: the concepts after it, led by the question's own
    preposition ("for type 2 diabetes", "on" after a verb: "reduce cardiovascular events"),
    and specific ones before it ("in terms of formation energy"); general words in between
    ("smokers") stay in the first sub-question only."""
    inner = [c for c in rest if c.start < right.start and not is_generic(c.text)]
    after = [c for c in rest if c.start > right.start]
    parts = [f"in terms of {join(inner, question)}"] if inner else []
    if after:
        before = question[:after[0].start]
        lead = CONTEXT_PREPOSITION.search(before)
        verb = re.search(r"(\w+)\s+$", before)
        word = (lead.group(1).lower() if lead else
                "on" if verb and verb.group(1).lower() in PREDICATE_VERBS else "in")
        parts.append(f"{word} {join(after, question)}")
    return " ".join(parts)


OF_LINK = re.compile(r"^\s*(of(?:\s+the)?)\s*$", re.IGNORECASE)
FILLER_HEADS = frozenset(["role", "roles", "management", "use", "usage", "utility", "utilization",
                          "utilisation", "application", "applications", "importance"])
"""Words that, before "of", frame the concept rather than name one: "the role of gut
microbiota", "the management of osteoarthritis". Listed with the other concepts they read
as concepts of their own ("source, mesenchymal stem cells, management, osteoarthritis and
knee"); the concept they frame is said instead."""


def join(items: list[Concept], question: str) -> str:
    """Concepts as one readable phrase: qualifiers stay attached ("sickle cell disease in
    adults"), a complement stays with the concept it completes ("source of mesenchymal stem
    cells", "osteoarthritis of the knee"; a framing word before it goes: :data:`FILLER_HEADS`),
    alternatives keep their "or", the rest are listed with "and"."""
    groups: list[str] = []
    for i, concept in enumerate(items):
        link = between(question, items[i - 1], concept) if i else ""
        if i and (qualifier := QUALIFIER.match(link)):
            groups[-1] += f" {qualifier.group(1).lower()} {concept.text}"
        elif i and is_generic(items[i - 1].text.split()[-1]) and (
                complement := COMPLEMENT.match(_without_judging(link))):
            groups[-1] += f" {complement.group(1).lower()} {concept.text}"
        elif i and (of := OF_LINK.match(link)):
            groups[-1] = (concept.text if groups[-1].lower() in FILLER_HEADS
                          else f"{groups[-1]} {of.group(1).lower()} {concept.text}")
        elif i and ALTERNATIVE.match(link) and re.search(r"\bor\b", link, re.IGNORECASE):
            groups[-1] += f" or {concept.text}"
        elif i and ALTERNATIVE.match(link) and i + 1 < len(items) and re.search(
                r"\bor\b", between(question, concept, items[i + 1]), re.IGNORECASE):
            groups[-1] += f", {concept.text}"
        else:
            groups.append(concept.text)
    if len(groups) <= 1:
        return "".join(groups)
    return ", ".join(groups[:-1]) + " and " + groups[-1]


def _without_judging(link: str) -> str:
    """The words between two concepts without auxiliaries and judging words, so a general word
    keeps its complement across them ("materials are promising for batteries": "materials for
    batteries")."""
    return " ".join(word for word in link.split() if word.lower() not in AUXILIARIES
                    and not _judging(word.lower()))


def _judging(word: str) -> bool:
    """A judging word ("promising", "best"), not a verb form ("detecting" keeps its object)."""
    return word in PREDICATES and not any(word.startswith(verb) for verb in PREDICATE_VERBS)


def is_question(text: str) -> bool:
    """A question proper (rather than a topic such as "machine learning for surveillance")."""
    first = text.split()[0].lower() if text.split() else ""
    return text.rstrip().endswith("?") or first in QUESTION_OPENERS


FINITE_VERB = re.compile(
    r"\b(?:is|are|was|were|has|have|had|can|cannot|does|do|did|doesn't|don't|isn't|aren't|"
    r"will|would|may|might|could|should|must)\b", re.IGNORECASE)
"""Auxiliaries and copulas: a sentence with one of them asserts something."""
STATING_VERBS = frozenset([
    "activate", "bind", "confer", "control", "deactivate", "encode", "enhance", "expand",
    "express", "form", "generate", "interact", "maintain", "recruit", "repress", "restore",
    "target",
])
"""Verbs of statements about mechanisms ("RTEL1 interacts with TRF2") beyond the predicates
questions put between their concepts."""
_ASSERTING = frozenset(f"{verb}{ending}" for verb in PREDICATE_VERBS | STATING_VERBS
                       for ending in ("s", "es", "d", "ed"))
"""Inflected predicates ("increases", "reduced"): a finite verb, not a noun ("test")."""
_VERB_BEFORE_OBJECT = re.compile(
    r"\b[a-z]{2,}[^\Wsiu]s\s+(?:the|a|an|its|their|this|these|those)\b")
"""A third-person verb before its object ("DUSP4 downregulation deactivates the Ras-ERK
pathway"): a plural noun is rarely followed by an article in a topic phrase."""


ATTRIBUTIVE_AFTER = frozenset([
    "a", "an", "the", "and", "or", "of", "with", "for", "in", "on", "by", "at", "from", "to",
    "its", "their", "this", "these", "those", "versus", "vs",
])
"""Words after which an inflected predicate qualifies a noun rather than asserting: "and
associated efficacy", "with reduced mortality", "the increases in" (a topic, a review's title);
"statins reduced mortality" has a noun before it and asserts."""


def asserts(text: str) -> bool:
    """Whether the text has a finite verb: an auxiliary, an inflected predicate ("increases",
    "reduced") that follows its subject (not the first word, nor after an article, conjunction
    or preposition: :data:`ATTRIBUTIVE_AFTER`), or a third-person verb before its object."""
    if FINITE_VERB.search(text) or _VERB_BEFORE_OBJECT.search(text):
        return True
    words = [word.lower() for word in re.findall(r"\w[\w-]*", text)]  # "JAM-A" is one word
    return any(_inflected(word) and i and words[i - 1] not in ATTRIBUTIVE_AFTER
               for i, word in enumerate(words))


def _inflected(word: str) -> bool:
    """An inflected predicate, also at the end of a hyphenated verb ("up-regulates"); a
    hyphenated participle ("cancer-associated", "TNF-induced") is an adjective."""
    last = word.rsplit("-", 1)[-1]
    return last in _ASSERTING and (last == word or not last.endswith("d"))


def is_claim(text: str) -> bool:
    """A statement to check ("A deficiency of folate increases blood levels of homocysteine.")
    rather than a question or a topic ("machine learning for public health surveillance").

    A claim is not a question and either ends as a sentence does, with a full stop, or has a
    finite verb (:func:`asserts`). A topic is a noun phrase: no full stop and no such verb.
    """
    stripped = text.strip()
    if not stripped or is_question(stripped) or IMPERATIVES.match(stripped):
        return False
    if stripped.endswith(".") and len(stripped.split()) >= 3:
        return True
    return asserts(stripped)


def claim_clause(claim: str) -> str:
    """A claim as a clause a sub-question can hold: "whether a deficiency of folate increases
    blood levels of homocysteine" (its first word lower-cased unless a name, its full stop
    gone)."""
    return f"whether {_lower_first(claim.strip().rstrip('.!; '))}"


def topic(question: str, leave_out: frozenset[str] = frozenset()) -> str:
    """What the question is about, as a noun phrase a template can hold.

    A topic typed as a phrase is kept as typed ("machine learning for public health
    surveillance"); a question becomes its concepts joined (``leave_out``: concepts made only of
    these words, such as "datasets" in a question asking which datasets exist).
    """
    text = question.strip().rstrip("?.! ")
    if not is_question(question):
        text = IMPERATIVES.sub("", text)
        while len(text.split()) > 1 and text.split()[-1].lower() in leave_out:
            text = text.rsplit(None, 1)[0]
        text = _lower_first(text)
        return f"the {text}" if re.match(r"\w+ of\b", text) and text[:1].islower() else text
    kept = [c for c in concepts(question)
            if not set(c.text.lower().split()) <= leave_out] or concepts(question)
    return join(kept, question) or _lower_first(text)


WHAT_IS_THE = re.compile(r"^what\s+(?:is|are|was|were)\s+(?=(?:the|an?)\s)", re.IGNORECASE)
SECOND_QUESTION = re.compile(r"\b(?:how|what|why|which|whether|does|do|did)\b", re.IGNORECASE)


def asked_noun_phrase(question: str) -> str | None:
    """The noun phrase a "What is the ...?" question asks about, as typed: "What is the
    prevalence and impact of open access articles?" -> "the prevalence and impact of open access
    articles". Its concepts joined would read "prevalence and open access articles" ("impact" is
    a generic word), and "What are the risks and benefits of statins?" would read "risks,
    benefits and statins". None for any other question, or one asking a second question
    ("What is the effect of X, and how does it arise?")."""
    text = question.strip().rstrip("?.! ")
    found = WHAT_IS_THE.match(text)
    if found is None:
        return None
    phrase = text[found.end():]
    if len(phrase.split()) < 2 or SECOND_QUESTION.search(phrase) or "?" in phrase:
        return None
    return phrase


ASKED_ABOUT = re.compile(
    r"^what\s+(?:is|was)\s+(?:currently\s+)?known\s+about\s+|"
    r"^what\s+(?:do|does|did|can)\s+(?:we|studies|research|the\s+literature|the\s+evidence|"
    r"trials|the\s+data)\s+(?:know|say|show|tell\s+us|report|learn)\s+(?:about|on|from)\s+|"
    r"^(?:which|what)\s+(?P<asked>mechanisms?|pathways?|processes)\s+(?:underlie|underlies|"
    r"explain|explains|drive|drives|govern|governs|mediate|mediates|cause|causes)\s+",
    re.IGNORECASE)
"""Openings that ask about what follows them, as typed: "What is known about the use of honey
for wound healing?", "What mechanisms underlie insulin resistance in obesity?". Read as
concepts, the verb joined them ("know, honey and wound healing"; "mechanisms underlie insulin
resistance in obesity", "underlie" being no verb the concepts break at)."""


def asked_about(question: str) -> str | None:
    """What a question opening on :data:`ASKED_ABOUT` asks about, as typed ("the use of honey
    for wound healing"); None for any other question, or one asking a second question."""
    text = question.strip().rstrip("?.! ")
    found = ASKED_ABOUT.match(text)
    if found is None:
        return None
    phrase = text[found.end():]
    if not phrase.split() or SECOND_QUESTION.search(phrase) or "?" in phrase:
        return None
    return _sentence_cased(phrase)


def asked_of(question: str) -> str | None:
    """What a "What mechanisms underlie X?" question asks for, as a noun phrase: "the
    mechanisms of insulin resistance in obesity" (the noun as typed: "pathways", "processes").
    Its first sub-question asks for them: it asked for "insulin resistance in obesity" alone.
    None for any other question (:func:`asked_about`)."""
    found = ASKED_ABOUT.match(question.strip())
    about = asked_about(question)
    if found is None or found.group("asked") is None or about is None:
        return None
    return f"the {found.group('asked').lower()} of {about}"


def _sentence_cased(phrase: str) -> str:
    """The phrase in sentence case: a title's capitals ("Defect Detection Methods") lower-cased
    except in names ("DNA", "COVID-19"); a phrase typed in sentence case keeps its own
    ("Wilson disease" stays), only its first word lower-cased."""
    words = phrase.split()
    long = [word for word in words if len(word) > 3]
    if long and sum(word[:1].isupper() for word in long) * 2 > len(long):
        return " ".join(_sentence_case(word) for word in words)
    return _lower_first(phrase)


WHICH_OPENERS = frozenset(["which", "what"])
MAX_ASKED_NOUN_WORDS = 6
ASKED_VERBS = frozenset(["offer", "provide", "show", "yield", "achieve", "give"])
"""Verbs a "Which X ...?" question asks its things to do ("Which cathode materials offer the
highest capacity?") beyond :data:`~scholargraph.deterministic.text.PREDICATE_VERBS`."""
SUPERLATIVE_LEADS = frozenset(["most", "least", "the"])
"""Stop words that open a superlative a "Which X is ...?" question asks of its things: "Which
TiO2 polymorph is most stable?" is asked as "which TiO2 polymorph is most stable", where its
concepts joined read "TiO2 polymorph and stable". It stays an indirect question: "the
polymorph that is most stable" would presume the studies agree on one."""
IRREGULAR_PARTICIPLES = frozenset(["used", "known", "shown", "found", "made", "built", "done",
                                   "seen", "given", "taken", "chosen", "applied", "studied",
                                   "aged", "fed", "led", "bred"])
"""Participles after the copula of "Which X are ...?" besides those
:func:`~scholargraph.deterministic.text.past_participle` reads: irregular ones, and the short
ones in -ed it leaves out ("Which patients are aged over 65?")."""


def which_noun_phrase(question: str) -> str | None:
    """The things a "Which/What <things> ...?" question asks for, as a noun phrase: "Which
    methods are used to detect influenza outbreaks?" -> "the methods used to detect influenza
    outbreaks"; "What factors predict relapse after surgery?" -> "the factors that predict
    relapse after surgery". Joined as concepts they read "methods and influenza outbreaks", and
    what is asked of them (used to detect, predict) was lost. None when the words after the
    noun are neither a passive, a copula before an adjective, nor a verb of research questions
    (:data:`~scholargraph.deterministic.text.PREDICATE_VERBS`)."""
    text = question.strip().rstrip("?.! ")
    tokens = text.split()
    if len(tokens) < 4 or tokens[0].lower() not in WHICH_OPENERS or SECOND_QUESTION.search(
            " ".join(tokens[2:])) or "?" in text:
        return None
    for end in range(2, min(len(tokens) - 1, MAX_ASKED_NOUN_WORDS + 2)):
        if tokens[end - 1].lower() in stopwords() | PREDICATES:
            return None
        phrase = _asked_after(_lower_first(" ".join(tokens[1:end])), tokens[end:])
        if phrase:
            return phrase
    return None


def _asked_after(noun: str, tokens: list[str]) -> str | None:
    """The noun phrase of :func:`which_noun_phrase` when ``tokens`` go on with its verb."""
    verb = tokens[0].lower()
    if verb in ("has", "have") and len(tokens) > 2 and tokens[1].lower() == "been":
        verb, tokens = "are", tokens[1:]
    if verb in COPULAS:
        rest = tokens[1:]
        if len(rest) < 2 or (rest[0].lower() in stopwords()
                             and rest[0].lower() not in SUPERLATIVE_LEADS):
            return None
        if rest[0].lower() in SUPERLATIVE_LEADS:
            return " ".join(["which", noun, verb, *rest])  # asks which, presumes none is
        if past_participle(rest[0]) or rest[0].lower() in IRREGULAR_PARTICIPLES:
            return " ".join(["the", noun, *rest])
        return " ".join(["the", noun, "that", "is" if verb in ("is", "was") else "are", *rest])
    if (_base_verb(verb) in PREDICATE_VERBS | ASKED_VERBS) and len(tokens) > 1:
        return " ".join(["the", noun, "that", verb, *tokens[1:]])
    return None


def _base_verb(word: str) -> str:
    """A verb form back to the form :data:`PREDICATE_VERBS` lists ("predicts", "reduced")."""
    for ending, base in (("ies", "y"), ("es", ""), ("s", ""), ("ied", "y"), ("ed", ""),
                         ("d", "")):
        if word.endswith(ending) and (word[: len(word) - len(ending)] + base
                                      in PREDICATE_VERBS | ASKED_VERBS):
            return word[: len(word) - len(ending)] + base
    return word


def _lower_first(text: str) -> str:
    """The text with its first word lower-cased, unless that word is a name ("TiO2", "DNA")."""
    first, _, rest = text.partition(" ")
    return " ".join(filter(None, [_sentence_case(first), rest]))


def with_alternative(question: str, group: list[Concept], choice: Concept) -> str:
    """The question asking about one alternative of ``group`` only."""
    return question[:group[0].start] + choice.text + question[group[-1].end:]


LEADING_SETTING = re.compile(
    r"^\s*(?P<setting>(?:in|among|for)\s+[^,?]+?)\s*,\s*"
    r"(?=(?:does|do|did|is|are|was|were|can|could|should|will|would|may|might|has|have|how|why|"
    r"what|which)\b)", re.IGNORECASE)
"""A setting put before the question proper, as a PICO question opens on its population: "In
adults with type 2 diabetes, does metformin compared with sulfonylureas reduce cardiovascular
events?". It is no part of the subject: the question is read without it and the setting is
said last ("whether metformin ... reduces cardiovascular events in adults with type 2
diabetes")."""


def leading_setting(question: str) -> tuple[str, int] | None:
    """The setting a question opens on (:data:`LEADING_SETTING`), its first word lower-cased,
    and where the question proper starts; None when it opens on the question."""
    found = LEADING_SETTING.match(question)
    if found is None:
        return None
    return _lower_first(found.group("setting")), found.end()


def statement(question: str) -> str | None:
    """A yes/no or how/why question as a clause: "Does X cure Y?" -> "whether X cures Y",
    "How does X reduce Y?" -> "how X reduces Y", "How effective is X for Y?" -> "how
    effective X is for Y"; a setting the question opens on is said last
    (:func:`leading_setting`). A question typed in Title Case is said in sentence case
    ("whether the source of mesenchymal stem cell has an effect ..."). None when its verb
    cannot be found."""
    clause = _statement(question)
    return _sentence_cased(clause) if clause else None


def _statement(question: str) -> str | None:
    setting = leading_setting(question)
    if setting is not None:
        clause = _statement(question[setting[1]:])
        return f"{clause} {setting[0]}" if clause else None
    tokens = question.strip().rstrip("?.! ").split()
    if (how := _how_adjective(tokens)) is not None:
        return how
    lead = "whether"
    if len(tokens) > 2 and tokens[0].lower() in ("how", "why") and tokens[1].lower() in AUXILIARIES:
        lead, tokens = tokens[0].lower(), tokens[1:]
    if len(tokens) < 3 or tokens[0].lower() not in AUXILIARIES:
        return None
    auxiliary, rest = tokens[0].lower(), tokens[1:]
    if rest[0].lower() == "there":
        return " ".join([lead, "there", auxiliary, *rest[1:]])
    at = _predicate_at(rest, auxiliary)
    if at is None and auxiliary in ("does", "do", "did", *COPULAS) and _no_stop_words(rest[:-1]):
        at = len(rest) - 1  # "Why do large language models hallucinate?", "Is LiFePO4 stable?"
    if at is None or at == 0:
        return None
    subject = [_sentence_case(rest[0]), *rest[1:at]]
    if auxiliary in ("does", "do", "did"):
        inflect: dict[str, Callable[[str], str]] = {"does": third_person, "do": str, "did": past}
        verb = (HAVE_FORMS[auxiliary] if rest[at].lower() == "have"
                else inflect[auxiliary](rest[at].lower()))
        return " ".join([lead, *subject, verb, *rest[at + 1:]])
    while at > 1 and ly_adverb(rest[at - 1]):  # "is thermodynamically stable"
        at -= 1
        subject.pop()
    return " ".join([lead, *subject, auxiliary, *rest[at:]])


def _no_stop_words(words: list[str]) -> bool:
    """Whether a subject holds no stop word, a capital letter after a word being part of a
    name ("vitamin D", "hepatitis B"), not the stop word "d": "Is vitamin D deficiency
    common?" asks whether vitamin D deficiency is common, and was read as no clause at all."""
    return not any(word.lower() in stopwords() and not (i and re.fullmatch(r"[A-Z]", word))
                   for i, word in enumerate(words))


SUBJECT_ENDS = frozenset([
    "for", "in", "among", "at", "against", "during", "on", "compared", "versus", "vs", "vs.",
    "than", "when", "after", "before", "with", "without", "to", "as", "across", "within",
])
"""Words that close the subject of "How effective is X for Y?": the copula goes before them
("how effective X is for Y"). "of" is not among them: it continues the subject ("how accurate
is CT of the chest")."""


def _how_adjective(tokens: list[str]) -> str | None:
    """ "How <adjective> is/are X ...?" as a clause: "How effective is cognitive behavioural
    therapy for insomnia?" -> "how effective cognitive behavioural therapy is for insomnia".
    Read as a list of its nouns it asked about "cognitive behavioural therapy for insomnia"
    and lost what was asked of it (how effective). The subject ends before a word of
    :data:`SUBJECT_ENDS` or at a :func:`past_participle` closing a passive ("How often is sepsis
    missed ...?"), unless hyphenated or after a stop word: then it is an adjective
    ("TNF-induced", "a combined approach"). None for any other question, and for "How
    many/much ...", which asks for a count, and "How is X ...?"."""
    if len(tokens) < 4 or tokens[0].lower() != "how" or tokens[2].lower() not in COPULAS:
        return None
    adjective = tokens[1].lower()
    if adjective in ("many", "much") or adjective in stopwords() - {"well", "often", "long"}:
        return None
    rest = tokens[3:]
    end = _subject_end(rest, passive=_adverb(adjective))
    subject = [_sentence_case(rest[0]), *rest[1:end]]
    if subject[0].lower() in ("it", "there"):
        return None
    return " ".join(["how", adjective, *subject, tokens[2].lower(), *rest[end:]])


HOW_ADVERBS = frozenset(["often", "well", "long", "soon", "fast", "far"])
"""Adverbs "how" asks with besides those in -ly ("How often is sepsis missed ...?")."""


def _adverb(word: str) -> bool:
    """Whether the word after "how" is an adverb: it asks how a passive's act is done ("How
    often is sepsis missed?"), where an adjective asks of the subject ("How accurate is ...?")."""
    return word in HOW_ADVERBS or ly_adverb(word)


def _subject_end(rest: list[str], passive: bool) -> int:
    """Where the subject of "How <adjective or adverb> is <rest>" ends: before a word of
    :data:`SUBJECT_ENDS`; with an adverb (``passive``) also at the participle of the passive
    it asks about. After an adjective the copula is the verb, so a participle opens a reduced
    relative clause and the subject runs on through it and its preposition: "How accurate is
    machine learning trained on electronic health records for sepsis?" asks "how accurate
    machine learning trained on electronic health records is for sepsis", where it read "how
    accurate machine learning is trained on ..."."""
    after_participle = False
    for i, word in enumerate(rest[1:], 1):
        if word.lower().strip(",") in SUBJECT_ENDS and not after_participle:
            return i  # "compared" too: "how accurate CT is compared with MRI"
        after_participle = _closes_passive(word, rest[i - 1])
        if after_participle and passive:
            return i
    return len(rest)


HAVE_FORMS = {"does": "has", "do": "have", "did": "had"}
""""have" after do/does/did, inflected ("Does the source of stem cells have an effect on knee
osteoarthritis?" -> "whether the source of stem cells has an effect on ..."). It starts a
question's predicate ("have an effect", "have a role") though it is no verb a claim asserts
(:data:`~scholargraph.deterministic.text.PREDICATE_VERBS`): without it such a question had no
clause, and its sub-questions listed its nouns ("What do studies report on source,
mesenchymal stem cells, management, osteoarthritis and knee?")."""


MODAL_PREDICATE_STARTS = frozenset(["be", "have", "not", "still", "also"])
"""Words that start the predicate after a modal's subject: "How can diagnostic tests be
improved?" is "how diagnostic tests can be improved". Read as the predicate of a copula, at
its first judging word, it was "how diagnostic tests be can improved"."""


def _predicate_at(rest: list[str], auxiliary: str) -> int | None:
    """Where the predicate starts: the known verb (or "have") after do/does/did
    (:func:`_do_verb_at`); after a modal the first of :data:`MODAL_PREDICATE_STARTS`, a known
    verb, or a judging word; else the first judging word, comparative or article that does not
    continue the subject, or after a copula the participle of a passive
    (:func:`_closes_passive`). After do/does/did or a modal with no known verb, the verb no
    list names (:func:`~scholargraph.deterministic.text.asked_verbs`: "Does hair cortisol
    reflect ...")."""
    if auxiliary in HAVE_FORMS:
        at = _do_verb_at(rest)
        return at if at is not None else _unlisted_verb_at(rest, auxiliary)
    for i, token in enumerate(rest[1:], 1):
        word = token.lower().strip(",")
        if auxiliary in MODALS and (word in MODAL_PREDICATE_STARTS
                                      or word in PREDICATE_VERBS):
            return i
        if _starts_predicate(word, rest[i - 1]) or (
                auxiliary in COPULAS and _closes_passive(token, rest[i - 1])):
            return i
    if auxiliary in MODALS:
        return _unlisted_verb_at(rest, auxiliary)
    return None


def _do_verb_at(rest: list[str]) -> int | None:
    """Where the verb of "do/does/did <rest>" stands among the known ones (or "have"): the
    first that is no noun as well, else the last of those that are
    (:data:`~scholargraph.deterministic.text.NOUN_TOO`). "Does climate change drive
    migration?" holds two, and the first, "change", ends the noun "climate change": read as
    the verb, the question asked "whether climate changes drive migration"."""
    found = [i for i, token in enumerate(rest[1:], 1)
             if (word := token.lower().strip(",")) in PREDICATE_VERBS or word == "have"]
    verbs = [i for i in found if rest[i].lower().strip(",") not in NOUN_TOO]
    return verbs[0] if verbs else (found[-1] if found else None)


def _closes_passive(word: str, before: str) -> bool:
    """Whether ``word`` is a passive's participle after its subject ("How are systematic
    reviews conducted ...?": "how systematic reviews are conducted"): a regular one
    (:func:`past_participle`, not hyphenated: "TNF-induced" is an adjective) or one of
    :data:`IRREGULAR_PARTICIPLES`, after a word that is neither a stop word ("a combined
    approach") nor an adverb in -ly ("Is genetically modified food safe?")."""
    lower, before = word.lower().strip(","), before.lower()
    return ((past_participle(lower) and "-" not in lower) or lower in IRREGULAR_PARTICIPLES) \
        and before not in stopwords() and not ly_adverb(before)


def _unlisted_verb_at(rest: list[str], auxiliary: str) -> int | None:
    """Which word of ``rest`` is the verb of the question "<auxiliary> <rest>" that no list
    names (:func:`~scholargraph.deterministic.text.asked_verbs`), if any."""
    text = " ".join([auxiliary, *rest])
    starts = {start for start, _ in asked_verbs(text)}
    offset = len(auxiliary) + 1
    for i, token in enumerate(rest):
        if offset in starts:
            return i
        offset += len(token) + 1
    return None


def _starts_predicate(word: str, before: str) -> bool:
    if word in PREDICATES or word in ("more", "less", "associated", "linked", "related"):
        return True
    return word in ("a", "an", "the") and before.lower() not in stopwords()


def _sentence_case(token: str) -> str:
    return token if re.search(r"[A-Z]|\d", token[1:]) else token.lower()


def third_person(verb: str) -> str:
    if verb.endswith(("s", "x", "z", "ch", "sh", "o")):
        return verb + "es"
    if re.search(r"[^aeiou]y$", verb):
        return verb[:-1] + "ies"
    return verb + "s"


def past(verb: str) -> str:
    if verb.endswith("e"):
        return verb + "d"
    if re.search(r"[^aeiou]y$", verb):
        return verb[:-1] + "ied"
    return verb + "ed"


def stance_claim(question: str) -> str | None:
    """The claim each included study is read against: a claim as typed, or the claim a yes/no
    question asks about ("Does erlotinib improve survival in NSCLC?" is read as "Erlotinib
    improves survival in NSCLC."), so a reader asking a question also learns which way each
    study points. Only the reading changes: which works a question's review includes is
    decided as for any question. None for other questions and topics (what, how, which)."""
    if is_claim(question):
        return question
    asked = yes_no_clause(question)
    return f"{asked[:1].upper()}{asked[1:]}." if asked else None


def yes_no_clause(question: str) -> str | None:
    """What a yes/no question asks, as a clause without its "whether" ("Does X have an effect
    on Y?" -> "X has an effect on Y"); None for a claim, a topic or any other question. The
    claim its studies are read against (:func:`stance_claim`), its sub-questions and its
    balance line all say it from here."""
    clause = statement(question) if is_question(question) and not is_claim(question) else None
    if clause is None or not clause.startswith("whether "):
        return None
    return clause.removeprefix("whether ")


CLAUSE_LEADS = ("whether ", "how ", "why ", "which ")


def asked(question: str) -> str:
    """What the question asks, as the object of "asks", so that a review can say which question
    it answers as it read it: "whether hair cortisol reflects long-term stress", "how diagnostic
    tests can be improved", "about the mechanisms of insulin resistance in obesity", "about
    machine learning for public health surveillance" (a topic as typed)."""
    if is_claim(question):
        return claim_clause(question)
    phrase = (statement(question) or asked_of(question) or asked_noun_phrase(question)
              or asked_about(question) or which_noun_phrase(question) or topic(question))
    return phrase if phrase.startswith(CLAUSE_LEADS) else f"about {phrase}"
