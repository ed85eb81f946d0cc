"""Small text tools the deterministic engine reasons with: words, key phrases, years, formulas.

They are deliberately plain (regular expressions and a stop-word list) so that the same question
always gives the same plan and queries, and a scientist can predict what will be searched.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

QUESTION_WORDS = frozenset(
    ["what", "which", "who", "whom", "whose", "when", "where", "why", "how", "does", "do", "did",
     "is", "are", "was", "were", "can", "could", "should", "would", "will", "may", "might", "there",
     "their", "its", "it", "this", "that", "these", "those", "about", "regarding", "between",
     "among", "versus", "vs", "compared", "compare", "comparison", "effect", "effects", "role",
     "impact", "known", "evidence", "literature", "review", "studies", "study", "research",
     "current", "recent", "state", "art", "latest", "approach", "approaches", "use", "used",
     "using", "based", "new", "novel", "recent", "years", "year", "since", "after", "before",
     "until", "from", "during", "last", "past", "according", "report", "reported", "show", "shown",
     "find", "found", "give", "list", "explain", "describe"]
)
_OWN_STOPWORDS = frozenset(
    ["a", "an", "and", "or", "of", "the", "in", "on", "for", "to", "with", "by", "at", "as", "be",
     "been", "being", "than", "then", "also", "into", "over", "under", "such", "any", "all", "each",
     "other", "more", "most", "less", "least", "very", "much", "many", "some", "no", "not", "only",
     "own", "same", "so", "too", "just", "e.g", "i.e", "etc"]
)


@cache
def stopwords() -> frozenset[str]:
    """bm25s's extended English stop words and a few of our own.

    Read on first use: ``bm25s`` imports SciPy and NumPy with it (about a second), which loading
    the graph (LangGraph Studio, ``scholargraph --help``) need not pay."""
    from bm25s.stopwords import STOPWORDS_EN_PLUS

    return frozenset(STOPWORDS_EN_PLUS) | _OWN_STOPWORDS
_BREAKS = re.compile("\r\n?|[\x0b\x0c\x1c-\x1e\x85]")
"""Line and page breaks other than '\\n' (carriage returns, form feeds, vertical tabs)."""
_UNWANTED = re.compile("[\x00-\x08\x0e-\x1b\x1f\x7f-\x84\x86-\x9f\u00ad\u200b\u2060\ufeff\ufffe]")
"""The other C0 and C1 control characters, and the invisible format characters that split a
word (soft hyphen, zero-width space, word joiner, byte-order marks; zero-width joiners, which
some scripts need, are kept)."""


_MOJIBAKE = re.compile(
    "[\u00c2-\u00f4][\u0080-\u00bf\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192\u02c6"
    "\u02dc\u2013\u2014\u2018-\u201e\u2020-\u2022\u2026\u2030\u2039\u203a\u20ac\u2122]")
"""A character that starts a UTF-8 sequence read as Windows-1252 or Latin-1, followed by one
that continues it ('\u00e2\u20ac\u0153' for a left double quote): the mark of mojibake, checked
before asking ftfy, whose own check would also read Crossref's lone sorting marks as text."""


def clean_text(text: str) -> str:
    """``text`` without mojibake, control characters and invisible format characters.

    Sources pass through bytes no reader should see: Crossref's sorting marks around a
    journal's article ('\\x98The \\x9cLancet. Digital health'), a stray NUL or form feed from a
    PDF, a zero-width space inside a word, and UTF-8 that went through a Windows-1252 decoder on
    its way into OpenAlex ('leading to \u00e2\u20ac\u0153advanced chess\u00e2\u20ac\\x9d'). The
    mojibake is decoded back by ftfy first, while its last byte (a C1 character) is still there;
    then line breaks and tabs are kept (full text keeps its layout), other line and page breaks
    become line breaks, and every other C0 and C1 control character is dropped.
    """
    if _MOJIBAKE.search(text):
        import ftfy  # rarely needed, and slow to import

        text = ftfy.fix_encoding(text)
    if text.isprintable():
        return text
    return _UNWANTED.sub("", _BREAKS.sub("\n", text))


_LABEL = (r"(?:Crossref|CrossRef|PubMed|Scopus|Google Scholar|Web of Science|MEDLINE"
          r"|PMC free article|Full Text|View Article|Article Location|Free Full Text)")
_LINK_LABELS = re.compile(rf"\b{_LABEL}\b")
_LABEL_RUN = re.compile(
    rf"(?:\d|\b){_LABEL}\s*(?:\(\d+\)\s*)?{_LABEL}|\d{_LABEL}\b|{_LABEL}\d")
"""The link labels publishers' pages print after each entry of a reference list, run
together ('Crossref PubMed Scopus (2) Google Scholar') or glued to the pages before or the
number after them ('908-915Crossref', 'Google Scholar2.'); a sentence naming databases ('We
searched PubMed, Scopus and Google Scholar') has words or commas between them."""
_CITATION_DETAILS = re.compile(
    r"\b(?:19|20)\d{2}[a-z]?\s*[;,.]\s*\d{1,4}\s*(?:\(\s*[\w\s-]{1,12}\))?\s*:\s*[A-Za-z]?\d+"
    r"(?:\s*[-\u2013]\s*[A-Za-z]?\d+)?")
"""A citation's year; volume(issue): pages ('2021; 36: 908-915', '2019;17(3):e1002')."""
_AUTHOR_LIST = re.compile(r"(?:\b[A-Z][a-z'\-]+ [A-Z]{1,3},\s+){2,}")
"""A Vancouver author list ('Smith AB, Jones C, ...')."""
_AUTHOR_RUN = re.compile(r"(?:(?:\b|(?<=\d))[A-Z][a-z'\-]+ [A-Z]{1,3}\b,?\s*){3,}")
"""Three authors with their initials in a row, with or without commas ('Cartus AR Li Y
Macmadu A'): a reference pasted into running text, never prose."""
_AUTHOR_PAIR = re.compile(r"[a-z'\-] [A-Z]{1,3}\b,?\s*[A-Z][a-z'\-]")
"""Two authors with their initials in a row: what every :data:`_AUTHOR_RUN` holds, searched
first as it is four times faster to search for."""
_REFERENCES_HEADING = re.compile(
    r"\b(?:References|REFERENCES|Bibliography|Literature Cited|Works Cited)\s*:?\s*"
    r"(?:1\b|\[1\]|1\.)")
"""The heading of a numbered reference list, as a page's text runs into it ('References1.')."""


SECTION_WORDS = (r"Background|Introduction|Objectives?|Aims?|Purpose|Context|Importance|"
                 r"Methods?|Design|Setting|Participants|Measurements|Results|Findings|"
                 r"Conclusions?|Interpretation|Discussion|Key Points|Highlights")
"""The labels of a structured abstract's sections, as a regular-expression alternation
('Key Points' and 'Highlights' open a journal's summary box run into the abstract)."""


def references_start(text: str) -> int | None:
    """Where a numbered reference list starts in ``text`` (a web page or a publisher's
    abstract field that carries the article's whole text), or None."""
    match = _REFERENCES_HEADING.search(text)
    return match.start() if match else None


def reference_debris(sentence: str) -> bool:
    """Whether a 'sentence' is part of a reference list or a run of citations rather than a
    statement: the link labels of a publisher's reference list run together ('2021; 36:
    908-915Crossref PubMed Scopus (2) Google Scholar'), a run of authors with initials, or a
    citation's year, volume and pages with a link label, an author list, a DOI or 'et al.'.
    Such text quoted as a finding says nothing."""
    if _LABEL_RUN.search(sentence) or (_AUTHOR_PAIR.search(sentence)
                                       and _AUTHOR_RUN.search(sentence)):
        return True
    if not _CITATION_DETAILS.search(sentence):
        return False
    return bool(_LINK_LABELS.search(sentence) or _AUTHOR_LIST.search(sentence)
                or re.search(r"\bdoi\b|\bet al\b", sentence, re.IGNORECASE))


FUNDING = re.compile(
    r"(?:[A-Z][\w.&'-]*,? (?:and |& )?){1,6}(?:\w+ )?(?:funded|sponsored|financed) (?:the|this) "
    r"(?:[\w-]+ )?(?:study|trial|work|research|analysis|project)\b"
    r"|(?:the|this) (?:study|trial|work|research|project) was (?:\w+ )?(?:partly |partially |"
    r"fully )?(?:funded|sponsored|financed|supported) (?:in part )?by\b"
    r"|(?:funding|funded by|sponsored by|supported by (?:grants?|the))\b", re.IGNORECASE)
"""Who paid for a study ("F Hoffmann-La Roche funded the study.", "Novo Nordisk and Sanofi
financed the REACH trial.", "This work was supported by grant ...", "Funded by the National
Institute for Health Research."): a record's funding line, not a finding, and no such line is
quoted (:func:`funding_line`). The one pattern of a funding line: the sentence splitter also
ends a sentence before one glued on after a name's letter ("... in haemophilia A.F
Hoffmann-La Roche funded the study", :func:`~scholargraph.rag.chunking.split_sentences`)
with this pattern, where it once had its own copy that disagreed ("and"/"&" between funders,
"financed")."""


def funding_line(sentence: str) -> bool:
    """Whether a sentence is a funding line (:data:`FUNDING`, matched at its start)."""
    return FUNDING.match(sentence.lstrip()) is not None


_LICENCE_NOTICE = re.compile(
    r"\bthis is an? open[- ]access (?:article|publication|paper)\b"
    r"|\bopen[- ]access this (?:article|chapter|book) is\b"
    r"|\bthis (?:open[- ]access )?(?:article|work|paper|chapter|book) is (?:an open[- ]access "
    r"article )?(?:distributed|licen[cs]ed|published|made available|available) under\b"
    r"|\b(?:which )?permits unrestricted\b"
    r"|\bprovided the original (?:work|article|author\(?s?\)? and source) (?:is|are) "
    r"(?:properly |appropriately )?(?:cited|credited)"
    r"|\ball rights reserved\b|\blicensee\b|creativecommons\.org"
    r"|\u00a9|\(c\)\s*(?:19|20)\d\d|\bcopyright\s*(?:\(c\)\s*)?(?:19|20)\d\d",
    re.IGNORECASE)
"""A licence or copyright notice: what the publisher prints under every article it licenses
("This is an open access article distributed under the terms of the Creative Commons
Attribution License, which permits unrestricted use ...", "\u00a9 2021 Elsevier Ltd. All rights
reserved.", "Licensee MDPI"). It says how the record may be copied, not what the work is about:
a record whose notice names "open access article" does not address open access articles. A
study's own sentence about licences ("40% of the articles were distributed under a CC BY
licence") names no *this* article and no notice formula, and stays a statement."""
_PAGE_FURNITURE = re.compile(
    r"Full[- ]Text PDF|\bPDF/EPUB\b|Search for more papers by this author|Download Citations?"
    r"|Track Citations|Add to favou?rites|Back To Publication|Share\s*on\s*Facebook"
    r"|E-mail Address:|Address correspondence to\b|View in article|Open in new tab",
    re.IGNORECASE)
"""The links and labels of a publisher's web page around the article ("Full-Text PDF Open
Access" after each related article, "Search for more papers by this author", "Download
Citations", the correspondence address): OpenAlex rebuilds some abstracts from landing pages,
and these labels then read as sentences of the abstract."""


_PUBLISHER_NOTICE = re.compile(
    r"\b(?:this|the present) (?:article|paper|manuscript|chapter|letter|editorial|commentary|"
    r"contribution|submission) (?:was|has been|had been|is|will be) (?:\w+ly )?(?:transferred|"
    r"accepted|submitted|received|revised|handled|edited|commissioned|(?:externally )?"
    r"peer[- ]reviewed|retracted|withdrawn|corrected|republished|reprinted|migrated|"
    r"part of (?:a|the) (?:special |theme |themed )?(?:issue|supplement|collection|series))\b"
    r"|\b(?:handling|academic|guest) editor\b|\bcommunicated by\b"
    r"|\b(?:an? )?(?:erratum|corrigendum|correction) (?:to|for|of) this (?:article|paper)\b"
    r"|\bthis is (?:the|an) (?:author'?s'? )?(?:accepted|peer[- ]reviewed|final|submitted) "
    r"(?:manuscript|version)\b", re.IGNORECASE)
"""A publisher's or an editor's announcement about the record ("This article was transferred
from Journal X to Journal Y.", "This paper was accepted by the editors on 3 May 2020.",
"Handling editor: ...", "This article is part of a special issue on ..."): how the paper
travelled through a journal, not what the work found. The work's own verbs are not there:
"This paper presents ..." and "This study was accepted by the ethics board" are statements."""
_PUBLISHER_WORDS = ("this ", "the present ", "editor", "communicated", "erratum", "corrigendum",
                    "correction")
"""Words every match of :data:`_PUBLISHER_NOTICE` holds, lower case, looked for first."""


_LICENCE_WORDS = ("open access", "open-access", "under", "permits", "provided the original",
                  "rights reserved", "licensee", "creativecommons", "\u00a9", "(c)", "copyright")
_FURNITURE_WORDS = ("pdf", "search for more papers", "citation", "favo", "back to publication",
                    "facebook", "e-mail address", "address correspondence", "view in article",
                    "open in new tab")
"""Words every match of :data:`_LICENCE_NOTICE` (and of :data:`_PAGE_FURNITURE`) holds, lower
case: looked for first, as plain text, so that the patterns are searched only in the few
sentences holding one (screening reads every sentence of a library of thousands)."""


def licence_notice(sentence: str) -> bool:
    """Whether a sentence is a licence or copyright notice (:data:`_LICENCE_NOTICE`)."""
    lower = sentence.lower()
    return (any(word in lower for word in _LICENCE_WORDS)
            and bool(_LICENCE_NOTICE.search(sentence)))


def page_furniture(sentence: str) -> bool:
    """Whether a 'sentence' holds a web page's links and labels (:data:`_PAGE_FURNITURE`)."""
    lower = sentence.lower()
    return (any(word in lower for word in _FURNITURE_WORDS)
            and bool(_PAGE_FURNITURE.search(sentence)))


def publisher_notice(sentence: str) -> bool:
    """Whether a sentence is a publisher's or an editor's announcement about the record
    (:data:`_PUBLISHER_NOTICE`)."""
    lower = sentence.lower()
    return (any(word in lower for word in _PUBLISHER_WORDS)
            and bool(_PUBLISHER_NOTICE.search(sentence)))


def not_a_statement(sentence: str) -> bool:
    """Whether a 'sentence' of a record's text says nothing of the work: reference-list debris
    (:func:`reference_debris`), a licence or copyright notice (:func:`licence_notice`), a
    publisher's announcement (:func:`publisher_notice`) or a web page's furniture
    (:func:`page_furniture`). Neither screened nor quoted."""
    return (reference_debris(sentence) or licence_notice(sentence) or publisher_notice(sentence)
            or page_furniture(sentence))


_JOINED = re.compile(r"(?<![A-Za-z])([a-z]{2,})([A-Z][a-z]{2,})")
"""A lower-case word run into a capitalised one with no space ('bias-freeOrganize')."""
JOINS_IN_LAYOUT = 2
COMMON_ZIPF = 3.0
"""Joins that make a 'sentence' layout debris rather than prose (see :func:`run_together`), and
how common (wordfreq Zipf) each part must be to count: everyday words, not names."""


def run_together(sentence: str) -> bool:
    """Whether a 'sentence' is table cells, list items or headings whose spaces were lost
    ('...not bias-freeOrganize in a purpose-built wayPrioritize news databases...'): two or more
    places where a common word runs into a capitalised common word. Names written that way
    ('PubMed', 'eHealth', 'McDonald') do not count: the lower-case part must be a whole word
    of its own, and both parts common English words."""
    joins = 0
    for match in _JOINED.finditer(sentence):
        left, right = match.group(1), match.group(2).lower()
        if commonness(left) >= COMMON_ZIPF and commonness(right) >= COMMON_ZIPF:
            joins += 1
    return joins >= JOINS_IN_LAYOUT


_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9\-+/.']*[A-Za-z0-9+]|[A-Za-z0-9]")


def words(text: str) -> list[str]:
    """Word tokens in their original case (hyphenated terms and formulas kept whole; a
    typographic apostrophe read as "'": :data:`APOSTROPHES`)."""
    return _WORD.findall(text.translate(APOSTROPHES))


def content_words(text: str) -> list[str]:
    """Lower-cased words that carry meaning: no stop words, question words or bare numbers."""
    stop = stopwords()
    return [
        token.lower() for token in words(text)
        if token.lower() not in stop and token.lower() not in QUESTION_WORDS
        and not token.isdigit() and len(token) > 1
    ]


PREDICATE_VERBS = frozenset([
    "accelerate", "affect", "alleviate", "alter", "assess", "associate", "benefit", "block",
    "cause", "change", "compare", "contribute", "correlate", "cure", "decrease", "depend",
    "detect", "determine", "differ", "diminish", "drive", "elevate", "enable", "enhance",
    "estimate", "evaluate", "exacerbate", "exist", "explain", "harm", "help", "identify",
    "impair", "improve", "increase", "induce", "influence", "inhibit", "lead", "lengthen",
    "limit", "link", "lower", "measure", "mediate", "mitigate", "modulate", "outperform",
    "perform", "predict", "prevent", "prolong", "promote", "protect", "quit", "raise", "reduce",
    "regulate", "relate", "require", "shape", "shorten", "slow", "stop", "suppress", "test",
    "treat", "trigger", "vary", "work", "worsen",
])
"""Verbs that research questions put between their concepts ("Does X cure Y?")."""

NOUN_TOO = frozenset(["test", "lower", "raise", "change", "work", "lead", "harm", "block",
                       "limit", "drive", "shape", "benefit"])
"""Of those, the ones that are as often part of a term ("climate change", "lead exposure")."""

VERB_PREDICATES = frozenset(
    f"{word}{ending}"
    for word in PREDICATE_VERBS - NOUN_TOO
    for ending in ("", "s", "es", "d", "ed", "ing")
) | frozenset(["find", "finds", "show", "shows"])
"""The verb forms among :data:`PREDICATES` ("reduces", "detecting", "finds")."""

JUDGING_ADJECTIVES = frozenset([
    "better", "worse", "best", "worst", "effective", "efficacious", "superior", "inferior",
    "safe", "safer", "safest", "useful", "beneficial", "harmful", "accurate", "reliable",
    "possible", "important", "efficient", "preferable", "promising", "highest", "lowest",
    "greatest", "largest", "smallest", "strongest", "weakest", "optimal", "ideal", "suitable",
])
"""The words by which a question judges what it asks about ("How accurate is ...", "Is X
safe?"), never a noun: what the question asks of a record, not a concept a record must name
(:mod:`scholargraph.screening.relevance`)."""

PREDICATES = VERB_PREDICATES | JUDGING_ADJECTIVES | frozenset([
    "likely", "true", "good", "bad", "key", "main", "versus", "vs", "than", "whether",
    "really", "test", "tested", "offer", "offers", "offered",
])
"""Verbs and judging words of research questions. They join the concepts, they are not one, so
a phrase breaks at them: "intermittent fasting improve insulin sensitivity" is two concepts.
"tests" is no longer among them: a question names "diagnostic tests" far more often than it
asks what something tests, and "How can diagnostic tests be improved?" was read as about
"diagnostic" alone."""

PREPOSITIONS = frozenset([
    "within", "upon", "via", "toward", "towards", "across", "throughout", "despite", "amid",
    "per", "beyond", "without", "along", "onto", "unlike", "except", "due", "whereas",
    "although", "though", "unless",
])
"""Prepositions and conjunctions the stop-word list lacks: they relate concepts and never
belong to one ("cell types within atherosclerotic lesions" is two concepts, "cell types" and
"atherosclerotic lesions")."""

GENERIC_TERMS = frozenset([
    "adult", "adults", "child", "children", "patient", "patients", "people", "person", "persons",
    "human", "humans", "individual", "individuals", "subject", "subjects", "participant",
    "participants", "women", "men", "woman", "man", "mice", "mouse", "rat", "rats", "animal",
    "animals", "population", "populations", "outcome", "outcomes", "risk", "risks", "factor",
    "factors", "system", "systems", "type", "types", "level", "levels", "treatment",
    "treatments", "therapy", "association", "associations", "relationship", "change", "changes",
    "development", "performance", "quality", "method", "models", "model", "application",
    "applications", "analysis", "data", "impact", "effect", "effects", "work", "works", "role",
    "health", "disease", "diseases", "cell", "cells", "rate", "rates", "time", "problem",
    "problems", "way", "ways", "value", "values", "property", "properties", "result", "results",
    "veterans", "elderly", "infants", "newborns", "adolescents", "students", "workers",
    "smokers", "users", "volunteers", "residents", "cohort", "cohorts", "group", "groups",
    "material", "materials", "methods", "approach", "approaches", "strategy", "strategies",
    "technique", "techniques", "challenge", "challenges", "advance", "advances", "option",
    "options", "tool", "tools", "drug", "drugs", "intervention", "interventions",
])
"""Words too general to be searched on their own ("adults", "risk"): a search for one of them
alone returns anything. They still qualify the other concepts."""

MAX_PHRASE_WORDS = 6
"""Longer runs keep their last words: an English noun phrase ends with its head."""


APOSTROPHES = str.maketrans({"\u2019": "'", "\u02bc": "'"})
"""The typographic apostrophes a question may hold ("Wilson\u2019s disease", as a word processor
or a phone writes it), read as the plain one: each is one character, so offsets into the text
stay right. Read as punctuation, "Wilson\u2019s disease" was two concepts, "wilson" and
"disease"."""


def _tokens(text: str) -> list[tuple[str, int, int]]:
    """Word and punctuation tokens with their offsets, a typographic apostrophe read as "'"."""
    plain = text.translate(APOSTROPHES)
    return [(m.group(), m.start(), m.end())
            for m in re.finditer(r"[A-Za-z0-9][A-Za-z0-9\-+/']*|[^\sA-Za-z0-9]", plain)]


def phrase_spans(text: str) -> list[tuple[str, int, int]]:
    """The question's concepts in order: (phrase, start, end) of each run of content words.

    Stop words, question words, predicates and punctuation end a run, and so does the verb of
    a clause that no list names (:func:`asked_verbs`) or a word that relates the concepts
    (:func:`relation_words`: a passive's participle); a number joins a run only between two
    content words ("type 2 diabetes"), a capital letter only after one ("vitamin D").
    Acronyms and formulas keep their case.
    """
    tokens = _tokens(text)
    kinds = _kinds(tokens)
    _break_at_joining_words(tokens, kinds)
    runs: list[list[int]] = [[]]
    for i, kind in enumerate(kinds):
        if kind == "content":
            runs[-1].append(i)
        elif runs[-1]:
            runs.append([])
    spans = []
    for run in (r[-MAX_PHRASE_WORDS:] for r in runs if r):
        phrase = " ".join(_cased(tokens[i][0]) for i in run)
        spans.append((phrase, tokens[run[0]][1], tokens[run[-1]][2]))
    return spans


CLAUSE_OPENERS = frozenset(["does", "do", "did", "whether"])
"""Words a clause's subject follows, its verb then coming after the subject ("Does hair cortisol
reflect ...", "whether hair cortisol reflects ...")."""
MODALS = frozenset(["can", "could", "should", "will", "would", "may", "might", "must"])
LEADING_OPENERS = MODALS | {"what", "which"}
"""Words that open a clause the same way where they open the question ("What mechanisms
underlie ...", "Can hair cortisol reflect ...", "How can ..."): elsewhere "may" or "will"
follows its subject ("whether X can reflect Y"), and the verb after it is the clause's."""
VERB_FORMS_MARGIN = 0.4
VERB_FORMS_MIN = 3.0
"""How much rarer (wordfreq Zipf) than a word its commonest -ed or -ing form may be for the word
to read as a verb, and how common that form must be: "reflect" 4.39 and "reflected" 4.12,
"underlie" 2.68 and "underlying" 4.17, "impair" 2.93 and "impaired" 3.68 read as verbs; "hair"
5.08 and "haired" 3.70, "weight" 5.02 and "weighted" 3.68, "stress" 4.73 and "stressed" 4.18,
"fish" 4.90 and "fishing" 4.47 do not, nor "cortisol" or "growth", which have no such form."""


def reads_as_verb(word: str, margin: float = VERB_FORMS_MARGIN) -> bool:
    """Whether a word (base form, or third person: "reflects") is used in English as a verb at
    least about as often as otherwise: its past or -ing form is about as common as the word
    itself (``margin``, :data:`VERB_FORMS_MARGIN` unless the place of the word makes a verb
    likelier). A question's verb need not be one :data:`PREDICATE_VERBS` lists ("Does hair
    cortisol reflect long-term stress?")."""
    lower = word.lower()
    if not lower.isalpha() or lower in stopwords() or lower in QUESTION_WORDS:
        return False
    return any(_verb_base(base, margin) for base in _bases(lower))


def _bases(word: str) -> list[str]:
    """The word and, for a third-person form, the base forms it may come from."""
    bases = [word]
    if word.endswith("ies"):
        bases.append(word[:-3] + "y")
    if word.endswith("es"):
        bases.append(word[:-2])
    if word.endswith("s") and not word.endswith("ss"):
        bases.append(word[:-1])
    return bases


def _verb_base(word: str, margin: float) -> bool:
    """Whether a base form reads as a verb by its -ed and -ing forms (:func:`reads_as_verb`)."""
    if word in PREDICATE_VERBS - NOUN_TOO:
        return True
    best = max(commonness(form) for form in _verb_forms(word))
    return best >= VERB_FORMS_MIN and best >= commonness(word) - margin


def _verb_forms(word: str) -> set[str]:
    """The regular -ed and -ing forms a base form may take ("underlie": "underlying")."""
    forms = {word + "ed", word + "ing"}
    if word.endswith("e"):
        forms |= {word + "d", word[:-1] + "ing"}
    if word.endswith("ie"):
        forms.add(word[:-2] + "ying")
    if re.search(r"[^aeiou]y$", word):
        forms.add(word[:-1] + "ied")
    if re.search(r"[^aeiou][aeiou][^aeiouwxy]$", word):
        forms |= {word + word[-1] + "ed", word + word[-1] + "ing"}
    return forms


def _kinds(tokens: list[tuple[str, int, int]]) -> list[str]:
    """Each token's kind, "content" or "break", read in its place: a number or a bridging noun
    is content between two content words, a capital letter after one."""
    kinds = [_token_kind(token) for token, _, _ in tokens]
    for i, kind in enumerate(kinds):
        if kind == "number" and 0 < i < len(kinds) - 1:
            kinds[i] = "content" if kinds[i - 1] == kinds[i + 1] == "content" else "break"
        elif kind == "letter":
            kinds[i] = "content" if i and kinds[i - 1] == "content" else "break"
        elif tokens[i][0].lower() in BRIDGING_NOUNS and 0 < i < len(kinds) - 1:
            kinds[i] = "content" if kinds[i - 1] == kinds[i + 1] == "content" else kind
    return kinds


def asked_verbs(text: str) -> list[tuple[int, int]]:
    """Where (start, end) the verbs stand that no list names but the text's clauses put between
    their subject and object (:func:`_clause_verbs`): "reflect" in "Does hair cortisol reflect
    long-term stress?". Read as a word of a concept, it made the question one concept, "hair
    cortisol reflect long-term stress", searched as five words every record had to hold."""
    tokens = _tokens(text)
    found = _clause_verbs(tokens, _kinds(tokens))
    return [(tokens[i][1], tokens[i][2]) for i in found]


def _clause_verbs(tokens: list[tuple[str, int, int]], kinds: list[str]) -> list[int]:
    """The index of each clause's verb where it is a content word: after a clause opener
    (:data:`CLAUSE_OPENERS`), before the first predicate or punctuation, a word between two
    content words, or between a content word and its object's determiner, that reads as a verb
    (:func:`reads_as_verb`), the first one; else the last such word that is also a noun ("Does
    climate change drive migration?": "drive"). None where a listed predicate comes first: the
    run already breaks there. After a leading "what" or "which" the verb may come first, with
    the question word its subject (:func:`_verb_after_wh`: "What drives antimicrobial
    resistance?")."""
    found = []
    for i, (token, _, _) in enumerate(tokens):
        lower = token.lower()
        leading = i == 0 or (i == 1 and tokens[0][0].lower() in ("how", "why"))
        if lower not in CLAUSE_OPENERS and not (leading and lower in LEADING_OPENERS):
            continue
        verb = _clause_verb(tokens, kinds, i + 1)
        if verb is None and i == 0 and lower in WH_SUBJECTS:
            verb = _verb_after_wh(tokens, kinds, i + 1)
        if verb is not None:
            found.append(verb)
    return found


def _stated_verbs(tokens: list[tuple[str, int, int]], kinds: list[str]) -> list[int]:
    """The finite verbs a statement puts after its subject: in the third person, a word
    between a content word and its object that ends as a third person does and may be a verb
    (:func:`_third_person`, :func:`_can_be_verb`: "Obesity raises blood pressure.", "PrimPol
    generates short DNA replication intermediates."). A plural stands there too, as the
    subject of the verb after it ("structural features suggesting", "neutrophil traps act on
    platelets"): then the next word is a verb (:func:`_verb_follows`), the plural stays and
    the verb is that word where it is a base form (:func:`_plural_subjects_verb`)."""
    found = []
    for j, (token, _, _) in enumerate(tokens[:-1]):
        word = token.lower()
        if kinds[j] != "content" or not _third_person(word):
            continue
        if _verb_follows(tokens[j + 1][0]):
            if _plural_subjects_verb(tokens, kinds, j + 1):
                found.append(j + 1)
        elif (j > 0 and kinds[j - 1] == "content" and _opens_object(tokens, kinds, j + 1)
              and _can_be_verb(word)):
            found.append(j)
    return found


def _plural_subjects_verb(tokens: list[tuple[str, int, int]], kinds: list[str], i: int) -> bool:
    """Whether the word at ``i``, after a plural and read as its verb (:func:`_verb_follows`),
    is a base form that no rule breaks at yet and that more words follow ("act" in "traps act
    on platelets", "express" in "stem cells express CD34"); not a participle or "-ing" form,
    which may qualify the plural ("features suggesting"), nor the text's last word."""
    lower = tokens[i][0].lower()
    return (kinds[i] == "content" and i + 1 < len(tokens) and tokens[i + 1][0][:1].isalnum()
            and not _third_person(lower) and not lower.endswith(("ing", "ed")))


PLURAL_SUBJECT_MARGIN = 0.6
"""How much rarer than a word its commonest verb form may be for the word to read as the verb
of a plural subject before it (:func:`_verb_follows`): "act" 5.30 and "acting" 4.82 in
"neutrophil extracellular traps act indirectly"; "risk" 5.05 and "risked" 3.55 in "X lowers
risk" do not. Looser than :data:`VERB_FORMS_MARGIN`, as a plural and its verb are likelier
there than two verbs in a row."""


def _verb_follows(word: str) -> bool:
    """Whether the word after a plural that may be a verb is the verb of that plural as its
    subject: a listed predicate, a participle or "-ing" form, or a lower-case word that reads
    as a verb by :data:`PLURAL_SUBJECT_MARGIN` ("traps act"; "STING", a protein, is none)."""
    lower = word.lower()
    return (lower in PREDICATES or lower.endswith(("ing", "ed"))
            or (word.islower() and reads_as_verb(lower, PLURAL_SUBJECT_MARGIN)))


WH_SUBJECTS = frozenset(["what", "which"])
"""Question words that can be the subject of the question's verb ("What drives ...?")."""
DETERMINERS = frozenset(["a", "an", "the", "its", "their", "this", "these", "those", "his",
                         "her", "our"])
"""Words that open a noun phrase: after a subject, the word before one is the verb ("statins
lower the risk"), as a noun phrase runs on without one ("statin therapy")."""


def _can_be_verb(word: str) -> bool:
    """Whether a word may be a verb: it reads as one (:func:`reads_as_verb`) or is a listed
    verb that is also a noun (:data:`NOUN_TOO`: "lower", "drives"), whose position decides."""
    return any(base in NOUN_TOO for base in _bases(word.lower())) or reads_as_verb(word)


def _opens_object(tokens: list[tuple[str, int, int]], kinds: list[str], j: int) -> bool:
    """Whether the token at ``j`` can open the object of a verb before it: a content word or
    a determiner (:data:`DETERMINERS`)."""
    return j < len(tokens) and (kinds[j] == "content" or tokens[j][0].lower() in DETERMINERS)


def _verb_after_wh(tokens: list[tuple[str, int, int]], kinds: list[str], start: int
                   ) -> int | None:
    """The verb of "What <verb>s <object>?": the word right after the question word, in the
    third person ("drives", "limits") and able to be a verb (:func:`_can_be_verb`), before an
    object that is no verb itself. "What factors drive obesity?" has its subject there
    ("factors", then the verb "drive"), "What drives obesity?" its verb."""
    if start + 1 >= len(tokens) or kinds[start] != "content":
        return None
    word, following = tokens[start][0].lower(), tokens[start + 1][0].lower()
    if not (_third_person(word) and _can_be_verb(word)
            and _opens_object(tokens, kinds, start + 1)):
        return None
    return None if following in PREDICATES or _can_be_verb(following) else start


def _third_person(word: str) -> bool:
    """Whether a word ends as a verb's third person does ("drives", "limits"), not as "-ss",
    "-us" or "-is" ("stress", "virus", "sepsis")."""
    return word.endswith("s") and not word.endswith(("ss", "us", "is"))


def _clause_verb(tokens: list[tuple[str, int, int]], kinds: list[str], start: int
                 ) -> int | None:
    """The verb of the clause whose subject starts at ``start`` (:func:`_clause_verbs`). A
    word that may be a verb before a determiner is the verb whatever else it is: a noun
    phrase does not run on into "the" ("Do statins lower the risk of dementia?")."""
    nouns_too: list[int] = []
    for j in range(start, len(tokens)):
        lower = tokens[j][0].lower()
        if kinds[j] != "content":
            if lower in PREDICATES or not lower[:1].isalnum():
                break
            if lower in MODALS and kinds[j + 1:j + 3] == ["content", "content"] and j > start:
                return j + 1 if reads_as_verb(tokens[j + 1][0]) else None
            continue
        if not (j > start and kinds[j - 1] == "content" and _opens_object(tokens, kinds, j + 1)):
            continue
        if kinds[j + 1] != "content" and _can_be_verb(lower):
            return j
        if any(base in NOUN_TOO for base in _bases(lower)):
            nouns_too.append(j)
        elif reads_as_verb(lower):
            return j
    return nouns_too[-1] if nouns_too else None


BRIDGING_NOUNS = frozenset(["literature", "evidence", "research", "review", "study"])
"""Question words ("what does the literature say") that are part of a term between two content
words: "systematic literature reviews", "cancer research funding"."""
NOUNS_IN_ED = frozenset(["speed", "breed", "hundred", "seed", "feed", "need", "weed", "bleed"])
"""Nouns ending in -ed that can close a concept ("wind speed", "dog breed")."""


def past_participle(word: str) -> bool:
    """Whether a word reads as a regular past participle, the verb of a passive ("systematic
    reviews conducted", "How often is sepsis missed", "Which methods are proposed"): it ends in
    -ed, is longer than four letters ("red", "bed") and is no noun in -ed (:data:`NOUNS_IN_ED`:
    "wind speed"). The one reading of the participle that closes a concept's run
    (:func:`phrase_spans`), ends the subject of "How <adjective> is X ...?" and follows the
    copula of "Which X are ...?" (:mod:`scholargraph.deterministic.questions`)."""
    lower = word.lower()
    return len(lower) > 4 and lower.endswith("ed") and lower not in NOUNS_IN_ED


PASSIVE_AUXILIARIES = frozenset(["be", "been", "being"])
"""The forms of "be" a modal or perfect passive puts before its participle ("How should
depression be screened", "has been shown"): a participle alone after one is the verb."""


def relation_words(text: str) -> list[tuple[int, int]]:
    """Where (start, end) the words stand, in order, that relate the text's concepts without
    being one, beyond the listed predicates: the verbs :func:`asked_verbs` finds, a
    statement's verb after its subject (:func:`_stated_verbs`: "raises" in "Obesity raises
    blood pressure."), a passive's participle (:func:`_participle_verbs`: "conducted" in "How
    are systematic reviews conducted?", "screened" in "How should depression be screened in
    primary care?"), the adjective a yes/no question on a copula closes on
    (:func:`_copula_complement`: "stable" in "Is LiFePO4 stable?") and the adverbs that
    qualify a verb (:func:`_adverb_verbs`: "significantly" in "Can exercise significantly
    reduce depression?")."""
    tokens = _tokens(text)
    return [(tokens[i][1], tokens[i][2]) for i in _break_at_joining_words(tokens, _kinds(tokens))]


def verbs_and_adverbs(text: str) -> list[tuple[int, int]]:
    """Where (start, end) the verbs no list names and the adverbs qualifying a verb stand
    (:func:`_verbs_and_adverbs`): of :func:`relation_words`, those that are no word of a
    topic in any reading, so never searched for ("significantly" in "Exercise significantly
    reduces depression." was asked of every record by a claim's search); a participle or a
    copula's complement may be one ("randomized" in criteria naming randomized trials)."""
    tokens = _tokens(text)
    return [(tokens[i][1], tokens[i][2]) for i in _verbs_and_adverbs(tokens, _kinds(tokens))]


def _verbs_and_adverbs(tokens: list[tuple[str, int, int]], kinds: list[str]) -> list[int]:
    """Marks as breaks in ``kinds`` the clause and statement verbs, then the adverbs that
    qualify them or a listed predicate, with the verbs after such adverbs (:func:`_adverb_verbs`),
    and returns their indices in order."""
    verbs = sorted({*_clause_verbs(tokens, kinds), *_stated_verbs(tokens, kinds)})
    for i in verbs:
        kinds[i] = "break"
    adverbs = _adverb_verbs(tokens, kinds, set(verbs))
    for i in adverbs:
        kinds[i] = "break"
    return sorted({*verbs, *adverbs})


def _break_at_joining_words(tokens: list[tuple[str, int, int]], kinds: list[str]) -> list[int]:
    """Marks as breaks in ``kinds`` the words :func:`relation_words` names, and returns their
    indices in order: the verbs and adverbs first (:func:`_verbs_and_adverbs`), since a
    participle or a complement is read among the content words that remain."""
    verbs = _verbs_and_adverbs(tokens, kinds)
    related = {*_participle_verbs(tokens, kinds), *_copula_complement(tokens, kinds)}
    for i in related:
        kinds[i] = "break"
    return sorted({*verbs, *related})


COPULAS = frozenset(["is", "are", "was", "were"])
"""The forms of "be" a question opens on or asks with ("Is LiFePO4 stable?", "How accurate is
...?")."""


def ly_adverb(word: str) -> bool:
    """Whether a word reads as an adverb by its "-ly" ending ("thermodynamically stable",
    "genetically modified"): one that qualifies the word after it, rather than ending a noun
    phrase."""
    return word.lower().endswith("ly")


ADVERB_BASE_MARGIN = 0.5
"""How much rarer (wordfreq Zipf) than an "-ly" word the adjective it comes from may be for
the word to read as an adverb (:func:`reads_as_adverb`): "significant" 4.98 and
"significantly" 4.5, "predominant" 2.9 and "predominantly" 3.4 read as adverbs; "supple" 2.9
and "supply" 4.6, "assemble" 3.6 and "assembly" 4.4, "ear" 4.43 and "early" 5.5 do not."""


def reads_as_adverb(word: str) -> bool:
    """Whether a word is an adverb made of an adjective: it ends in "-ly" and the adjective
    it comes from ("significant", "strong", "dramatic", "happy", "simple") is about as common
    as it or more (:data:`ADVERB_BASE_MARGIN`), as it is not for nouns and adjectives in "-ly"
    ("family", "supply", "assembly", "early", "Italy"); and it is no verb ("apply")."""
    lower = word.lower()
    if not (ly_adverb(lower) and len(lower) > 4 and lower.isalpha()) or reads_as_verb(lower):
        return False
    adjectives = [base for base in {lower[:-2], lower[:-1] + "e", lower[:-3] + "y", lower[:-4]}
                  if len(base) >= 4]
    return any(commonness(base) >= commonness(lower) - ADVERB_BASE_MARGIN
               for base in adjectives)


def _adverb_verbs(tokens: list[tuple[str, int, int]], kinds: list[str], verbs: set[int]
                  ) -> list[int]:
    """The adverbs that qualify a verb (:func:`reads_as_adverb`), with the verbs after them
    that no rule found before (:func:`_adverb_and_verb`). Neither is a word of a concept:
    "Can exercise significantly reduce depression?" had the concept "exercise significantly",
    which no record names."""
    found = []
    for i, (token, _, _) in enumerate(tokens):
        if kinds[i] == "content" and reads_as_adverb(token):
            found += _adverb_and_verb(tokens, kinds, verbs, i)
    return found


def _adverb_and_verb(tokens: list[tuple[str, int, int]], kinds: list[str], verbs: set[int],
                     i: int) -> list[int]:
    """The adverb at ``i`` where it qualifies a verb: before a listed predicate or a clause
    verb (``verbs``: "significantly reduce", "strongly reflect") or right after one ("occurs
    infrequently"); and between a subject and a word that may be a verb before its object,
    with that word (:func:`_can_be_verb`: "Statins significantly lower LDL cholesterol.").
    After a preposition the adverb qualifies an adjective ("with significantly lower
    mortality") and stays."""
    def is_verb(j: int) -> bool:
        return 0 <= j < len(tokens) and kinds[j] != "content" and (
            tokens[j][0].lower() in VERB_PREDICATES or j in verbs)

    if is_verb(i + 1) or is_verb(i - 1):
        return [i]
    if (0 < i < len(tokens) - 1 and kinds[i - 1] == kinds[i + 1] == "content"
            and _can_be_verb(tokens[i + 1][0]) and _opens_object(tokens, kinds, i + 2)):
        return [i, i + 1]
    return []


def _copula_complement(tokens: list[tuple[str, int, int]], kinds: list[str]) -> list[int]:
    """The last word of a yes/no question on a copula whose other words are all content words
    ("Is LiFePO4 stable?"), with the adverbs before it ("thermodynamically stable"): the
    subject's complement, what is asked of it, not a word of its concept ("LiFePO4 stable")."""
    words = [i for i, (token, _, _) in enumerate(tokens) if token[:1].isalnum()]
    if (len(words) < 3 or words[0] != 0 or tokens[0][0].lower() not in COPULAS
            or any(kinds[i] != "content" for i in words[1:])):
        return []
    start = len(words) - 1
    while start > 2 and ly_adverb(tokens[words[start - 1]][0]):
        start -= 1
    return words[start:]


def _participle_verbs(tokens: list[tuple[str, int, int]], kinds: list[str]) -> list[int]:
    """The participles (:func:`past_participle`, not hyphenated: "TNF-induced" is an adjective)
    that close a run of content words: after a noun they are the question's verb or a reduced
    relative clause ("systematic reviews conducted", "patients exposed to radiation",
    "machine learning trained on ..."), alone after :data:`PASSIVE_AUXILIARIES` the passive's
    verb ("be screened"). After an adverb it is what the claim says ("are evolutionarily
    conserved") and stays. Of SciFact's 809 training claims, 22 had a concept closed by a
    participle or verb, 18 of them after a noun."""
    found = []
    for i, (token, _, _) in enumerate(tokens):
        if (kinds[i] != "content" or not past_participle(token) or "-" in token
                or (i + 1 < len(tokens) and kinds[i + 1] == "content") or i == 0):
            continue
        before = tokens[i - 1][0].lower()
        if kinds[i - 1] == "content" and not ly_adverb(before):
            found.append(i)
        elif kinds[i - 1] != "content" and before in PASSIVE_AUXILIARIES:
            found.append(i)
    return found


def _token_kind(token: str) -> str:
    lower = token.lower().split("'")[0]
    if not re.match(r"[A-Za-z0-9]", token):
        return "break"
    if lower.isdigit():
        return "number"
    if re.fullmatch(r"[A-Z]", token):
        return "letter"
    if lower in QUESTION_WORDS and token.isupper() and lower not in stopwords():
        return "content"  # an acronym: "ART" (antiretroviral therapy), not "art"
    if (lower in stopwords() or lower in QUESTION_WORDS or lower in PREDICATES
            or lower in PREPOSITIONS or len(token) < 2):
        return "break"
    return "content"


def _cased(token: str) -> str:
    return token if _keeps_case(token) or re.fullmatch(r"[A-Z]", token) else token.lower()


def is_generic(phrase: str) -> bool:
    """A one-word concept too general to search alone (see :data:`GENERIC_TERMS`)."""
    return " " not in phrase and phrase.lower() in GENERIC_TERMS


def key_phrases(text: str, limit: int = 6) -> list[str]:
    """Key phrases: the concepts of :func:`phrase_spans`, most specific first.

    Multi-word terms rank first (longest first: "public health surveillance" stays one term),
    then single words, and words too general to search alone ("adults") last; ties keep the
    order of the text.
    """
    phrases = list(dict.fromkeys(phrase for phrase, _, _ in phrase_spans(text)))
    ranked = sorted(phrases, key=lambda p: (is_generic(p), -min(len(p.split()), 3),
                                            phrases.index(p)))
    return ranked[:limit]


@lru_cache(maxsize=65536)
def commonness(word: str) -> float:
    """How common a word is in English, on wordfreq's Zipf scale (about 7 for "the", 3 for
    "homocysteine", 0 for a word it has never seen, such as a gene symbol like "HNF4A").

    The rarer a word, the more it says what a question is about: "HNF4A" and "diabetes" locate
    the evidence for "a mutation in HNF4A leads to diabetes", "leads" does not. The counts are
    wordfreq's own general-English data, shipped in its wheel, so nothing is downloaded
    (imported on first use: it takes a third of a second).
    """
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en")


def specific_words(text: str, limit: int | None = None) -> list[str]:
    """The distinct content words of ``text``, rarest (most specific) first; ties keep the order
    of the text. Acronyms and formulas keep their case, a possessive loses its "'s". Words
    starting with a digit ("40mg/day", "76-85") are values, not topics; predicates ("improves")
    join concepts rather than name one, and so do a verb no list names and an adverb
    qualifying a verb (:func:`verbs_and_adverbs`: "reflect" in "Does hair cortisol reflect
    long-term stress?", "significantly" in "Exercise significantly reduces depression.", which
    a claim's search asked every record for); words too general to search alone
    (:data:`GENERIC_TERMS`) come last."""
    found: dict[str, str] = {}
    verbs = {text[start:end].lower() for start, end in verbs_and_adverbs(text)}
    for token in words(text):
        word = re.sub(r"'s?$", "", token)
        if word[:1].isalpha() and _token_kind(word) == "content" and word.lower() not in verbs:
            found.setdefault(word.lower(), _cased(word))
    order = list(found)
    ranked = sorted(order, key=lambda w: (w in GENERIC_TERMS, commonness(w), order.index(w)))
    return [found[w] for w in ranked][:limit]


def _keeps_case(token: str) -> bool:
    """Acronyms, formulas and element symbols (``DNA``, ``TiO2``, ``Si``) keep their case;
    other words are lower-cased (a symbol that is also a word, "In", is a word here)."""
    return bool(re.search(r"[A-Z]|\d", token[1:])) or (
        len(token) == 2 and token in ELEMENTS and token not in SYMBOL_WORDS)


YEAR = r"(19[5-9]\d|20\d\d)"


def year_window(text: str, this_year: int) -> tuple[int | None, int | None]:
    """A publication window stated in the question ("since 2015", "2010-2020", "last 5 years")."""
    lowered = text.lower()
    if match := re.search(rf"(?:between|from)\s+{YEAR}\s+(?:and|to|-)\s+{YEAR}", lowered):
        return int(match.group(1)), int(match.group(2))
    if match := re.search(rf"\b{YEAR}\s*(?:-|–|to)\s*{YEAR}\b", lowered):
        return int(match.group(1)), int(match.group(2))
    if match := re.search(r"(?:last|past)\s+(\d{1,2}|five|ten|two|three)\s+years", lowered):
        number = {"two": 2, "three": 3, "five": 5, "ten": 10}.get(match.group(1))
        return this_year - (number or int(match.group(1))), None
    if match := re.search(rf"(?:since|after|from)\s+{YEAR}", lowered):
        return int(match.group(1)), None
    if match := re.search(rf"(?:before|until|up to)\s+{YEAR}", lowered):
        return None, int(match.group(1))
    return None, None


ELEMENTS = frozenset(
    ["H", "He", "Li", "Be", "B", "C", "N", "O", "F", "Ne", "Na", "Mg", "Al", "Si", "P", "S", "Cl",
     "Ar", "K", "Ca", "Sc", "Ti", "V", "Cr", "Mn", "Fe", "Co", "Ni", "Cu", "Zn", "Ga", "Ge", "As",
     "Se", "Br", "Kr", "Rb", "Sr", "Y", "Zr", "Nb", "Mo", "Tc", "Ru", "Rh", "Pd", "Ag", "Cd", "In",
     "Sn", "Sb", "Te", "I", "Xe", "Cs", "Ba", "La", "Ce", "Pr", "Nd", "Pm", "Sm", "Eu", "Gd", "Tb",
     "Dy", "Ho", "Er", "Tm", "Yb", "Lu", "Hf", "Ta", "W", "Re", "Os", "Ir", "Pt", "Au", "Hg", "Tl",
     "Pb", "Bi", "Po", "At", "Rn", "Fr", "Ra", "Ac", "Th", "Pa", "U", "Np", "Pu"]
)
SYMBOL_WORDS = frozenset(["In", "As", "At", "Be", "He", "No", "Re", "Pa", "Ho"])
"""Element symbols that are also English words: a material only where the text reads so
(:mod:`scholargraph.deterministic.material_names`); the others (``Si``, ``Ga``) always are."""
_FORMULA = re.compile(r"\b(?:[A-Z][a-z]?\d*(?:\.\d+)?){2,}\b|\b[A-Z][a-z]?\d+\b")


PLURAL_ACRONYM = re.compile(r"[A-Z]{2,}s")
"""Capitals and a closing "s": an acronym's plural ("HSCs", haematopoietic stem cells), not a
formula ending in caesium or osmium."""


def chemical_formulas(text: str) -> list[str]:
    """Tokens that parse as chemical formulas of real elements (``TiO2``, ``LiFePO4``, ``GaAs``).

    All-capital tokens without digits (``CNN``, ``DNA``) are acronyms far more often than formulas,
    and so are their plurals (``HSCs``, ``PCs``: :data:`PLURAL_ACRONYM`), whose "Cs" reads as
    caesium.
    """
    found = []
    for token in _FORMULA.findall(text):
        symbols = re.findall(r"[A-Z][a-z]?", token)
        has_digit = bool(re.search(r"\d", token))
        if not all(symbol in ELEMENTS for symbol in symbols) or PLURAL_ACRONYM.fullmatch(token):
            continue
        if (token.isupper() and not has_digit) or (len(symbols) < 2 and not has_digit):
            continue
        found.append(token)
    return list(dict.fromkeys(found))


METHOD_CUES = re.compile(
    r"\b(we (?:ha(?:ve|d) (?:also |further |then |first )?)?(?:used|analy[sz]ed|collected|"
    r"conducted|performed|developed|trained|"
    r"recruited|measured|applied|compared)|we (?:first |then |also |further )?(?:use|apply|"
    r"cluster|train|build|construct|design|implement|generate|collect|extract|employ|"
    r"leverage|adopt|combine|model|simulate)|data (?:from|were)|cohort|randomi[sz]ed|"
    r"participants|dataset\w*|sample of|retrospective\w*|prospective\w*|cross-sectional|"
    r"questionnaire\w*|algorithms?|model\w*|assay\w*|sequenc\w*|n ?=)\b"
    r"|\b(?:was|were) (?:\w+ly )?(?:determined|assessed|measured|recorded|collected|obtained|"
    r"evaluated|calculated|analy[sz]ed|quantified|estimated)\b(?! (?:to be|as|at)\b)"
    r"|\bwe (?:identified|included|enrolled|recruited) (?:a total of )?[\d,]+\b",
    re.IGNORECASE)
"""Cues of a sentence stating how a study was done: what was used, collected, measured or
trained, its design and its sample (extractive's ``FACET_CUES``, where the figures for them
are)."""
ASKS_METHODS = re.compile(r"\b(method\w*|data|design\w*|dataset\w*|benchmark\w*|sample\w*)\b",
                          re.IGNORECASE)
"""Words by which a sub-question asks for methods ("What methods and data have been used ...")."""
