"""The deterministic engine's review: quoted sentences chosen, ordered and set side by side.

For each sub-question the sentences of the passages the RAG filter kept are scored (BM25 against
the sub-question and the question's key terms, closeness in meaning when an embedder is given,
the kind of sentence the sub-question asks for — results, methods, limitations — and the rank of
the passage), the best few are picked by maximal marginal relevance, one per work, and quoted
verbatim with their offsets, oldest work first, as a review reads. A sentence of another work
saying nearly the same thing is cited beside it as corroboration. Sentences on the same
sub-question that point opposite ways (:mod:`scholargraph.deterministic.stance`) become
contradictions, shown with both quotes; the same direction, agreement. Limitations the sources
state are quoted too.

A work read in full is quoted for its own study: a sentence of its Introduction, or of its
Discussion or elsewhere reporting another study (a citation, no "we"/"the current study"), is
never a finding (:func:`others_statement`), and its abstract, methods, results and conclusions
are quoted on the subject its title names (:func:`rank_candidates`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import combinations, islice
from typing import NamedTuple

import numpy as np

from scholargraph.agents.schemas import Draft, Finding, FindingKind, Quote, SubQuestion
from scholargraph.deterministic.material_names import named_materials
from scholargraph.deterministic.relevance import (
    CONTEXT_MIN,
    NUMBERED,
    THIS_WORK,
    own_report,
    term_share,
    topic_terms,
    work_text,
)
from scholargraph.deterministic.stance import (
    DIRECTION_WORDS,
    THAN,
    Comparison,
    Stance,
    claim_subject,
    compare,
    spelled_out,
    stance,
    surface_terms,
)
from scholargraph.deterministic.text import (
    ASKS_METHODS,
    METHOD_CUES,
    SECTION_WORDS,
    funding_line,
    not_a_statement,
    run_together,
)
from scholargraph.exports.screening import label
from scholargraph.fulltext.legible import code_as_text, garbled, table_as_text
from scholargraph.rag.chunking import chunk_work, item_label_end, split_sentences
from scholargraph.rag.embeddings import Embedder, EmbeddingUnavailable
from scholargraph.rag.ranking import LexicalIndex, mmr, terms_named, tokenize
from scholargraph.records import Passage, Work
from scholargraph.screening.relevance import RETELLS, record_designs
from scholargraph.wording import answered_line, counted

FINDINGS_PER_QUESTION = 3
CONTRADICTIONS_PER_QUESTION = 2
AGREEMENTS_PER_QUESTION = 1
SOURCE_LIMITATIONS = 4
STANCE_POOL = 12
"""Contradictions are looked for among this many of a sub-question's most relevant sentences."""
MIN_SENTENCE, MAX_SENTENCE = 40, 600
"""Lengths of a sentence worth quoting. Under 40 characters the project's splitter leaves
fragments ("G608G mutations (76%).", a sentence cut after an abbreviation), headings and notes
("Data not shown."); a short sentence stating a result whole ("Mortality fell by 12%.",
"No effect was found.") is quoted all the same (:func:`short_result`)."""
SHORT_MIN = 15
SHORT_STATEMENT = re.compile(r"[A-Z]\S*(?:\s+\S+){2,}(?<=[\w%])[.!]")
"""A whole short statement: a capital opening it, three words or more, and a stop after a word
or a figure (not after a bracket or a mark: "... (76%).", "It is concluded that; 1.)")."""


def short_result(text: str) -> bool:
    """Whether a sentence under ``MIN_SENTENCE`` characters is still quotable: a whole
    statement (:data:`SHORT_STATEMENT`, ``SHORT_MIN`` characters or more) with a direction word
    (:func:`~scholargraph.deterministic.stance.stance`) or a result cue, not one pointing at
    results shown elsewhere ("Data not shown."). Of the 464 sentences under 40 characters the
    splitter makes of SciFact's 5,183 abstracts none is a gold rationale sentence; 38 are kept
    so, 33 of them read as results ("Hospital mortality did not differ.", "There were no
    cardiac related deaths."). Left out, an abstract whose result is one of them is quoted
    for another sentence, or not at all."""
    return (len(text) >= SHORT_MIN and SHORT_STATEMENT.fullmatch(text) is not None
            and re.search(r"\bshown\b", text) is None
            and bool(stance(text).cues or FACET_CUES["result"].search(text)))
DIVERSITY = 0.3
REDUNDANT = 0.6
"""Sentences of two works sharing this much of their terms (Jaccard) say the same thing."""
WEIGHTS = {"lexical": 0.35, "dense": 0.25, "facet": 0.25, "prior": 0.15, "position": 0.15}
RESULTS_FROM = 0.4
"""Where in an abstract its results begin, as a share of its length: a sentence's ``position``
score (where it ends) rises from 0 at the start to 1 here. Of SciFact train evidence
abstracts' sentences (claims 1-400), 7-10% of those in the first two fifths are rationale
sentences, 25-33% of those after: background and aims come first, results and conclusions
last."""
QUOTE_MIN = 0.25
QUOTE_MIN_TERMS = 3
"""Share of the sub-question's topic terms a sentence must name to be quoted for it, or how many
of them: a sub-question restating a long claim has a dozen terms or more ("citrullinated
proteins externalized in neutrophil extracellular traps act indirectly to perpetuate the
inflammatory cycle via induction of autoantibodies"), and a sentence of the study that tests it
naming three of them ("neutrophils externalized the citrullinated autoantigens") is on its
subject. On the SciFact train claims the whole-graph bench found three claims whose one included
work, a gold evidence abstract, had no sentence reaching a quarter of the terms."""
WORK_TOPIC_MIN = 0.3
"""Share of the sub-question's topic terms, and of the question's key terms, a work must mention
for its sentences to be quoted for it (screening's own bar); sources are compared only between
works mentioning ``CONTEXT_MIN`` of the sub-question's. It was 0.5 while every screened work
reached synthesis; since a review of a claim includes only the works that test the claim
(:func:`~scholargraph.deterministic.relevance.works_testing_claim`), 0.5 only kept the review from
quoting the one work it rests on when that work words the claim differently (on the first 100
SciFact train claims, ``bench/review.py``: evidence-cited 0.712 at 0.5, 0.797 at 0.3 and at 0,
cited-precision 0.565 and 0.557)."""
SAME_TOPIC_MIN = 0.3
"""Two sentences are compared only when each names this share of the sub-question's topic terms
and they share one of them: both are about the sub-question's subject, not merely worded alike."""
WHEN_TERMS = frozenset(tokenize("short long term follow-up day week month year baseline"))
"""Words of when an outcome was measured ("in the short term", "short-term outcomes"): two
works both naming a time are not disagreeing on it (one trial's "relief of pain symptoms in
the short term" against another's "improving short-term clinical outcomes")."""
RELATIVE_FLOOR = 0.6
"""A sentence is quoted only if its relevance reaches this share of the best one's. On SciFact
train claims (``bench/synthesis.py``, 80 claims) 0.6 quotes 10% fewer sentences, none of them a
rationale sentence, and raises the share of quotes that are rationale sentences from 0.090 to
0.104 (0.7: 0.123 but a third fewer quotes; 0.8: 0.157 and half, losing rationale sentences).
Whole-graph reviews (``bench/review.py``, the first 100 train claims) gain a little at 0.8
(cited-precision 0.183 -> 0.201), but 0.8 drops a null result quoted beside two positive ones
(tests/test_synthesis.py), and contrary evidence is what a review must not lose: kept at 0.6."""

BOILERPLATE = re.compile(r"copyright|©|all rights reserved|licen[cs]e|published by|"
                         r"this article is|creative commons|^keywords?\b|^key ?words|"
                         r"^trial registration|^funding|^clinicaltrials\.gov|"
                         r"\b(?:was|were|is) published (?:on|in) (?:\w+ )?"
                         r"(?:\d|the journal|journal)",
                         re.IGNORECASE)
"""Lines of a record that state no finding: its licence, keywords, registration, funding, or
where it was published ("Article ... was published on August 1, 2004 in the journal ...", a
record's abstract field filled with its citation)."""
LABEL = re.compile(  # used with .match(text, start): anchored at the sentence's start
    rf"(?:(?P<word>[A-Z][A-Za-z]+(?: (?:and|AND|&) [A-Z][A-Za-z]+)?)\s*[:.]\s+"
    rf"|(?P<caps>[A-Z]{{4,}}(?: [A-Z]{{2,}})*)\s+(?=[A-Z]|\d)"
    rf"|(?P<bare>{SECTION_WORDS})(?:\s+(?=[A-Z])|(?=[A-Z][a-z]|[AI]\s)))")
PEOPLE = (r"(?:patients|participants|subjects|individuals|people|persons|children|adolescents|"
          r"adults|infants|women|men|mothers|cases|users|respondents|volunteers|P[Ww][A-Za-z]*|"
          r"PLW[A-Za-z]*)")
"""Nouns of the people a study counts, with the person-first abbreviations ("PWH", "PwHA",
"PWID", "PLWH": people with haemophilia, people living with HIV)."""
SURVEYED = r"(?:survey|questionnaire|interview|invitation|call|request|e-?mail)s?"
ENROLMENT = re.compile(
    r"\b(?:was|were) (?:\w+ly )?(?:enrolled|included|recruited|randomi[sz]ed|eligible|"
    r"analy[sz]ed|studied)\b|\bparticipated\b"
    r"|\bwe (?:included|enrolled|recruited) (?:a total of )?[\d,]+\b"
    rf"|\bwe identified (?:a total of )?[\d,]+ (?:[\w-]+ ){{0,2}}?{PEOPLE}\b"
    r"|\btook part\b|\bagreed to (?:take part|participate)\b"
    r"|\bparticipation rates?\b"
    rf"|\b(?:responded|replied) to (?:the |our |an? |this )?(?:[\w-]+ ){{0,2}}?{SURVEYED}\b"
    rf"|\b(?:completed|returned|answered) (?:the |our |an? |this )?(?:[\w-]+ ){{0,2}}?{SURVEYED}\b"
    r"|\b(?:invited|surveyed|contacted|approached)\b[^.;]{0,80}?\b(?:responded|replied)\b"
    rf"|\ba total of [\d,]+ (?:[\w-]+ ){{0,2}}?{PEOPLE} (?:responded|replied)\s*[.;,]",
    re.IGNORECASE)
"""Who or what a study took in ("A total of 9020 patients were included", "Fifty-seven subjects
were randomized", "We identified 56 PWH that initiated the drug"): the first sentence under a
structured abstract's Results label often counts its sample, which is its method, not a result.
Of SciFact's 5,183 abstracts, 45 sentences opening on a Results or Findings label state their
sample so with no result word, none of them a rationale sentence of a train claim. "14
categories of misunderstanding were identified" and "We identified 14 categories of
misunderstanding" are a qualitative study's result: "identified" counts a sample only of
people. Who took part in a survey is its sample too ("Of the 1,200 invited,
812 took part.", "A total of 936 patients responded.", "... responded to the questionnaire, a
response rate of 62%"), where "Of the 40 patients treated, 30 responded to emicizumab" is a
treatment's result: a response counts a sample only to a survey or after an invitation."""
DONE_TO = re.compile(
    r"\b(?:was|were) (?:\w+ly )?(?:then |also |first |further |again )?(?:randomi[sz]ed|assigned|"
    r"allocated|treated|administered|given|dosed|injected|infused|followed|monitored|"
    r"interviewed|surveyed|asked|invited|instructed|trained|scanned|sampled|screened|stratified|"
    r"matched|categori[sz]ed|classified|grouped|divided|exposed|fed|housed|immuni[sz]ed|"
    r"vaccinated|implanted|transplanted|switched|genotyped|performed|conducted|carried out|"
    r"undertaken|applied|fitted|extracted|abstracted|coded|selected|excluded|defined)\b",
    re.IGNORECASE)
"""What was done to a study's subjects or data, in the passive past ("Patients were randomised
to emicizumab or no prophylaxis and followed for 12 months", "Bleeds were classified as
spontaneous or traumatic"): a method, unless the sentence also states what came of it
(:func:`procedure_only`). Over SciFact's 5,183 abstracts 380 sentences of no kind, or read as
a result only from a structured abstract's Results label ("56 patients were treated with a
single dose of 131I, 12 with two doses, ..."), become methods so, none a rationale
sentence."""

WE_DID = re.compile(
    r"\bwe (?:\w+ly )?(?:then |also |first |further |additionally |subsequently )?(?:surveyed|"
    r"recruited|enrolled|interviewed|collected|searched|screened|extracted|abstracted|sampled|"
    r"randomi[sz]ed|followed)\b", re.IGNORECASE)
"""What was done said by its authors ("We surveyed 120 centres about ...", "We recruited 300
patients ...", "We searched MEDLINE ..."): the same method as :data:`DONE_TO`'s passive, read
as a result when no cue said what it was ("We surveyed ..." was quoted as a claim's finding,
"We collected blood samples ..." under a structured abstract's Results label too). Of
SciFact's 5,183 abstracts 7 sentences more become methods so, none a rationale sentence."""


def procedure_only(text: str) -> bool:
    """Whether a sentence only says what was done (:data:`DONE_TO`, :data:`WE_DID`): it states
    no result (no
    result cue, no direction word read by :func:`~scholargraph.deterministic.stance.stance`, no
    comparison of one arm with another). A figure alone is no result: "12 months" and "3 mg/kg"
    say how long and how much, not what changed. Such a sentence answers a sub-question on
    methods, never one on results, and a claim's study is never read by it."""
    return bool(DONE_TO.search(text) or WE_DID.search(text)) and not (
        FACET_CUES["result"].search(text)) and not THAN.search(text) and not stance(text).cues


LABEL_FACETS = {
    "background": "background", "introduction": "background", "objective": "background",
    "objectives": "background", "aim": "background", "aims": "background",
    "purpose": "background", "context": "background", "importance": "background",
    "methods": "method", "method": "method", "design": "method", "setting": "method",
    "participants": "method", "materials and methods": "method", "measurements": "method",
    "results": "result", "findings": "result", "conclusion": "result",
    "conclusions": "result", "interpretation": "result", "discussion": "result",
    "key points": "result", "highlights": "result",
}
AIM_NOUN = (r"(?:objectives?|(?<!-)purpose(?!-))(?=\s+(?:of|was|were|is|are|to|for|in|here)\b"
            r"|\s*[:;,.)]|$)")
""""Objective" and "purpose" as the nouns naming an aim ("The objective of this study was",
"Our purpose here is", "with this objective,"), not the adjective before a noun ("objective
response rate", an oncology trial's result; "objective measures") nor part of a compound
("general-purpose"): a cue word is read in its role. "Purposes" is no aim ("cannot be used
for diagnostic purposes" is a result). Over SciFact's 5,183 abstracts the reading changes 54
sentences, none a rationale sentence of a train claim: 50 no longer read as background
("The objective response rate was 82%, ..."), 4 aims now do ("The objectives of this
retrospective study were to ...")."""
FACET_CUES = {
    "result": re.compile(
        r"\b(found|find|show\w*|demonstrat\w*|associat(?!ive)\w*|increas\w*|decreas\w*|reduc\w*|"
        r"significant\w*|odds ratio|hazard ratio|relative risk|conclud\w*|suggest\w*|"
        r"indicat(?!ed (?:for|in)\b|ions?\b)\w*|reveal\w*|yield\w*|achiev\w*|outperform\w*|"
        r"improv(?!e\b|ing\b)\w*|(?:not|n't|failed to) improve|higher|lower\w*|"
        r"rais\w*|elevat\w*|no effect|not associated|(?:highly|very|less|more|not) effective|"
        r"well tolerated|compared? favou?rably|median [\w ()-]{0,40}? of \d)\b"
        r"|\d+(?:\.\d+)?\s?%|\bp\s*[<=>]", re.IGNORECASE),
    "method": METHOD_CUES,
    "limitation": re.compile(
        r"\b(limitation\w*|limited by|caution\w*|bias\w*|small sample|further (?:research|"
        r"studies|work|investigation)|remains? (?:unclear|unknown|to be)|not generali[sz]\w*|"
        r"confound\w*|uncertain\w*|larger (?:studies|trials|cohorts))\b", re.IGNORECASE),
    "background": re.compile(
        rf"\b(we aimed|aim(?:s|ed)? (?:of|to)|{AIM_NOUN}|hypothes\w*|little is known|"
        r"(?:is|are) (?:\w+ )?defined as|"
        r"is unclear|we (?:investigated|examined|sought|assessed|evaluated)|"
        r"no (?:\w+ )?data (?:were|was|are|is) available|"
        r"this (?:study|paper|work) (?:investigat|examin|evaluat|assess|aim)\w*|"
        r"there is an? (?:\w+ )?need|in recent (?:years|decades)|has seen|have seen|"
        r"(?:has|have) (?:become|been increasingly)|increasingly (?:used|popular|important)|"
        r"(?:is|are|can be|could be|may be) (?:an? )?(?:critical|important|key|valuable|"
        r"essential|powerful) "
        r"(?:tools?|components?|approach\w*|parts?))\b",
        re.IGNORECASE),
}
"""Cues of each kind of sentence. "Improve" and "improving" alone are no result cue: they
name an aim ("to help organizations improve project performance", "interested in improving
practices"; of SciFact's 5,183 abstracts 144 sentences have no other result cue, the one
rationale sentence among them under a Conclusions label), unless negated ("did not improve
survival"). Among the method cues, measurements in the passive ("Hair
cortisol concentrations were determined from the first 3 cm hair segment": of SciFact's 5,183
abstracts 684 sentences so worded state no result word, none a rationale sentence) and a
sample counted ("We identified a total of 47 PwHA taking emicizumab ...": 44 sentences, the
one rationale sentence among them stating a result beside it)."""
FIELD_BACKGROUND = re.compile(
    r"\b(?:(?:has|have) (?:\w+ )?(?:revolutioni[sz]ed|transformed)|"
    r"witnessed (?:\w+ ){0,3}?(?:success|growth|progress|advances|interest)|"
    r"(?:gain|attract|receiv|draw|garner)(?:ed|ing|s)? (?:\w+ ){0,4}?(?:interest|attention|"
    r"popularity|traction)|"
    r"remains? (?:\w+ )?(?:challenging|a (?:\w+ )?challenge|an open (?:problem|question|issue))|"
    r"(?:main|key|major|central|biggest|primary) challenges? (?:\w+ ){0,8}?(?:is|are|lies|remains)|"
    r"there is an? (?:\w+ )?demand|(?:has|have) emerged as|"
    r"(?:has|have) (?:expressed|shown) (?:\w+ ){0,2}?interest)\b"
    r"|^(?!(?:this|these|our|the present|the current|the)\b)(?:[\w-]+ ){0,5}?(?:studies|trials|"
    r"reports|research|evidence|investigations|experiments|observations|data|literature)\b,? "
    r"(?:\w+ ){0,3}?(?:has|have) (?:\w+ )?(?:shown|indicated|suggested|demonstrated|reported|"
    r"revealed|found|established|implicated)\b"
    r"|\bcontinues? to (?:\w+ )?(?:increase|rise|grow|expand|climb)\b|^nowadays\b"
    r"|\brepresents? an? (?:\w+ )?(?:critical|important|key|valuable|essential|powerful) "
    r"(?:tools?|approach(?:es)?|techniques?)\b"
    r"|\b(?:previous|prior|earlier|past) (?:[\w-]+ ){0,2}?(?:studies|research|work|reports|"
    r"literature|evidence|findings|trials|investigations|data)\b,? (?:\w+ )?(?:suggest|show|"
    r"indicate|demonstrate|report|found|find|reveal|implicate)\w*"
    r"|^(?:several|many|numerous|a number of|various) (?:\w+ )?(?:studies|trials|reviews|papers) "
    r"have been (?:conducted|carried out|performed|published|undertaken)\b"
    r"|^(?!(?:this|these|our|the present|the current|the proposed|the new)\b)"
    r"(?:(?!that\b|we\b|which\b)[\w-]+ ){1,4}(?:is|are) (?:an? )?(?:critical|important|key|"
    r"valuable|essential|powerful) (?:\w+ ){0,2}(?:tools?|approach(?:es)?|techniques?)\b",
    re.IGNORECASE)
"""What a field has become or still lacks, as an abstract opens on it ("Deep Learning (DL) has
revolutionized the capabilities of vision-based systems", "We have recently witnessed tremendous
success of Machine Learning", "...has gained significant interest", "... are receiving an
increasing amount of attention" (every tense, up to four words between: 19 SciFact sentences,
none a rationale sentence), "...remains challenging",
"The main challenge ... is the lack of a test oracle", "there is a higher demand for ...",
"the Software Engineering community has expressed special interest in ...", a method judged
in general, opening the sentence: "Ethnography is a powerful qualitative empirical approach
which can be used to ... improve work practice"; what earlier research has shown, as a
sentence opens on it: "Preclinical and limited clinical trials have indicated the capacity of
mesenchymal stem cells to influence chondral repair", or how much of it there is: "Several
primary studies have been conducted in the field"; a trend: "the incidence and costs ...
continue to dramatically increase", 9 sentences of SciFact's abstracts, none a rationale
sentence; what a field does nowadays: "Nowadays, ... the experimentation approach
represents an important tool to allow ...", 3 sentences, none a rationale sentence; what
earlier work found, wherever the sentence names it: "Previous studies suggest
that green and blue spaces may promote ...", 45 sentences, none a rationale sentence):
background, never a finding, unless a
structured abstract's label says otherwise. Over the 5,183 SciFact abstracts the last kind
matches 116 sentences, one of them a rationale sentence ("Numerous reports have demonstrated
that ..."); the others 55, none a rationale sentence."""
WIDELY_USED = re.compile(
    r"\b(?:are|is|have been|has been) (?:\w+ )?(?:commonly|widely|frequently|extensively|"
    r"routinely) (?:used|employed|applied|adopted|studied)\b", re.IGNORECASE)
"""How much a method or tool is used ("Random test program generators are commonly used in
testing compilers"): background, unless the sentence also reports a result ("..., which is a
frequently used measure, was found to be a potentially deceptive measure"). Over the SciFact
abstracts it matches 66 sentences, none a rationale sentence."""
FIELD_STANDING = re.compile(
    r"\bincreasingly (?:\w+ )?(?:used|applied|adopted|employed|utili[sz]ed|studied|popular|"
    r"common|prevalent|recogni[sz]ed|important)\b"
    r"|\b(?:of|with) (?:increasing|growing) (?:importance|interest|concern|attention|relevance)\b"
    r"|\b(?:is|are) (?:an? )?(?:\w+ly )?(?:well-known|well-established|popular|common|"
    r"commonly used|widely used|standard|classical) (?:[\w-]+ ){0,2}?(?:technique|method|approach|"
    r"tool|framework|procedure)s?\b"
    r"|^(?:one|an?|the) (?:\w+ )?(?:basic|fundamental|key|central|important|major|critical)"
    r"(?: and \w+)? (?:problem|issue|question|challenge)s? (?:in|of|for|with)\b",
    re.IGNORECASE)
"""Where a method or a problem stands in its field: a trend ("Multilevel structural equation
models are increasingly applied in psychological research", "... is of increasing interest to
patients, providers and payers"), a method's standing ("Factor analysis is a popular
statistical technique for multivariate data analysis") or the field's problem ("An important
issue in the analysis of mixture SEMs is the presence of missing data"). Background, never a
finding: a statistics review quoted four such openings as the results comparing Bayesian with
frequentist estimation, their "increasing" read as a direction. Over SciFact's abstracts they
match 25 sentences, none a rationale sentence; over the nine shared screening reviews' 190,
154 of them an abstract's first or second sentence."""
LEFT_TO_DISCUSS = re.compile(
    r"\b(?:are|is|will be) (?:also |then |further |briefly )?(?:discussed|presented|highlighted|"
    r"outlined|described|summari[sz]ed|considered|reviewed)\.?$"
    r"|\b(?:the|this) (?:paper|article|chapter|report) (?:concludes|ends|closes) (?:with|in|by)\b",
    re.IGNORECASE)
"""A sentence that ends on what the paper goes on to discuss ("Implications for practitioners
are discussed.", "Maximum likelihood methods for estimation and model comparison are
discussed.", "... and the paper concludes in a discussion on the applicability of the
method"): it says what the paper does, never what it found. Over SciFact's abstracts 99
sentences, none a rationale sentence."""
USUAL_PRACTICE = re.compile(
    r"\b(?:is|are) (?:most |very )?(?:often|usually|typically|commonly|traditionally|generally|"
    r"conventionally|mostly) (?:\w+ed|done|made|taken|run|built|seen)\b", re.IGNORECASE)
"""What is usually done or seen, in the present tense ("Multilevel structural equation models
are most often estimated from a frequentist framework", "Cartilage damage is typically treated
by ..."): background, as :data:`WIDELY_USED`, unless the sentence also reports a result. Over
SciFact's abstracts it matches 112 sentences, none a rationale sentence; a study's own
observation is in the past tense ("symptoms were usually mild")."""
PRACTICE = re.compile(
    r"\b(?:is|are|has been|have been) (?:\w+ly )?(?:now |also |still )?(?:used|utili[sz]ed|"
    r"employed|indicated|approved|licensed|recommended|prescribed|offered) (?:\w+ ){0,3}?"
    r"(?:for|as|in|to)\b", re.IGNORECASE)
"""What a treatment or method is for in practice ("Emicizumab is used for routine prophylaxis
to prevent bleeding episodes in haemophilia A", "Machine learning approaches are utilized in
healthcare for computational decision-making ..."): its indication or use, background, never a
finding nor a study's support of a claim that it works, unless the sentence also reports a
result or names its own work ("In this study, a random forest is used to ..."). Over SciFact's
5,183 abstracts 79 sentences become background so ("Different coatings are used to improve
polypropylene mesh properties."), none a rationale sentence."""
FIELD_NEED = re.compile(
    r"\bin (?:\w+ )?need of\b"
    r"|\bthere (?:is|are|remains?|exists?|has been) (?:\w+ ){0,3}?(?:needs?|demands?|calls?)\b"
    r"|\b(?:growing|increasing|rising|urgent|pressing|critical|clear) "
    r"(?:\w+ )?(?:needs?|demands?) (?:for|to|of)\b"
    r"|\b(?:needs?|demands?) (?:for (?:[\w-]+ ){1,4}?)?(?:(?:is|are|has|have) )?(?:been )?"
    r"(?:growing|increasing|rising)\b", re.IGNORECASE)
"""What a field or its people need ("Academics are also in need of tools to ...", "There is a
growing need for ...", "The demand for automated outbreak detection has been increasing"):
background, its "increasing" no result, unless the sentence gives a figure or names its own
work ("Unmet need for respite care was reported by 42% of carers" is a survey's result). A
need a study removed is no need of its field: "reduced the need for transfusion", "there was
no need for dose adjustment" (in the past tense) are results, and so is an unmet need a
study counted. Over SciFact's abstracts it makes 28 more sentences background, none a
rationale sentence."""
PAPER_DOES = re.compile(
    r"\b(?:in this (?:talk|paper|article|chapter|review|report|study|work|protocol)|here)\b,? "
    r"(?:we|I) (?:present|describe|review|discuss|propose|introduce|outline|summari[sz]e|"
    r"provide|explore|examine|investigate|focus|illustrate|explain)\b(?! (?:\w+ ){0,3}?"
    r"(?:that|showing|demonstrating|indicating|suggesting)\b)"
    r"|\b(?:here|in this (?:paper|article|study|work)),? we (?:evaluate|assess|test|"
    r"characteri[sz]e|compare|analy[sz]e|determine|study|address|ask)\b(?! (?:\w+ ){0,3}?"
    r"(?:that|showing|demonstrating|indicating|suggesting)\b)"
    r"|\bin this (?:paper|article|work),? we (?:use|apply|leverage|employ|adopt)\b"
    r"(?!.*\b(?:show|demonstrat|reveal|found|find|confirm)\w*\b)"
    r"|\bwe (?:\w+ly )?(?:present|describe|outline|illustrate|introduce|report on|focus on|"
    r"propose(?! (?:an? )?(?:\w+ )?(?:model|mechanism|hypothesis|role)\b)) "
    r"(?!(?:\w+ ){0,3}?"
    r"(?:that|showing|demonstrating|indicating|suggesting)\b)"
    r"|\b(?:this|the present|the current|our) (?:talk|paper|article|study|review|work|report|"
    r"protocol|project|chapter|analysis) (?:aims?|aimed|seeks|sought|was designed|is designed|"
    r"describes|presents|outlines|summari[sz]es|discusses|reviews|introduces|proposes|explores|"
    r"defines|examines|investigates|considers|addresses|will)\b"
    r"|\b(?:this|the present|the current|our) (?:talk|paper|article|study|review|work|report|"
    r"chapter|commentary|analysis) (?:\w+ly )?(?:described|presented|outlined|summari[sz]ed|"
    r"discussed|reviewed|introduced|proposed|explored|defined|examined|investigated|considered|"
    r"addressed)\b(?!.*\b(?:found|show|showed|shows|demonstrat\w*|reveal\w*|conclud\w*)\b)"
    r"|\b(?:this|the|the present|the current|our) (?:study|paper|work|trial|analysis) "
    r"(?:further )?"
    r"(?:clarifies|adds to|contributes to|extends|sheds light on|provides (?:insight|data))\b"
    r"|\b(?:this|the present|the current|our) (?:study|paper|work|research) (?:\w+ )?to "
    r"(?:design|develop|build|propose|create|construct)\b"
    r"|\b(?:the )?(?:main |key |central )?(?:aims?|objectives?|purpose|goal|idea) of "
    r"(?:this|the present|the current|our) "
    r"(?:study|paper|work|review|article|trial|analysis|project|talk)\b"
    r"|\bwe (?:aim|aimed|seek|sought|set out|intend|intended) to\b"
    r"|\bin (?:the )?(?:previous|preceding|following|next) sections?\b"
    r"|\bin the (?:following|remainder|rest)\b[^.;]*?\bwe (?:will )?(?:\w+ly )?(?:describe|"
    r"present|discuss|explain|outline|review|introduce|detail|summari[sz]e|give|provide|"
    r"show how)\b"
    r"|\bwe (?:\w+ly )?(?:present|give|provide|include|describe|offer|show) (?:\w+ ){0,3}?"
    r"(?:examples?|use cases?|illustrations?|scenarios?|showcases?)\b(?![^.;]*\d)"
    r"|\b(?:this|the|the present|the current|our) (?:paper|article|review|report|chapter) "
    r"reports? (?:on )?(?:our |its |the )?experiences?\b"
    r"|\b(?:this|the present|the current|our) (?:talk|paper|article|study|review|work|report|"
    r"protocol|project|chapter|analysis) (?:intends|intended) to\b"
    r"|\bthe (?:paper|article|review|chapter) (?:aims?|aimed|seeks|describes|presents|outlines|"
    r"summari[sz]es|discusses|reviews|introduces|proposes|explores|examines|investigates|"
    r"considers|addresses)\b(?! (?:\w+ ){0,3}?(?:that|showing|demonstrating|indicating|"
    r"suggesting)\b)"
    r"|\b(?:this|the) (?:paper|article|review|chapter) (?:\w+ )?(?:concludes by|provides an? "
    r"(?:\w+ ){0,2}?(?:analysis|review|overview|summary|account|discussion)\b)"
    r"|\bwe are (?:also |now |currently )?(?:undertaking|conducting|planning|preparing)\b"
    r"|(?<!\bas )\bwe (?:also |further |then |briefly |first |\w+ly )?(?:review|discuss|"
    r"summari[sz]e)\b(?! (?:\w+ ){0,3}?(?:that|showing|demonstrating|indicating|suggesting)\b)"
    r"|\b(?:our|the) (?:\w+ )?questions? (?:is|was|were) (?:if|whether)\b"
    r"|\b(?:information|data) (?:was|were) (?:abstracted|extracted|collected|obtained|retrieved|"
    r"gathered|drawn)\b"
    r"|\b(?:articles|studies|records|databases|papers|publications) were (?:searched|screened|"
    r"identified|retrieved|reviewed|selected)\b"
    r"|\bwe (?:searched|screened|conducted a (?:systematic|literature|narrative) (?:search|review))"
    r"\b"
    r"|\b(?:results|findings) (?:are|were) expected\b|\bwill be (?:published|reported|"
    r"disseminated|made available|presented|discussed|described|shown)\b"
    r"|\b(?:our|the) (?:main |primary |principal )?(?:aims?|objectives?|goals?|purposes?) "
    r"(?:was|were|is|are) to\b"
    r"|\b(?:this|the present|the current|our) (?:[\w-]+ ){1,2}?(?:paper|article|study|review|"
    r"work|report|analysis) (?:\w+ )?(?:aims?|aimed|seeks|sought|was designed|is designed|"
    r"describes|presents|outlines|explores|examines|investigates)\b"
    r"|\b(?:this|the present|the current|our) (?:[\w-]+ ){0,2}?(?:study|paper|work|review|"
    r"article) will\b"
    r"|\b(?:this|ours|it) is the first (?:[\w-]+ ){0,3}?(?:study|report|trial|analysis|paper|"
    r"work|review|attempt|investigation) to (?:provide|describe|examine|investigate|assess|"
    r"evaluate|report|characteri[sz]e|use|explore|compare|address|analy[sz]e|apply|test|"
    r"measure|quantify)\b"
    r"|\bwe conclude with\b|\b(?:this|the) (?:study|paper|article|review|work) (?:\w+ )?(?:offers|"
    r"provides|gives) (?:an? )?(?:\w+ ){0,2}?(?:overview|review|summary|account|synthesis)\b"
    r"|^(?:next|below|in what follows),? we (?:will )?(?:\w+ly )?(?:discuss|describe|present|"
    r"explain|outline|detail|introduce|review)\b",
    re.IGNORECASE)
"""A sentence that only says what a paper does ("In this talk, we present...", "We also
review the role of ...", "Our scientific question is if ...": 184 SciFact sentences say what
their paper reviews, discusses or summarises, or the question it asks, none a rationale
sentence; "As we review here, these findings ..." states a conclusion), "This study
aims to...", "Information was abstracted from articles...", "The paper reports experiences
with...", "The review investigates the practice of...", "this paper intends to discuss...";
these last three, none a rationale sentence of SciFact's 5,183 abstracts, open 58 sentences of
a software-engineering library's abstracts; aims worded so: "Our aim was to study whether
...", "This systematic review therefore sought to explore ...", a talk's "data will be
presented showing ...", a study's claim to be first at what it did: "This is the first study
to provide an understanding of ..." ("the first study to show that ..." is a result), a
promise: "Results from this retrospective study will be able to inform on ...", what a paper
closes on or offers: "We conclude with specific recommendations for ...", "This study offers
a systematic overview of literature ...": of SciFact's abstracts these match 73 sentences,
none a rationale sentence; "Here we evaluate the
performance of mice with ... damage in a discrimination task ...", an aim quoted as a
finding of a rodent-memory review: of SciFact's abstracts 25 sentences open so, none a
rationale sentence; a full text's roadmap, "In the following, as background information, we
briefly describe how pretrained LMs can be applied ...", quoted as a finding of a review over
PDFs, and a framework paper's "we present examples that demonstrate ...", quoted as a claim's
stance: worded with an adverb before the verb, a roadmap's "in the following/remainder ...
we describe", or examples, use cases and scenarios presented with no figure after them, these
match 4 more of SciFact's abstract sentences, none a rationale sentence; a section's roadmap
opening "Next, we discuss how we populate mentions and entities ...", quoted as a finding of a
library review over the recorded N18-3011 PDF once its "Table 2 shows the results ..." was set
aside (2 sentences of the shared fixtures' full texts, none of SciFact's abstracts nor of
science-parse's 29 test papers)) states no finding: it is never quoted as one, for a claim or a
topic
("Here we present evidence that..." is a result and passes); nor is a protocol's promise of
results to come ("The results are expected to be published in 2019")."""
REVIEW_CONDUCT = re.compile(
    r"\bwere (?:\w+ly )?searched\b|\bwe (?:\w+ly )?reviewed\b"
    r"|\bsearch(?:es)? (?:was|were) (?:\w+ly )?(?:executed|performed|conducted|carried out|"
    r"undertaken|run)\b"
    r"|\b(?:systematic reviews?|meta-analys[ie]s|literature reviews?|scoping reviews?)(?: and "
    r"(?:\w+ )?(?:meta-analys[ie]s|reviews?))? (?:was|were) (?:\w+ly )?(?:conducted|performed|"
    r"carried out|undertaken)\b|\bwe (?:\w+ly )?(?:performed|conducted|carried out|undertook) "
    r"an? (?:\w+ )?(?:systematic|literature|scoping|narrative|umbrella) review\b"
    r"|\bthis (?:work|review|paper|article|study) (?:\w+ly )?reviews\b"
    r"|\b(?:this|the present|the current|our) (?:paper|article|study|work) (?:performed|"
    r"conducted|carried out|demonstrates results|reports results|presents results)\b"
    r"|\b(?:studies|articles|records|papers|publications|trials|reports) (?:met|fulfilled|"
    r"satisfied) (?:\w+ ){0,2}?(?:inclusion|eligibility) criteria\b"
    r"|\b(?:studies|articles|records|papers|publications|trials|reports) were (?:accepted|"
    r"deemed eligible|eligible for inclusion)\b"
    r"|\bsearch(?:es)? (?:\w+ )?(?:yielded|identified|retrieved|returned)\b", re.IGNORECASE)
"""How a review was done: its search and its yield ("PubMed, CINAHL ... were searched through
October 2019", "A systematic PubMed search was executed to locate ...", "Of the 9609 records
initially identified, 88 studies met our eligibility criteria", "A comprehensive search
yielded 58 eligible studies"), and its conduct ("A systematic review and meta-analyses were
conducted to synthesize thirty-seven studies ...", "We systematically reviewed published
literature on ...", "This paper performed a Systematic Literature Review (SLR) to find and
classify ..."). A method, never a result, whatever figures it gives: quoted for a
sub-question asking for methods, never as a finding on the topic. Of SciFact's 5,183
abstracts these match 92 sentences, none a rationale sentence."""
PURPOSE_CLAUSE = re.compile(
    r"^(?:(?:Moreover|Furthermore|In addition|Additionally|Also|Further|Finally|Next|Then|"
    r"First(?:ly)?|Second(?:ly)?|Third(?:ly)?),?\s+)?[Tt]o "
    r"(?!date\b|our\b|this end\b|that end\b|the best\b|what extent\b|some extent\b)"
    r"[a-z]+\b[^,;]*,\s*")
"""A sentence's opening purpose clause ("To demonstrate the phenomenon, rats were conditioned
to associate cocaine ... with two different objects"): a result word in it names the aim, not
a result, so a sentence's kind is read from the rest of it, and one reporting no result there
says what was done (a method). Of SciFact's 5,183 abstracts, 408 sentences open on such a
clause, 1 of them a rationale sentence; 21 have their only result word in it, none a rationale
sentence. A connective may open it ("Moreover, to model the meta-information associated with
each labelling task ..., we developed seven ML models")."""
EXPLANATION = re.compile(
    r"^(?:\w+ly,? )?(?:one|an|another|a)(?: \w+)? (?:possible |plausible |potential |likely |"
    r"alternative )?explanations? (?:\w+ ){0,8}?(?:is|are|may|might|could|would)\b",
    re.IGNORECASE)
"""A sentence offering an explanation ("One possible explanation is that the memory tasks used
in animal studies do not ...", "An alternative explanation for the discrepancies of our
findings ... may be ..."): the authors' conjecture in discussing a result, not the result.
Of SciFact's abstracts 2 sentences open so, neither a rationale sentence."""
BARE_AIM = re.compile(
    r"^(?:(?:aims?|objectives?|purpose|background)\s*:\s*)?To (?!date\b|our\b|this end\b|"
    r"that end\b|the best\b|what extent\b|some extent\b)[a-z]+\b", re.IGNORECASE)
FINITE = re.compile(r"\b(?:we|was|were|is|are|has|have|had|did|does|do|showed|found|"
                    r"revealed)\b", re.IGNORECASE)
"""A sentence that is an aim alone, as a structured abstract's Objective reads once its label is
cut off or glued to it ("Aim:To study associations of GC levels in scalp hair ...", "To examine
the association between HCC and different measures of adiposity among ..."): an opening
infinitive and, after its first comma, no clause of its own (:func:`bare_aim`). Of SciFact's
5,183 abstracts, 67 sentences are so, none a rationale sentence."""
INNER_PURPOSE = re.compile(
    r"\bto (?:examine|investigate|assess|determine|evaluate|explore|study|test|compare|identify|"
    r"estimate|characteri[sz]e|analy[sz]e|quantify|clarify|elucidate|understand|"
    r"(?:show|demonstrate|reveal)(?! that\b))\b[^,.;]*",
    re.IGNORECASE)
"""What a method was for ("We used the analysis of cortisol in hair to examine associations of
long-term cortisol levels with ...", "We have also analyzed the results of the systematic
review, to show the trends in ..."): a result word in it ("associations") names what was
studied, not what was found ("... to show that ..." states it). Of SciFact's abstracts, 318
sentences have their only result word in such a phrase, none a rationale sentence."""
EARLIER_FINDINGS = re.compile(
    r"\b(?:has|have) been (?:\w+ )?(?:linked|associated|implicated|reported|shown|found|related|"
    r"correlated|suggested|proposed|described|demonstrated|established|documented|recogni[sz]ed|"
    r"identified|observed)\b"
    r"|\b(?:has|have) been (?:\w+ )?(?:promoted|advocated|touted|heralded|hailed) as\b"
    r"|^(?:in today's|today,|in recent (?:years|decades)|recently,|(?:over|in) the (?:past|last) "
    r"(?:few |several |two |three )?(?:years|decades))", re.IGNORECASE)
"""What has been found before ("increased long-term cortisol levels have been linked to
cardiovascular disease", "Long-term cortisone and cortisol have been associated with obesity
..."), "The chelating agent Trientine has been demonstrated to be an effective second-line
treatment ..."): background, unless the sentence names its own work ("we", "this study"). Of
SciFact's 5,183 abstracts, 584 sentences are so, 2 of them rationale sentences. So are what
a thing has been put forward as ("Model-Driven Engineering (MDE) has been promoted as a
solution to ...") and a sentence opening on the field's recent past ("In recent years, ...",
"Recently, ...", "Over the last decades, ...", "In today's software development
organizations, methods and tools are employed that ..."): 79 SciFact sentences not naming
their own work, one a rationale sentence ("Recently, it has become evident that ...")."""
DEFINITION = re.compile(
    r"^(?:[\w'()\u00ae,-]+ ){1,6}(?:is|are) an? (?:[\w-]+ ){0,3}?(?:disorder|disease|"
    r"condition|syndrome|protein|enzyme|receptor|molecule|antibody|drug|compound|cytokine|"
    r"hormone|pathogen|virus|bacterium|cancer|tumou?r)\b(?:,? (?:\w+ ){0,6}?"
    r"(?:characteri[sz]ed by|caused by|that|which|involved in|responsible for))", re.IGNORECASE)
"""What a thing is, as an abstract opens on it ("Wilson's disease is an inherited disorder of
copper metabolism characterized by reduced biliary copper excretion, which results in ..."):
background, unless the sentence names its own work ("Our data demonstrate that Piezo1 is a
novel TFF1 binding protein that ..."), its name given with a brand or an abbreviation in
brackets ("Emicizumab-kxwh (Hemlibra(R)) is a bispecific humanized monoclonal antibody that
restores ...", quoted as a finding of a claim review). Of SciFact's 5,183 abstracts, 80
sentences open so, two of them rationale sentences: one naming its work, one defining a
syndrome by its cause."""


def bare_aim(text: str) -> bool:
    """Whether a sentence is an aim alone (:data:`BARE_AIM`): an opening infinitive with no
    clause of its own after it."""
    if not BARE_AIM.match(text):
        return False
    rest = text.split(",", 1)[1] if "," in text else ""
    return not FINITE.search(rest)


ABSTRACT_CITATION = re.compile(
    r"\bet al\b|\((?:[A-Z][\w'-]+(?: (?:and|&) [A-Z][\w'-]+)?,? \d{4}[a-z]?;? ?)+\)"
    r"|^[A-Z][\w'-]+(?: (?:and|&) [A-Z][\w'-]+)? \(\d{4}[a-z]?\) (?:\w+ ){0,2}?(?:proposed|"
    r"showed|shown|demonstrated|introduced|suggested|argued|found|reported|developed|described)\b")
"""A citation in an abstract's sentence ("... (HAVEN 3; Mahlangu et al. N Engl J Med 2018, in
press)", "(Smith, 2010)"): what the sentence reports is the cited study's, not the work's own
result, unless it names the work too ("we", "this study"). Of SciFact's 5,183 abstracts, 39
sentences carry "et al." (2 more "et al" with no stop: "Young et al describe ...") and 19 an
author and year in brackets, none a rationale sentence (and
a sentence opening on its authors, "Muthén and Asparouhov (2012) have proposed ...", a
commentary's account of the work it answers, is the cited work's too); a
conference abstract of an emicizumab study opened on two cited trials ("Two Phase III studies
recently demonstrated the efficacy and safety of ...")."""
LIMITATION_STATED = re.compile(
    r"\b(?:limitation\w*|limited by|caution\w*|small sample|"
    r"(?:sample|study) (?:size )?(?:was|is|were) (?:\w+ )?(?:small|limited)|"
    r"further (?:research|studies|work|investigation)|remains? (?:unclear|unknown|to be)|"
    r"not generali[sz]\w*|larger (?:studies|trials|cohorts))\b", re.IGNORECASE)
"""Words that say a study falls short whatever else the sentence says ("a limitation of this
study", "our sample was small", "results may not generalise", "further research is needed")."""
STUDY_SHOWS = re.compile(
    r"\b(?:our|this|the present|the current) (?:[\w-]+ ){0,3}?(?:results?|findings?|study|"
    r"analys[ie]s|data|evaluations?|work|trial|experiments?)\b[^.;]{0,160}?\b(?:show\w*|"
    r"demonstrat\w*|reveal\w*|indicat\w*|suggest(?:s|ed|ing)?|found|confirm\w*)\b"
    r"|\bwe (?:\w+ )?(?:found|find|show\w*|demonstrat\w*|observed)\b", re.IGNORECASE)
"""A sentence stating what its own study shows ("the results of our study ... show that
consensus-based inference models mask underlying uncertainty", "we found that ..."): a word
like "uncertainty", "bias" or "confounding" in it is what the study found, not a limitation
of it."""


def states_limitation(text: str) -> bool:
    """Whether a sentence states a limitation: words saying a study falls short
    (:data:`LIMITATION_STATED`), or a limitation word, unless the sentence states what its own
    study shows and only a word that can name its subject ("uncertainty", "bias",
    "confounding") reads as one (:data:`STUDY_SHOWS`)."""
    if LIMITATION_STATED.search(text):
        return True
    return bool(FACET_CUES["limitation"].search(text)) and not STUDY_SHOWS.search(text)


PROMISE = re.compile(
    r"\b(?:show\w*|hold\w*|offer\w*|demonstrat\w*|ha[sd]|have|bears?|carr(?:y|ies)) "
    r"(?:[\w-]+ ){0,2}?(?:promise|potential)\b"
    r"|\b(?:is|are|seems?|appears?|remains?) (?:\w+ )?promising\b", re.IGNORECASE)
"""What a sentence says a field or method promises ("ML ... shows promise for public health",
"deep learning has great potential"): the word "shows" reads as a result, but a promise stated
before a work says what it did is its background, the case for doing the work."""


def promise_only(text: str) -> bool:
    """Whether a sentence's only result word is a promise ("shows promise", "has potential"):
    with the promise taken out, nothing in it reads as a result."""
    return bool(PROMISE.search(text)) and not FACET_CUES["result"].search(PROMISE.sub(" ", text))


ADVICE = re.compile(
    r"\b(?:should|must|ought to|(?:will |may |might )?needs? to|have much to learn)\b"
    r"|\bwe (?:\w+ )?(?:recommend|urge|advocate|call for)\b"
    r"|\b(?:is|are) (?:\w+ )?recommended\b|\brecommendations? (?:were|was|are|is|include\w*)\b"
    r"|\bit (?:is|remains|will be) (?:\w+ )?(?:important|essential|crucial|critical|vital|"
    r"necessary|imperative|advisable|key) (?:to|that|for)\b"
    r"|\bthere is an? (?:\w+ )?need\b|\b(?:is|are) (?:urgently |still |thus )?needed\b"
    r"|\bwe (?:also )?(?:provide|offer|give|make) (?:\w+ )?(?:suggestions|recommendations)\b"
    r"|\b(?:key|main|major|urgent|clear|pressing) need\b"
    r"|\b(?:is|are) (?:\w+ )?warranted\b|\bwarrants? (?:further |more |additional |careful )?"
    r"(?:study|studies|investigation|research|evaluation|exploration|attention)\b",
    re.IGNORECASE)
"""Words that prescribe or judge rather than report: what someone should or must do, what is
needed or recommended, what it is important to do ("Additional sources ... may need to be
incorporated", "Clinical and population health researchers have much to learn from one
another", "Future longitudinal research ... is warranted to clarify ..."; of SciFact's
abstracts 27 sentences say "is/are warranted", none a rationale sentence)."""
GROUNDED = re.compile(
    r"\b(?:these|our|the(?: present| current)?|this) (?:[\w-]+ ){0,2}?(?:results?|findings?|"
    r"data|observations?|analys[ie]s|study|trial|evidence)\b[^.;]{0,80}?\b(?:show\w*|"
    r"suggest(?:s|ed|ing)?|indicat\w*|demonstrat\w*|support\w*|impl(?:y|ies|ied)|highlight\w*|"
    r"underscor\w*|reveal\w*|confirm\w*)\b", re.IGNORECASE)
"""A sentence drawing its advice from its own study ("These findings suggest that clinicians
should ..."): the study's conclusion, quoted as one."""
REPORTED = re.compile(
    r"\b(?:found|showed|shown|demonstrated|revealed|observed|confirmed|reduced|increased|"
    r"decreased|improved|lowered|raised|doubled|halved|outperformed|achieved|significan\w*|"
    r"suggesting|indicating|implying|lacked|did not|failed to)\b"
    r"|\b(?:is|are|was|were) (?:\w+ )?(?:associated|correlated|linked|effective|ineffective|"
    r"superior|inferior|safe)\b|\b(?:higher|lower|greater|fewer|more|less) than\b"
    r"|\b(?:had|has|have|showed) (?:\w+ )?(?:higher|lower|greater|fewer|better|worse)\b"
    r"|\d+(?:\.\d+)?\s?%|\bp\s*[<=>]|\b(?:odds|hazard|risk) ratio\b", re.IGNORECASE)
"""Words that report an outcome beside advice ("... reduced mortality and should be offered",
"... was highly significant, suggesting that approaches ... should ..."): the advice is the
study's conclusion.
Narrower than the result cues (:data:`FACET_CUES`), where "to improve health outcomes" or
"associated with a particular emergency" read as results: in advice they name its aim."""


def advice_only(text: str) -> bool:
    """Whether a sentence only prescribes or judges (:data:`ADVICE`): it reports no result of
    its own (no result word, figure or "our findings show") and draws its advice from none. A
    review's finding is what a study found or concluded; "it is important to ...", "we
    recommend ...", "X should be ..." said on their own are the authors' opinion, not
    evidence. Advice drawn from the study ("these results suggest that screening should ...")
    or beside a result ("... reduced mortality and should be offered") stays a finding; a
    result word in what the advised study is for ("warrants study to determine whether therapy
    ... can be further improved", :data:`INNER_PURPOSE`) reports nothing."""
    if not ADVICE.search(text) or GROUNDED.search(text) or STUDY_SHOWS.search(text):
        return False
    return not REPORTED.search(INNER_PURPOSE.sub(" ", ADVICE.sub(" ", text)))


OPINION_PIECE = re.compile(
    r"(?<![a-z])(?:in|with) this (?:brief |short )?(?:commentary|editorial|perspective|"
    r"viewpoint|essay|opinion piece|op-ed)\b"
    r"|\bthis (?:commentary|editorial|viewpoint|essay) (?:\w+ )?(?:argues|describes|discusses|"
    r"proposes|offers|calls|considers|outlines)\b", re.IGNORECASE)
"""A work saying it is an opinion piece ("In this commentary, we briefly describe ... and
propose ways ...", also after a reference number glued to it: "structures.3In this
commentary")."""


DISCUSSION_PIECE = re.compile(
    r"\bthis (?:chapter|article|paper|essay|review) (?:\w+ ){0,2}?(?:(?:offers|gives|provides|"
    r"presents) (?:a |an )?(?:brief |short )?(?:preview|overview|discussion) of|discusses|"
    r"considers|reflects on|explores) (?:the |some )?(?:\w+ ){0,2}?(?:issues|challenges|debates|"
    r"controversies)\b", re.IGNORECASE)
"""A work saying it discusses issues rather than studying anything ("This chapter offers a
preview of the philosophical issues that arise when ML and public health come together"): its
closing "we suggest that ML may result in the 'Googlization' of public health" is the authors'
argument, which the README's review quoted as a finding. No abstract of SciFact's 5,183 says
so; in the nine shared screening reviews 5 records do, all excluded by their reviewers."""


def opinion_piece(work: Work) -> bool:
    """Whether a work calls itself a commentary, editorial, perspective, viewpoint or essay
    (:data:`OPINION_PIECE`), says it discusses issues (:data:`DISCUSSION_PIECE`), or presents
    another group's study (:data:`RETELLS`). It reports
    no study: its sentences are the authors' description, advice and retelling of others'
    results ("Public health surveillance systems ... have proven useful ...", citing another
    work), none of them a finding of its own. A topic's review lists it among the works
    included and says why it quotes none of it."""
    text = f"{work.title}. {work.abstract or ''}"
    return bool(OPINION_PIECE.search(text) or DISCUSSION_PIECE.search(text)
                or RETELLS.search(text))


def reports_no_study(work: Work) -> bool:
    """Whether a work reports no study of its own to test a claim with: a commentary or opinion
    piece (:func:`opinion_piece`), a study protocol (:func:`study_protocol`), or a talk or
    poster that says so and states no result ("In this talk, we present an overview of scalable
    machine learning tools ..."). A claim's review once rested on such a talk, and still
    counted it among the studies it weighed ("3 neither support nor contradict it"), quoting
    what its tools "can automatically" do as a finding."""
    if opinion_piece(work) or study_protocol(work):
        return True
    if "conference abstract" not in record_designs(work.title, work.abstract or ""):
        return False
    return not any(states_result(c) for passage in summary_passages(work)
                   for c in quotable(passage, work.year))


def study_protocol(work: Work) -> bool:
    """Whether a work is a study protocol (:func:`scholargraph.screening.relevance.record_designs`:
    "...: An Exploratory Protocol", "this protocol describes"). A protocol reports no result
    yet: its "Conclusions" restate the case for the study ("Rigorous evaluations of digital
    health programs are limited ..."), which a review must not quote as a finding, for a topic
    or a claim. Of SciFact's 5,183 abstracts 2 read as protocols, neither a gold evidence
    abstract."""
    return "protocol" in record_designs(work.title, work.abstract or "")


def opinion_gap(pieces: Sequence[Work], protocols: Sequence[Work] = ()) -> list[str]:
    """The lines naming the included works that are opinion pieces (:func:`opinion_piece`) or
    study protocols (:func:`study_protocol`) and so quote no finding; none when there are
    none."""
    lines = []
    if pieces:
        lines.append(_silent_line(pieces, "is a commentary or opinion piece and reports no study "
                                  "of its own", "are commentaries or opinion pieces and report no "
                                  "study of their own"))
    if protocols:
        lines.append(_silent_line(protocols, "is a study protocol and reports no results yet",
                                  "are study protocols and report no results yet"))
    return lines


def unread_gap(works: Sequence[Work]) -> str:
    """The gap naming a claim's included works known by their title alone, which are not read
    for or against it (:func:`scholargraph.agents.synthesis.with_stances`)."""
    if len(works) == 1:
        return ("1 included work is known by its title alone and is not read for or against "
                f"the claim: {_named(works)}.")
    return (f"{len(works)} included works are known by their titles alone and are not read for "
            f"or against the claim: {_named(works)}.")


def _silent_line(works: Sequence[Work], one: str, many: str) -> str:
    """A gap line naming included works no finding quotes, and why (``one``/``many``: what the
    work is, or the works are)."""
    if len(works) == 1:
        return f"1 included work {one}; no finding quotes it: {_named(works)}."
    return f"{len(works)} included works {many}; no finding quotes them: {_named(works)}."


def _named(works: Sequence[Work]) -> str:
    """The works' labels and years, joined for a gap line."""
    return "; ".join(f"{label(work)} ({work.year})" if work.year else label(work)
                     for work in works)


INTRODUCTION_SECTIONS = re.compile(rf"{NUMBERED}(?:introduction|background|related work|"
                                   r"literature review|state of the art)\b", re.IGNORECASE)
"""Sections of a full text that set out what was known before the work: none of their
sentences is the work's finding."""
DISCUSSION_SECTIONS = re.compile(rf"{NUMBERED}(?:discussion|general discussion)\b",
                                 re.IGNORECASE)
"""Sections that set the work's results among others': their sentences report other studies'
results ("Afatinib resulted in a major improvement in PFS ...") unless they name this work ("in
the current study", "our results")."""
CITED = re.compile(r"\[\d+(?:\s*[,\u2013-]\s*\d+)*\]|\bet al\.|"
                   r"\((?:[A-Z][\w'-]+(?: (?:and|&) [A-Z][\w'-]+)?,? \d{4}[a-z]?;? ?)+\)")
"""A citation in a full text's sentence ("[10-13]", "Smith et al.", "(Heinrich 1989;
Richner 1989a)"): what it states is the cited work's."""
SET_ASIDE = frozenset({"caption", "table", "garbled", "example", "pointer", "code"})
"""Sentences of a full text that state no result, whatever their words: a figure's or table's
caption, a table's row (``Passage.kind`` 'table', or a PDF's table of words read as text:
:func:`~scholargraph.fulltext.legible.table_as_text`), text the page does not print as read
(:func:`~scholargraph.fulltext.legible.garbled`), an example (:data:`EXAMPLE`), a pointer
to a table's or figure's results (:data:`POINTER`) and a program's text read as a sentence
(:func:`~scholargraph.fulltext.legible.code_as_text`: none of SciFact's 44,726 abstract
sentences; in science-parse's 29 test PDFs, read without the fixed-pitch rule of
:mod:`scholargraph.fulltext.layout`, the 3 'sentences' of MapReduce's listings)."""
POINTER = re.compile(
    r"^(?:(?:as )?(?:shown|illustrated|listed|reported|summari[sz]ed) in )?(?:Tables?|Figures?|"
    r"Fig\.)\s+\S+(?:\s+and\s+\S+)?\s+(?:shows?|lists?|summari[sz]es|presents?|reports?|gives?|"
    r"compares?|displays?|provides?|contains?|describes?|details?)\s+(?:the\s+|our\s+|a\s+)?"
    r"(?:[\w-]+\s+){0,3}?(?:results?|performance|statistics|details|scores|numbers|"
    r"measurements|summary|overview|breakdown|characteristics|comparison|values|distribution)\b"
    r"(?![^:;]*(?:\bthat\b|[:;]))", re.IGNORECASE)
"""A sentence that says where results are and not what they are ("Table 2 shows the results
based on 500 papers using v1.1.2 of our entity extraction and linking components.", quoted as a
finding of a library review over the recorded N18-3011 PDF); one going on to say them ("...
shows that", "...: ") is kept. Of the shared fixtures' eleven full texts, 4 sentences are
such pointers, none saying a result; of SciFact's 45,952 abstract sentences, none."""
POINTED_TO = re.compile(
    r"\b(?:is|are) (?:shown|given|listed|reported|summari[sz]ed|presented|provided|displayed) "
    r"in (?:[^.;:]{0,60} )?(?:Tables?|Figures?|Figs?\.) ?[\w.-]*\)?\.?$", re.IGNORECASE)
"""The same pointer said the other way round, with no figure of its own ("Our evaluation of the
learned representations on predicting user activity is shown in the 'User activity' columns of
Table 1.", ranked among the SPECTER paper's findings on its title; "The bacterial strains and
plasmids used in this study are listed in Table 2."): 5 more sentences of the shared fixtures'
full texts, none a result, and one of SciFact's 45,952 abstract sentences (a list "shown in
Table 1"). Held out, both forms set aside 24 sentences of science-parse's 29 test papers, each
pointing at a table or figure ("The results of these experiments are shown in Table 2.")."""
NEVER_FINDINGS = frozenset({"aim", "others", "advice"}) | SET_ASIDE
"""Kinds of sentence never quoted as a finding: what a paper does, what other studies found,
what the authors advise (:func:`advice_only`), what a figure or table shows (its caption:
"Kaplan-Meier curves for overall and progression free survival of the ... cohort.", quoted as
a finding of a review over full texts when captions were joined to the prose around them), a
table's row ("Table 2, Age (years): Erlotinib 62; Placebo 61.": 257 of the 1,615 sentences of
the shared fixtures' full texts that could be quoted were rows), and the rest of
:data:`SET_ASIDE`."""
EXAMPLE = re.compile(r"(?:(?:for (?:example|instance)|as an (?:example|illustration)|"
                     r"to illustrate)\b|e\.g\.)[,:]?\s", re.IGNORECASE)
"""A sentence opening with an example: it illustrates what the paper describes ("For example,
in order to allow users to better understand what impact a paper had ..., we experimented with
methods for classifying a citation ...", quoted as a finding of a review over the recorded
N18-3011 PDF), and is a finding only when it reports a measured result (:func:`example_only`).
Of the sentences of the shared fixtures' eleven full texts that could be quoted, 20 open so,
none stating a result; of SciFact's 45,952 abstract sentences, 33 do. Held out, in
science-parse's 29 test papers 110 sentences are set aside so; of 28 read, one tells of a
result without a figure ("For example, one change that took a few months to make in our old
indexing system took only a few days ..."), the others illustrate."""


def example_only(text: str, facets: set[str]) -> bool:
    """Whether a sentence only gives an example (:data:`EXAMPLE`): it opens with one, and does
    not state a result with a figure ("For example, median survival was 23 months" is a
    result, "For example, a doctor might select ... observations" is not)."""
    return EXAMPLE.match(text) is not None and not (
        "result" in facets and MEASURED.search(text) is not None)
WANTED_FACETS = {
    "method": ASKS_METHODS,
    "limitation": re.compile(r"\blimitation\w*\b", re.IGNORECASE),
}


@dataclass(frozen=True)
class Candidate:
    """A sentence that may be quoted: where it is, whose it is, and how relevant."""

    quote: Quote
    work_id: str
    year: int | None
    facets: frozenset[str]
    relevance: float = 0.0
    labelled: bool = False
    """Its kind is read from a structured abstract's label ("RESULTS:", "Conclusion")."""
    opening: bool = False
    """It opens an abstract before the abstract names its work, what the work did or a result,
    and states no figure ("Youth with inflammatory bowel disease often experience
    psychological difficulties..."): the field's context, not the work's finding
    (:func:`states_finding`). A sentence with a figure is not ("The Materials Project reports
    GaAs (mp-2534), ..., computed band gap 0.19 eV": a database entry's values)."""

    def finding(self, sub_question_id: str | None, kind: FindingKind = "finding") -> Finding:
        return Finding(text=self.quote.text, passage_ids=[self.quote.passage_id],
                       sub_question_id=sub_question_id, kind=kind, quotes=[self.quote],
                       support=1.0)


GLUED_REFERENCE = re.compile(r"(?<=[a-z)][.!?])\d{1,3}(?:[,\u2013-]\d{1,3})*"
                             r"(?=[A-Z][a-z]+ [A-Z]{1,3}\b)")
"""A reference number and the first author glued to a sentence's full stop ("...mortality
risk.8Neill DB Herlands W Machine learning for..."): the sentence ends at the full stop."""
SUPERSCRIPT_CITATION = re.compile(r"[a-z]{2}(?:,\d{1,3}(?:[,\u2013-]\d{1,3})*(?=\s[a-z])"
                                  r"|\.\d{1,3}(?:[,\u2013-]\d{1,3})*(?=\s?[A-Z][a-z]))")
"""A reference number set as a superscript and flattened into the text after a word and its
comma or full stop ("... created by a team at Johns Hopkins University,5 newer dashboards
track ...", "... a variety of diseases.15 Science Clips ..."). A sentence carrying one, or ending
in a reference glued to its full stop (:data:`GLUED_REFERENCE`), states what the cited work
found: a commentary's text retold, not the work's own result. Of SciFact's 5,183 abstracts, 13
places match, most of them citations in commentaries."""


def quotable(passage: Passage, year: int | None) -> list[Candidate]:
    """The passage's sentences worth quoting, a structured-abstract label ("RESULTS:") and a
    figure panel's or list item's letter ("(B) We found ...",
    :func:`~scholargraph.rag.chunking.item_label_end`) cut off the front (the quote stays
    verbatim: its start offset moves past the label); boilerplate
    and reference-list debris are not statements and are left out. A title (the only passage of
    a work without an abstract) is quotable as a finding only when it states a result ("X
    reduces Y"); one that names a topic ("Machine Learning in Public Health: A Review") is
    marked, like a sentence saying what a paper does, as never a finding. A sentence opening an
    abstract whose only result word is a promise ("ML ... shows promise for public health",
    :func:`promise_only`), before the abstract names the work, what it did or a result, is
    background;
    the same words once the work has reported ("RS-based regionalization demonstrates strong
    potential...", closing an abstract after "we examined...") are its conclusion."""
    found = []
    # whether the abstract has begun saying what the work did (unknown past its first piece)
    reported = passage.section != "abstract" or passage.start > 0
    for start, end in split_sentences(passage.text):
        start = item_label_end(passage.text, start)  # "(B) RESULTS: ..."
        label = LABEL.match(passage.text, start, end)
        facet = None
        if label:
            name = next(g for g in label.groups() if g).lower()
            if name in LABEL_FACETS:
                facet, start = LABEL_FACETS[name], label.end()
        start = item_label_end(passage.text, start)  # "(B) We found ...": the figure's panel
        cites = bool(SUPERSCRIPT_CITATION.search(passage.text, start,
                                                 min(len(passage.text), end + 12))
                     or (passage.section == "abstract"
                         and ABSTRACT_CITATION.search(passage.text, start, end) is not None))
        if glued := GLUED_REFERENCE.search(passage.text, start, end):
            end, cites = glued.start(), True
        text = passage.text[start:end]
        if len(text) > MAX_SENTENCE or (len(text) < MIN_SENTENCE and not short_result(text)):
            continue
        if BOILERPLATE.search(text) or funding_line(text):
            continue
        if not_a_statement(text) or run_together(text):
            continue
        cued = INNER_PURPOSE.sub(" ", PURPOSE_CLAUSE.sub("", text, count=1))  # an aim's words
        facets = {name for name, cue in FACET_CUES.items()
                  if cue.search(cued if name == "result" else text) and name != "limitation"}
        if (PURPOSE_CLAUSE.match(text) or procedure_only(text)) and "result" not in facets:
            facets.add("method")  # what was done (and what for), nothing found
        if REVIEW_CONDUCT.search(text):
            facets = {"method"}  # how a review searched and what it found to include
        if states_limitation(text) and (facet != "method" or LIMITATION_STATED.search(text)):
            facets.add("limitation")  # under Methods, "confounders" are what was measured
        if facet == "result" and (sample_only(text) or "result" not in facets and (
                ENROLMENT.search(text) or procedure_only(text))):
            facet = "method"  # "RESULTS A total of 9020 patients were included."
        elif facet is None and sample_only(text):
            facets = (facets - {"result"}) | {"method"}  # who took part: its sample
        if facet:
            facets = {facet} | (facets & {"limitation"})
        elif not reported and promise_only(text) and not THIS_WORK.search(text):
            facets = (facets - {"result"}) | {"background"}  # a field's promise, opening it
        elif FIELD_BACKGROUND.search(text) or FIELD_STANDING.search(text) or (
                EXPLANATION.search(text)) or (
                (WIDELY_USED.search(text) or USUAL_PRACTICE.search(text)
                 or (PRACTICE.search(text) and not THIS_WORK.search(text)))
                and "result" not in facets) or (
                FIELD_NEED.search(text) and not MEASURED.search(text)
                and not THIS_WORK.search(text)) or (
                (EARLIER_FINDINGS.search(text) or DEFINITION.search(text))
                and not THIS_WORK.search(text)):
            facets = (facets - {"result"}) | {"background"}  # what the field has become or lacks
        if "limitation" not in facets and advice_only(text):
            facets = {"advice"}  # prescribes or judges; reports nothing
        opening = (not reported and not facets and not THIS_WORK.search(text)
                   and MEASURED.search(text) is None)  # a figure is no context: an entry's value
        reported = reported or facet in ("method", "result") or "result" in facets or bool(
            THIS_WORK.search(text) or PAPER_DOES.search(text))
        if passage.kind in ("caption", "table"):
            facets = {passage.kind}  # names what a figure or table shows, or is a row of one
        elif garbled(text):
            facets = {"garbled"}  # not what the page prints: no reader can check it
        elif passage.page is not None and table_as_text(text):
            facets = {"table"}  # a PDF's table of words, read as a line of text
        elif passage.section not in ("abstract", "title") and code_as_text(text):
            facets = {"code"}  # a program's lines, read as a sentence of a full text
        elif example_only(text, facets):
            facets = {"example"}  # illustrates; reports nothing
        elif POINTER.match(text) or (POINTED_TO.search(text) and not MEASURED.search(text)):
            facets = {"pointer"}  # says where the results are, not what they are
        elif PAPER_DOES.search(text) or LEFT_TO_DISCUSS.search(text) or bare_aim(text) or (
                text.rstrip().endswith("?")) or (
                passage.section == "title" and "result" not in facets):
            facets = {"aim"}  # says what a paper does or is about; states no finding
        elif (cites and not THIS_WORK.search(text)) or others_statement(passage.section, text):
            facets = {"others"}  # another study's result, set beside this work's
        found.append(Candidate(Quote(passage_id=passage.id, start=start, end=end, text=text),
                               passage.work_id, year, frozenset(facets),
                               labelled=facet is not None, opening=opening))
    return found


def others_statement(section: str, sentence: str) -> bool:
    """Whether a sentence of a full text's section reports what others found rather than this
    work: it stands in the Introduction (what was known before), or it names no work of its own
    ("in the current study", "our results") and it cites one or stands in the Discussion. A
    review quotes each work for its own result; the studies it cites are quoted from their own
    papers."""
    if section in ("abstract", "title", "full_text"):
        return False
    if INTRODUCTION_SECTIONS.match(section):
        return True
    if THIS_WORK.search(sentence):
        return False
    return bool(CITED.search(sentence)) or bool(DISCUSSION_SECTIONS.match(section))


def wanted_facets(sub: SubQuestion) -> set[str]:
    """The kinds of sentence a sub-question asks for; results unless it asks for methods."""
    text = f"{sub.text} {sub.answer_shape}"
    wanted = {name for name, cue in WANTED_FACETS.items() if cue.search(sub.text)}
    if "method" not in wanted or re.search(r"\b(finding\w*|result\w*|effect\w*)\b", text,
                                            re.IGNORECASE):
        wanted.add("result")
    return wanted


def rank_candidates(sub: SubQuestion, passages: list[Passage], keywords: list[str],
                    years: dict[str, int | None],
                    embedder: Embedder | None = None,
                    on_topic: set[str] | None = None,
                    read_in_full: dict[str, str] | None = None) -> list[Candidate]:
    """The sub-question's quotable sentences scored, best first; sentences that share no term
    with it and are not of a wanted kind are dropped.

    Relevance mixes BM25 against the sub-question and its key terms, the cosine of the sentence
    with the sub-question when an embedder is given, whether the sentence is of the kind asked
    for (results before background and methods), the rank the RAG filter gave its passage, and
    where the sentence lies in its part of the work (results come late: ``RESULTS_FROM``;
    weights in ``WEIGHTS``). A sentence that only says what its paper does (``PAPER_DOES``) is
    never quoted. A sentence that
    names less than ``QUOTE_MIN`` (and fewer than ``QUOTE_MIN_TERMS``) of the sub-question's
    topic terms (:func:`scholargraph.deterministic.relevance.topic_terms`), its abbreviations
    written out (:func:`work_contexts`), is background, never a finding; with ``on_topic``,
    only sentences of those works are considered. A sentence of another study, as a full text
    cites it (:func:`others_statement`), is never a finding.

    ``read_in_full`` gives the titles of the works read in full. Such a work's sentence on its
    own study (:func:`own_report`) is quoted though it names only one of the topic terms, when
    the title names the subject: in the paper of an erlotinib trial, "a median overall survival
    of 23 months" is the trial's result on erlotinib, as its abstract and Results say it.
    """
    pool = [c for p in passages for c in quotable(p, years.get(p.work_id))
            if on_topic is None or p.work_id in on_topic]
    if not pool:
        return []
    passage_rank = {p.id: rank for rank, p in enumerate(passages)}
    by_id = {p.id: p for p in passages}
    extent: dict[tuple[str, str], int] = {}  # how far the passages of a work's part reach
    for passage in passages:
        part = (passage.work_id, passage.section)
        extent[part] = max(extent.get(part, 0), passage.end)
    texts = [c.quote.text for c in pool]
    lexical = LexicalIndex(texts).scores(f"{sub.text} {' '.join(keywords)}")
    lexical = lexical / (float(lexical.max()) or 1.0)
    dense = _cosines(sub.text, texts, embedder)
    weights = WEIGHTS if dense is not None else {**WEIGHTS, "lexical": WEIGHTS["lexical"]
                                                 + WEIGHTS["dense"], "dense": 0.0}
    wanted = wanted_facets(sub)
    topic = topic_terms(sub.text)
    contexts = work_contexts(passages)
    scored = []
    for index, candidate in enumerate(pool):
        passage = by_id[candidate.quote.passage_id]
        if candidate.facets & NEVER_FINDINGS or not (
                _names_subject(topic, spelled_out(candidate.quote.text, sub.text,
                                                  contexts[candidate.work_id]))
                or _own_result(topic, candidate, passage, (read_in_full or {}).get(
                    candidate.work_id))):
            continue
        facet = _facet_score(candidate.facets, wanted)
        position = ((passage.start + candidate.quote.end)  # where it ends: a lone sentence is 1
                    / (extent[passage.work_id, passage.section] or 1))
        role = section_role(passage.section)
        placed = min(1.0, position / RESULTS_FROM) if role is None else float(role == "result")
        relevance = (weights["lexical"] * float(lexical[index]) + weights["facet"] * facet
                     + weights["prior"] / (1 + passage_rank[candidate.quote.passage_id])
                     + weights["position"] * placed
                     + (weights["dense"] * float(dense[index]) if dense is not None else 0.0))
        scored.append(_with_relevance(candidate, round(relevance, 6)))
    scored.sort(key=lambda c: (-c.relevance, c.quote.passage_id, c.quote.start))
    return scored


RESULT_SECTIONS = re.compile(
    rf"{NUMBERED}(?:results?|findings|(?:main |experimental )?results and discussion|"
    r"experiments?|experimental results|evaluation|efficacy|outcomes?|conclusions?|"
    r"summary)\b(?!\s+(?:setup|design|data|protocol|methods?)\b)", re.IGNORECASE)
"""Sections of a full text where a work states its results ('Results > Efficacy', '5 Results',
'4 Experiments', 'Conclusion'), though not an experiment's setup."""
METHOD_SECTIONS = re.compile(
    rf"{NUMBERED}(?:(?:materials and |patients and |subjects and )?methods?|methodology|"
    r"materials|study design|design|experimental (?:setup|design|protocol|procedures?)|setup|"
    r"data(?:sets?| sets?| collection| sources?)?|participants|subjects|patients|procedures?|"
    r"statistical analys[ie]s|model|models|approach|implementation|training|baselines?|"
    r"task|framework|architecture)\b", re.IGNORECASE)
"""Sections of a full text that say what was done: data, design, model, setup."""
APPENDIX_SECTIONS = re.compile(r"(?:[A-H]\.?\s+)?(?i:appendix|appendices|supplement\w*)\b|"
                               r"[A-H]\.\d+(?:\.\d+)*\.?\s+[A-Z]")
"""An appendix ('Appendix A - Baseline Details', or a subsection lettered as a PDF numbers
one: 'B.1 Reading source documents'; a lone letter is as often an article, 'A Novel ...'):
details of what was done, whose sentences are the main text's results only as often as a
method section's ('We found that these pretrained embeddings
substantially outperform alternative off-the-shelf embeddings.', of SPECTER's appendix on its
baselines, is about the baselines)."""


def section_role(section: str) -> str | None:
    """'result' or 'method' for a full text's section by its deepest heading that names one
    ('4 Experiments > 4.1 Experimental Setup' is the setup, a method; 'RESULTS > Subgroup
    size' a result; an appendix is 'method', :data:`APPENDIX_SECTIONS`), None for an abstract,
    a title or a section naming neither.

    Where a sentence lies in its part of the work says where results are in an abstract
    (``RESULTS_FROM``), not in a full text's section, whose results come under their own
    heading: the recorded SPECTER PDF's 'A citation from one document to another suggests that
    the documents are related.', ending the short '2.3 Citation-Based Pretraining Objective',
    ranked first for 'What do studies report on citation-informed transformers for scientific
    document embeddings?', above its '5 Results' ('our method slightly outperforms Citeomatic
    on the direct citation task, while substantially outperforming it on co-citations')."""
    if section in ("abstract", "title", "full_text"):
        return None
    headings = section.split(" > ")
    if APPENDIX_SECTIONS.match(headings[0]):
        return "method"
    for heading in reversed(headings):
        if RESULT_SECTIONS.match(heading):
            return "result"
        if METHOD_SECTIONS.match(heading):
            return "method"
    return None


def work_contexts(passages: list[Passage]) -> dict[str, str]:
    """Each work's text as its passages give it, where its abbreviations are defined: a
    result is often stated with the abbreviation its abstract wrote out ("Treatment of young
    infants with macrolide antibiotics was strongly associated with IHPS", after "infantile
    hypertrophic pyloric stenosis (IHPS)"), and names the claim's terms only written out."""
    contexts: dict[str, list[str]] = {}
    for passage in passages:
        contexts.setdefault(passage.work_id, []).append(passage.text)
    return {work_id: " ".join(texts) for work_id, texts in contexts.items()}


def _facet_score(facets: frozenset[str], wanted: set[str]) -> float:
    """How well a sentence's kind fits what the sub-question asks for: 1 for a wanted kind, less
    for background, and, when results are asked for, less for a sentence that only states
    methods (results and conclusions are quoted before background and methods)."""
    score = 1.0 if facets & wanted else 0.0
    if "background" in facets and "background" not in wanted:
        score -= 1.0
    if "result" in wanted and "method" in facets and not facets & wanted:
        score -= 0.5
    return score


def _names_subject(topic: frozenset[str], sentence: str) -> bool:
    """Whether a sentence names enough of the sub-question's topic terms to be quoted for it
    (``QUOTE_MIN`` of them, or ``QUOTE_MIN_TERMS``)."""
    named = terms_named(topic, sentence)
    return bool(topic) and (named >= QUOTE_MIN_TERMS or named / len(topic) >= QUOTE_MIN)


def _own_result(topic: frozenset[str], candidate: Candidate, passage: Passage,
                title: str | None) -> bool:
    """Whether a sentence of a work read in full (``title`` given) states its own result or
    method on the subject its title names, naming at least one of the topic terms."""
    return (title is not None and _names_subject(topic, title)
            and bool(candidate.facets & {"result", "method"})
            and terms_named(topic, candidate.quote.text) >= 1
            and own_report(passage.section, candidate.quote.text))


def _cosines(query: str, texts: list[str], embedder: Embedder | None) -> np.ndarray | None:
    """Cosine of each text with the query, or None without a (working) embedder."""
    if embedder is None:
        return None
    try:
        vectors = embedder.embed_documents(texts)
        return np.clip(vectors @ embedder.embed_query(query), 0.0, 1.0)
    except EmbeddingUnavailable:
        return None


def _with_relevance(candidate: Candidate, relevance: float) -> Candidate:
    return replace(candidate, relevance=relevance)


def choose(candidates: list[Candidate], k: int, used: set[str]) -> list[Finding]:
    """Up to ``k`` findings: relevant, mutually different sentences, one per work, none quoted
    before, oldest work first as a review reads. A sentence of another work that says nearly
    the same thing the same way is not quoted as a finding of its own: it is cited beside the
    one it repeats, as corroboration."""
    fresh = [c for c in candidates if c.quote.text not in used]
    if not fresh:
        return []
    fresh = [c for c in fresh if c.relevance >= RELATIVE_FLOOR * fresh[0].relevance]
    readings = [stance(c.quote.text) for c in fresh]
    similarity = np.asarray([[len(a.terms & b.terms) / (len(a.terms | b.terms) or 1)
                              for b in readings] for a in readings])
    order = mmr(np.asarray([c.relevance for c in fresh]), similarity,
                [c.work_id for c in fresh], len(fresh), diversity=DIVERSITY, max_per_group=1)
    chosen: list[int] = []
    twins: dict[int, list[int]] = {}
    for index in order:
        twin = next((c for c in chosen if similarity[index, c] >= REDUNDANT
                     and same_materials(fresh[index].quote.text, fresh[c].quote.text)), None)
        if twin is not None:
            if _same_claim(readings[index], readings[twin]):
                twins.setdefault(twin, []).append(index)
            continue
        if len(chosen) < k:
            chosen.append(index)
    findings = []
    for index in sorted(chosen, key=lambda i: (fresh[i].year or 9999, -fresh[i].relevance)):
        group = [fresh[i] for i in [index, *twins.get(index, [])]]
        used.update(c.quote.text for c in group)
        findings.append(Finding(
            text=group[0].quote.text, passage_ids=[c.quote.passage_id for c in group],
            quotes=[c.quote for c in group], support=1.0))
    return findings


def states_finding(candidate: Candidate, wanted: set[str]) -> bool:
    """Whether a sentence may be quoted as a finding of a topic's sub-question: never one that
    gives background or says what a paper is about or aims at ("The decade since then has seen
    major trends in the digital world...", "This work aims to design..."), and, unless the
    sub-question asks for methods, never one that only states them ("We collected 296,166
    labels..."); a sub-question asking only for methods is answered by sentences stating them.
    A sentence of no recognised kind (a database entry's properties, a plain statement) may
    answer one asking for results: only what is known not to be a finding is kept out, and so
    is a sentence of no kind opening an abstract before it says what its work did
    (``Candidate.opening``: "Youth with inflammatory bowel disease often experience
    psychological difficulties, such as anxiety and depression."), one describing only a
    study's sample ("The sample included 53 ambulatory IBD patients (66% females)...", a
    method: :func:`sample_only`) and one saying only that findings matter ("Our findings have
    important implications for the clinical care of pediatric IBD.",
    :func:`implications_only`); the three were quoted as findings of a topic's review over a
    library of inflammatory bowel disease records."""
    if candidate.facets & ({"aim", "background"} | SET_ASIDE) or candidate.opening:
        return False
    if implications_only(candidate.quote.text):
        return False
    if "result" not in wanted:  # it asks for methods: a sentence stating them
        return bool(candidate.facets & wanted) or sample_only(candidate.quote.text)
    if sample_only(candidate.quote.text):
        return "method" in wanted
    return "method" in wanted or "method" not in candidate.facets or "result" in candidate.facets


def results_first(candidates: list[Candidate]) -> list[Candidate]:
    """A claim's candidate sentences without those that state no result (its methods,
    background or aims: "Methods Among 35,116 individuals ... we selected 11,628 individuals
    via random down-sampling.") of a work that has a sentence stating one among them: a claim's
    finding quotes each study for what it found, not for how it sampled, which the ranking
    can put first when the sentence names the claim's words ("national survey").
    A work with no result sentence keeps its best sentence, as before."""
    with_result = {c.work_id for c in candidates if states_result(c)}
    return [c for c in candidates if c.work_id not in with_result or states_result(c)
            or not c.facets & {"method", "background", "aim"}]


SAMPLE_DESCRIBED = re.compile(
    r"\b(?:the|our|this|study) (?:\w+ )?sample (?:included|comprised|consisted|was composed|"
    r"was made up|contained)\b|\b(?:mean|median) age (?:of (?:the )?\w+ )?(?:was|were)\b",
    re.IGNORECASE)
"""A sentence saying who a study took in ("The sample included 53 ambulatory IBD patients
(66% females) with ages from 18 to 65", "Mean age was 41 years"), beside :data:`ENROLMENT`."""
SAMPLE_SHARES = re.compile(r"\([^()]*\d\s?%[^()]*\)|\b\d+(?:\.\d+)?\s?% (?:were |was )?"
                           r"(?:\w+ )?(?:females?|males?|women|men|girls|boys)\b", re.IGNORECASE)
"""The share of a sample that is of a kind ("(66% females)", "62% were women"): its make-up,
not a result; "worry fell by 30%" is one."""
SURVEY_RATE = re.compile(r"\b(?:response|participation|completion) rates? (?:was |were |of )?"
                         r"(?:\w+ )?\d+(?:\.\d+)?\s?%", re.IGNORECASE)
"""The share of those asked who answered ("a response rate of 62%"): a survey's sample, set
aside as :data:`SAMPLE_SHARES` only in a sentence naming a survey (:data:`SURVEYED`,
"surveyed", "invited"); a
treatment's objective response rate is its result."""


def sample_only(text: str) -> bool:
    """Whether a sentence only describes a study's sample: it says who was taken in
    (:data:`ENROLMENT`, :data:`SAMPLE_DESCRIBED`) and no result word is left once the
    shares of its make-up are set aside (:data:`SAMPLE_SHARES`: "66% females" is no finding;
    :data:`SURVEY_RATE`). Such a
    sentence answers a topic's question on methods, never one on results."""
    if not (ENROLMENT.search(text) or SAMPLE_DESCRIBED.search(text)):
        return False
    rest = SAMPLE_SHARES.sub(" ", text)
    if re.search(rf"\b(?:{SURVEYED}|surveyed|invited)\b", text, re.IGNORECASE):
        rest = SURVEY_RATE.sub(" ", rest)
    return not FACET_CUES["result"].search(rest)


IMPLICATIONS = re.compile(
    r"^(?:taken together, |overall, |in conclusion, )?(?:our|these|the|this study's|the study's) "
    r"(?:\w+ )?(?:findings|results|data) (?:have|has|hold|carry) (?:\w+ ){0,2}?implications? "
    r"for\b[^,;]*\.?$", re.IGNORECASE)


def implications_only(text: str) -> bool:
    """Whether a sentence says only that the work's findings matter ("Our findings have
    important implications for the clinical care of pediatric IBD."), without saying what they
    are: nothing a reader of a topic's review can take from it."""
    return IMPLICATIONS.match(text.strip()) is not None


def states_result(candidate: Candidate) -> bool:
    """Whether a sentence states a result: of the result kind and not background. What a paper
    does, advice and another study's result are marked so alone (:func:`quotable`), never
    beside "result"."""
    return "result" in candidate.facets and "background" not in candidate.facets


def work_result(work: Work, topic: frozenset[str], used: set[str],
                question: str = "") -> Candidate | None:
    """The sentence of a work that best states its result on the topic, or None when it states
    none. Every sentence of its abstract is read (:func:`summary_passages`), not only the
    pieces the RAG filter kept; of those of the result kind (not background or aims, none
    quoted already, nor describing only its sample or saying only that it matters:
    :func:`sample_only`, :func:`implications_only`) on the topic
    (:func:`on_the_topic`) the one naming most of the ``topic``
    terms is taken, one stating no limitation before one that does ("Further work is
    warranted to increase the accuracy"), one under a structured abstract's Results or
    Conclusions label before one read as a result from its words, a later one before an
    earlier (conclusions close an abstract)."""
    pool = [c for passage in summary_passages(work) for c in quotable(passage, work.year)
            if states_result(c) and not sample_only(c.quote.text)
            and not implications_only(c.quote.text) and c.quote.text not in used]
    context = f"{work.title} {work.abstract or ''}"
    titled = on_topic_terms(topic, work.title, question, context) >= WORK_TOPIC_MIN * len(topic)
    named = {id(c): on_topic_terms(topic, c.quote.text, question, context) for c in pool}
    pool = [c for c in pool if on_the_topic(named[id(c)], c.quote.text, titled)]
    if not pool:
        return None
    last = max(c.quote.end for c in pool) or 1
    return max(pool, key=lambda c: ("limitation" not in c.facets, named[id(c)], c.labelled,
                                    c.quote.end / last))


MEASURED = re.compile(r"\d+(?:[.,]\d+)*\s?%|[=<>]\s?\d|\b\d+[.,]\d+\b|"
                      r"\b(?!(?:19|20)\d\d\b)\d{2,}\b")
"""A number stating a measured result (a percentage, "AUC=0.85", "0.821", "9000 tweets"); a
year alone is not one."""


def on_the_topic(named: int, sentence: str, titled: bool) -> bool:
    """Whether a work's result sentence is its result on the topic: it names one of the topic's
    terms (``named`` of them), or it states a measured figure (:data:`MEASURED`) and the work's
    title names ``WORK_TOPIC_MIN`` of the terms (``titled``): in "Machine learning to predict
    suicide ideation", "The model reached an AUC of 0.85" is the study's result on machine
    learning, which it names as "the model".

    A result naming no term of the topic and no figure is the work's result on something else:
    a study of "mathematical modeling and machine learning for public health decision-making"
    whose one result sentence is "The findings revealed that the equilibrium point is stable
    regardless of the initial conditions" states no result on machine learning for public
    health surveillance, and a review of the topic quoting it misleads; the work is listed
    among the included works, not quoted. A comparison of the study's groups counts as a
    figure does (:data:`COMPARED`): a trial of "a cognitive behavioral therapy for youth with
    inflammatory bowel disease" states its result as "we found no differences between those
    receiving additional CBT and those receiving standard medical care only"."""
    return named >= RESULT_TOPIC_MIN or (titled and (MEASURED.search(sentence) is not None
                                                     or COMPARED.search(sentence) is not None))


COMPARED = re.compile(r"\b(?:differ\w*|no difference\w*) (?:\w+ ){0,3}?between\b|"
                      r"\bcompared (?:with|to)\b|\b(?:than|versus|vs\.?) (?:those|the|patients|"
                      r"participants|controls|placebo|usual care|standard)\b", re.IGNORECASE)
"""A result comparing the groups a study set against each other ("we found no differences
between those receiving additional CBT and those receiving standard medical care only"): a
trial's outcome on what its title names, though the sentence names it by its own short name,
and with no figure (:func:`on_the_topic`)."""


RESULT_TOPIC_MIN = 1
"""How many of the topic's terms a work's result sentence must name to be its result on the
topic (:func:`on_the_topic`). One, not a share: a trial's result on a drug names the drug and
rarely the review's other words ("Zero treated bleeds with emicizumab vs prior episodic BPAs
was 62.5% vs 8.3%", for a review of emicizumab's pharmacokinetics and efficacy)."""


def on_topic_terms(topic: frozenset[str], sentence: str, question: str = "",
                   context: str = "") -> int:
    """How many of the ``topic`` terms a sentence names, its abbreviations written out where
    the work (``context``: title and abstract) or the ``question`` defines them, or the
    question's words spell them ("ML models" for "machine learning"):
    :func:`~scholargraph.deterministic.stance.spelled_out`."""
    return terms_named(topic, spelled_out(sentence, question, context))


TOPIC_RESULTS = 25
"""At most this many more works a topic's review quotes for their result
(:func:`results_of_uncited`), closest to the question first. A review of a 1,700-record library
screened recall-first includes hundreds of works (601 for a tertiary study of systematic reviews
in software engineering), and a finding for each buried the few dozen on the question among
hundreds of lines; the others are listed under "Included works", in the same order."""


class UncitedResults(NamedTuple):
    """What :func:`results_of_uncited` found."""

    findings: list[Finding]
    """A finding for each work quoted, up to the limit."""
    left: int
    """How many more works state a result and are not quoted, past the limit."""


def results_of_uncited(subs: list[SubQuestion], papers: list[Work], eligible: set[str],
                       findings: list[Finding], keywords: list[str],
                       used: set[str], limit: int = TOPIC_RESULTS) -> UncitedResults:
    """For a topic, a finding for each included work that states a result and that no finding
    quotes yet, up to ``limit`` of them in the order of ``papers`` (the review's included
    works, closest to the question first): its result sentence (:func:`work_result`), under
    the sub-question asking for results whose terms it names most (on a tie, the one with
    fewest findings so far); and how many more such works there are, past the limit
    (:func:`unquoted_results_gap` says so).

    The sub-questions' own findings are the few most relevant sentences of the passages the RAG
    filter kept, a handful of works among all those screening included; a scientist reading a
    review of a topic expects every included study that reports a result to be cited for it
    (the README's review of "machine learning for public health surveillance" included 16
    works and quoted 2, by background sentences). ``eligible`` are the works on the question's
    topic (``WORK_TOPIC_MIN`` of its key terms)."""
    asking = [s for s in subs if "result" in wanted_facets(s)] or subs
    if not asking:
        return UncitedResults([], 0)
    counts = {s.id: sum(f.sub_question_id == s.id for f in findings) for s in asking}
    question_topic = topic_terms(" ".join(keywords)) or topic_terms(asking[0].text)
    results = _uncited_results(papers, eligible, findings, question_topic, used,
                               " ".join(keywords) or asking[0].text, {s.id for s in asking})
    added: list[Finding] = []
    for best in islice(results, limit):
        sub = max(asking, key=lambda s: (term_share(topic_terms(s.text), best.quote.text),
                                         -counts[s.id]))
        counts[sub.id] += 1
        used.add(best.quote.text)
        added.append(best.finding(sub.id))
    return UncitedResults(added, sum(1 for _ in results))


def unquoted_results_gap(left: int, limit: int = TOPIC_RESULTS) -> list[str]:
    """The gap a topic's review states when ``left`` more of its included works report a
    result than it quotes (:func:`results_of_uncited` with the same ``limit``): how many, and
    where to find them."""
    if not left:
        return []
    return [f"{counted(left, 'more included work')} {'states' if left == 1 else 'state'} a "
            "result on the topic that is not quoted here: beside the sub-questions' own "
            f"findings, the review quotes the results of the {limit} works closest to "
            "the question. \"Included works\" lists every included work, closest first."]


def _uncited_results(papers: list[Work], eligible: set[str], findings: list[Finding],
                     topic: frozenset[str], used: set[str], question: str = "",
                     asking: set[str] | None = None) -> Iterator[Candidate]:
    """The result (:func:`work_result`) on the ``topic`` of each eligible work no finding cites
    that states one, in the order of ``papers``; with ``asking`` (the ids of the sub-questions
    asking for results), a work cited only under the others (for its methods: "we included 70
    youth (10-25 years) with IBD ...") is not yet cited for its result, and its result is
    quoted too: a review of psychological interventions for inflammatory bowel disease cited
    the one randomised trial of one for its sample alone, not for finding no difference
    between the therapy and standard care."""
    cited = {work for finding in findings for work in _works(finding)
             if asking is None or finding.sub_question_id in asking}
    for work in papers:
        if work.id in cited or work.id not in eligible:
            continue
        best = work_result(work, topic, used, question)
        if best is not None:
            yield best


def same_materials(first: str, second: str) -> bool:
    """Whether two sentences name the same materials: the same statement about GaAs and about
    Si is two findings, not one corroborating the other."""
    return ({m.label for m in named_materials(first)} ==
            {m.label for m in named_materials(second)})


def _same_claim(first: Stance, second: Stance) -> bool:
    """Near-identical sentences corroborate each other unless their directions differ."""
    relation = compare(first, second)
    return (relation is None or relation.relation == "agree") and first.main == second.main


def compared_pairs(statements: list[Finding], topic: frozenset[str] = frozenset(),
                   subject: frozenset[str] = frozenset()
                   ) -> list[tuple[Comparison, Finding, Finding]]:
    """Pairs of statements on one sub-question, from different works, that agree or oppose
    about the same subject (each names ``SAME_TOPIC_MIN`` of the ``topic`` terms and they share
    one); strongest (most shared outcome terms) first. Near-identical sentences (``REDUNDANT``)
    pointing the same way are one statement repeated, often by two versions of one paper: they
    are not an agreement (pointing opposite ways they are still a contradiction). Two works
    oppose only on an outcome outside the claim's ``subject`` (:func:`claim_subject`): trials
    of one injection both name "injection", and "reduced from 100 before injection" against
    "more effective than injection" is no disagreement on it."""
    texts = [_quoted(s) for s in statements]
    readings = [stance(text) for text in texts]
    on_topic = [not topic or term_share(topic, text) >= SAME_TOPIC_MIN for text in texts]
    pairs = []
    for (i, a), (j, b) in combinations(enumerate(statements), 2):
        if a.sub_question_id != b.sub_question_id or _works(a) & _works(b):
            continue
        if not (on_topic[i] and on_topic[j]) or (topic and not topic & readings[i].terms
                                                 & readings[j].terms):
            continue
        result = compare(readings[i], readings[j])
        repeated = _jaccard(readings[i].terms, readings[j].terms) >= REDUNDANT
        if result is None or (repeated and result.relation == "agree"):
            continue
        if result.relation == "oppose" and not (result.shared - subject - WHEN_TERMS) & (
                _changed(readings[i]) | _changed(readings[j])):
            continue
        pairs.append((result, a, b))
    pairs.sort(key=lambda item: -len(item[0].shared))
    return pairs


def _changed(reading: Stance) -> frozenset[str]:
    """The terms a sentence says changed: those after a direction word ("reducing pain"), or
    around a sign when nothing follows in its clause ("Mortality at 90 days was higher in
    ..."; not around "effective": what comes before it is what works, not what changed).
    Two works oppose on an outcome only when it is one of them: "effective for reducing pain and
    improving knee function in patients" and "effective in improving ... MOCART outcomes in
    patients" share "effective" and "patients" around opposite words, and disagree on
    nothing."""
    return frozenset().union(*(cue.after or (cue.outcome if cue.direction != "effect" else
                                             frozenset()) for cue in reading.cues))


def _jaccard(first: frozenset[str], second: frozenset[str]) -> float:
    return len(first & second) / (len(first | second) or 1)


def _works(statement: Finding) -> set[str]:
    """The works a statement cites (a passage id starts with its work's id)."""
    return {passage_id.split("#")[0] for passage_id in statement.passage_ids}


def contradictions(statements: list[Finding], limit: int | None = None,
                   topic: frozenset[str] = frozenset(),
                   seen: set[frozenset[str]] | None = None,
                   subject: frozenset[str] = frozenset()) -> list[Finding]:
    """Contradiction findings: statements of two works on the same sub-question, subject and
    outcome that point opposite ways, both quoted, both cited; no statement used in two
    contradictions, and no pair of works set against each other twice (``seen`` carries the
    pairs already reported across sub-questions)."""
    found: list[Finding] = []
    used: set[int] = set()
    seen = set() if seen is None else seen
    for result, a, b in compared_pairs(statements, topic, subject):
        pair = frozenset(_works(a) | _works(b))
        if result.relation != "oppose" or id(a) in used or id(b) in used or pair in seen:
            continue
        used.update((id(a), id(b)))
        seen.add(pair)
        outcome = _outcome_words(result, a) or "the same outcome"
        text = (f"Sources disagree on {outcome}: one reports {DIRECTION_WORDS[result.first]}, "
                f"the other {DIRECTION_WORDS[result.second]}.")
        found.append(_paired(text, a, b, "contradiction"))
        if limit is not None and len(found) == limit:
            break
    return found


def agreements(statements: list[Finding], limit: int, topic: frozenset[str] = frozenset(),
               seen: set[frozenset[str]] | None = None) -> list[Finding]:
    """Agreement findings: two works reporting the same direction on a shared outcome of the
    same subject, each pair of works once (``seen`` as for :func:`contradictions`)."""
    found: list[Finding] = []
    seen = set() if seen is None else seen
    for result, a, b in compared_pairs(statements, topic):
        pair = frozenset(_works(a) | _works(b))
        if result.relation == "agree" and len(found) < limit and pair not in seen:
            seen.add(pair)
            outcome = _outcome_words(result, a)
            found.append(_paired(f"Sources agree on {outcome}: both report "
                                 f"{DIRECTION_WORDS[result.first]}.", a, b, "agreement"))
    return found


def _outcome_words(result: Comparison, a: Finding) -> str:
    """The words of ``a`` naming what two statements agree or disagree on, without the
    direction words themselves (``Comparison.cue_terms``): "Sources agree on prophylaxis,
    significantly, reduced: both report a decrease" named the cue ("significantly reduced") as
    what changed, where the sentences' outcome was the bleeding rate. The shared terms as they
    were when nothing else is left."""
    named = surface_terms(_quoted(a), result.shared - result.cue_terms)
    return ", ".join(named or surface_terms(_quoted(a), result.shared))


def _quoted(statement: Finding) -> str:
    return " ".join(q.text for q in statement.quotes) or statement.text


def _paired(text: str, a: Finding, b: Finding, kind: FindingKind) -> Finding:
    return Finding(text=text, passage_ids=list(dict.fromkeys([*a.passage_ids, *b.passage_ids])),
                   sub_question_id=a.sub_question_id, kind=kind, quotes=[*a.quotes, *b.quotes],
                   support=1.0)


def claim_candidates(claim_sub: SubQuestion, passages: list[Passage], papers: list[Work],
                     keywords: list[str], embedder: Embedder | None = None) -> list[Candidate]:
    """The sentences of every passage (each once, whichever sub-question it was kept for)
    ranked against the sub-question that asks a claim itself: ranked once, then read both for
    the claim's findings (:func:`extractive_draft`) and for each study's stance
    (:func:`scholargraph.agents.synthesis.with_stances`).

    Every piece of each included work's abstract is among the passages for a claim (the RAG
    filter hears them all under the claim's sub-question,
    :func:`scholargraph.agents.rag_filter.with_every_study`). First tried for issue 22 on 100
    held-out claims (400-499: abstract-label-f1 0.342 -> 0.340, cited-precision 0.416 ->
    0.408), it was kept once a claim over a 1,173-record library cited 4 of its 12 included
    studies (now 8): on claims 400-808, with a background rule and a sentence split of the same
    change, abstract-label-f1 0.454 -> 0.456, rationale-precision 0.613 -> 0.622,
    evidence-recall 0.801 -> 0.802, cited-precision 0.514 -> 0.506, contradiction figures
    unchanged."""
    years = {work.id: work.year for work in papers}
    unique = list({p.id: p for p in passages}.values())
    return rank_candidates(claim_sub, unique, keywords, years, embedder,
                           read_in_full=full_titles(papers))


def full_titles(papers: list[Work]) -> dict[str, str]:
    """The titles of the works read in full, by work id."""
    return {work.id: work.title for work in papers if work.full_text_spans}


def stance_pool(sub: SubQuestion, ranked: list[Candidate]) -> list[Finding]:
    """The sub-question's most relevant sentences that state a result, as single-quote
    statements, for comparison. Two works contradict or agree by their results: a question
    left open ("However, it is not known what would better drive osteoarthritis stabilization
    ..."), a design ("A prospective randomized controlled clinical trial was carried out ...
    with a similar osteoarthritis grade") or an aim ("We investigated ... whether ... would
    improve osteoarthritis") set against a study's result made three contradictions of a
    claim's review of a knee-osteoarthritis library, none of them real."""
    return [c.finding(sub.id) for c in filter(states_result, ranked)][:STANCE_POOL]


def source_limitations(ranked: dict[str, list[Candidate]], used: set[str],
                       cited: set[str] | None = None) -> list[Finding]:
    """Limitations the sources state about themselves, quoted, one per work; with ``cited``,
    only of those works (a limitation of a work the review does not otherwise cite is not one
    of its evidence)."""
    pool = [(c, sid) for sid, candidates in ranked.items() for c in candidates
            if "limitation" in c.facets and c.quote.text not in used
            and (cited is None or c.work_id in cited)]
    pool.sort(key=lambda item: -item[0].relevance)
    found, works = [], set()
    for candidate, sid in pool:
        if candidate.work_id in works or candidate.quote.text in used:
            continue
        works.add(candidate.work_id)
        used.add(candidate.quote.text)
        found.append(candidate.finding(sid, kind="limitation"))
        if len(found) == SOURCE_LIMITATIONS:
            break
    return found


REVIEW_LIMITATIONS = [
    ("Evidence comes from titles and abstracts (and full text where a source provided it); "
     "what the full papers add or qualify was not read."),
    ("Contradictions and agreement are found from direction words (increase, decrease, no "
     "effect) around shared terms; disagreements about numbers or populations are not "
     "detected."),
]


def extractive_draft(subs: list[SubQuestion], passages: list[Passage], papers: list[Work],
                     keywords: list[str], embedder: Embedder | None = None,
                     claim_sub: SubQuestion | None = None,
                     claim_ranked: list[Candidate] | None = None) -> Draft:
    """The deterministic review: quoted findings per sub-question, contradictions, agreement,
    source limitations, gaps and the review's own limitations. With an ``embedder``, sentences
    are also ranked by their closeness in meaning to the sub-question.

    ``claim_sub`` is, for a claim to check, the sub-question that asks the claim itself: its
    findings are chosen first, and a study quoted there for its result is not quoted again as a
    finding of another sub-question (its methods or background are not findings about the
    claim; on SciFact train claims, 2 of 13 such sentences were rationale sentences, against
    13 of 17 quoted for the claim itself). ``claim_ranked`` is that sub-question's sentences
    already ranked over every passage (:func:`claim_candidates`, which the stances read too):
    its own passages' sentences are taken from it instead of being ranked a second time.

    The other sub-questions of a claim quote only the works that test it most directly
    (:func:`beside_the_claim`), and no sub-question of a claim quotes background (what a field
    has become, needs or does in practice: "Machine learning approaches are utilized in
    healthcare for computational decision-making ...", quoted as the methods of a claim's
    review of machine learning in public-health surveillance)."""
    years = {work.id: work.year for work in papers}
    used: set[str] = set()
    ranked: dict[str, list[Candidate]] = {}
    findings: list[Finding] = []
    compared: list[Finding] = []
    opposed: set[frozenset[str]] = set()
    agreed: set[frozenset[str]] = set()
    texts = {w.id: work_text(w) for w in papers}
    for passage in passages:
        texts[passage.work_id] = f"{texts.get(passage.work_id, '')} {passage.text}"
    question_topic = topic_terms(" ".join(keywords))
    texts = {w: text for w, text in texts.items()
             if not question_topic or term_share(question_topic, text) >= WORK_TOPIC_MIN}
    claim_works: set[str] = set()
    by_id = {work.id: work for work in papers}
    opinions = {work.id for work in papers if opinion_piece(work)}
    protocols = {work.id for work in papers if study_protocol(work)}
    no_study = {work.id for work in papers if reports_no_study(work)}
    direct = beside_the_claim(papers)
    order = sorted(subs, key=lambda sub: claim_sub is None or sub.id != claim_sub.id)
    for sub in order:
        own = [p for p in passages if p.sub_question_id == sub.id]
        if claim_sub is None:
            own = with_summaries(own, by_id)
        topic = topic_terms(sub.text)
        on_topic = {w for w, text in texts.items() if term_share(topic, text) >= WORK_TOPIC_MIN}
        if claim_ranked is not None and claim_sub is not None and sub.id == claim_sub.id:
            own_ids = {p.id for p in own}
            ranked[sub.id] = [c for c in claim_ranked
                              if c.quote.passage_id in own_ids and c.work_id in on_topic]
        else:
            ranked[sub.id] = rank_candidates(sub, own, keywords, years, embedder, on_topic,
                                             full_titles(papers))
        beside = claim_sub is not None and sub.id != claim_sub.id
        quotable_here = [c for c in ranked[sub.id]
                         if c.work_id not in claim_works and c.work_id not in no_study
                         and (not beside or c.work_id in direct)
                         and (states_finding(c, wanted_facets(sub)) and c.work_id not in opinions
                              if claim_sub is None else "background" not in c.facets)]
        if claim_sub is not None and sub.id == claim_sub.id:
            quotable_here = results_first(quotable_here)
        chosen = [f.model_copy(update={"sub_question_id": sub.id})
                  for f in choose(quotable_here, FINDINGS_PER_QUESTION, used)]
        if claim_sub is not None and sub.id == claim_sub.id:
            claim_works = {work for finding in chosen for work in _works(finding)}
        findings += chosen
        about = {w for w, text in texts.items() if term_share(topic, text) >= CONTEXT_MIN}
        pool = [f for f in stance_pool(sub, ranked[sub.id]) if _works(f) <= about]
        compared += contradictions(pool, CONTRADICTIONS_PER_QUESTION, topic, opposed,
                                   claim_subject(sub.text))
        compared += agreements(pool, AGREEMENTS_PER_QUESTION, topic, agreed)
    unquoted: list[str] = []
    if claim_sub is None:
        uncited = results_of_uncited(subs, papers, set(texts) - opinions - protocols, findings,
                                     keywords, used)
        unquoted = unquoted_results_gap(uncited.left)
        findings = in_review_order(subs, findings + uncited.findings, years)
    cited = {work for finding in findings for work in _works(finding)}
    findings += compared + source_limitations(ranked, used, cited)
    gaps = evidence_gaps(subs, findings, len(papers), claim_sub,
                         database_entries(papers)) + unquoted
    if claim_sub is None:
        gaps += opinion_gap([work for work in papers if work.id in opinions],
                            [work for work in papers if work.id in protocols - opinions])
    return Draft(summary=extractive_summary(subs, findings, passages, papers), findings=findings,
                 gaps=gaps, limitations=[evidence_limitation(papers), *REVIEW_LIMITATIONS[1:]])


BESIDE_THE_CLAIM = 3
"""How many of a claim's included works, most direct first, its other sub-questions (methods,
limitations) may quote: as many as the claim's own sub-question quotes
(``FINDINGS_PER_QUESTION``)."""


def beside_the_claim(papers: list[Work]) -> set[str]:
    """The ids of the works a claim's other sub-questions may quote: the first
    ``BESIDE_THE_CLAIM`` of its included works, which a claim's review lists most direct first
    (:func:`~scholargraph.deterministic.relevance.works_testing_claim`).

    A work quoted in a claim's review reads as evidence on the claim. A work ranked below the
    most direct tests whose sentences the claim's own sub-question does not quote is one on its
    topic that states no result on it; quoting its methods ("We used a cohort of ...") or its
    limitations under the claim's other sub-questions cites it all the same. Re-reading the
    dumped reviews of SciFact train claims (``bench/review.py --dump``), works cited only under
    those sub-questions were relevant 12 times in 39, against 100 in 215 for those quoted on the
    claim itself. Synthesis run again on the dumped reviews of all 809 train claims, without and
    with this rule: chosen on claims 0-399, cited-precision 0.447 -> 0.452; held out, 400-808,
    0.490 -> 0.502; evidence-recall unchanged (0.829, 0.801); rationale-precision 0.674 ->
    0.673 and 0.611 -> 0.607 (a rationale sentence of an evidence abstract cited elsewhere in
    the review, once quoted for another sub-question, is no longer quoted); the 37 claims with
    several evidence abstracts 0.547 -> 0.553, evidence-recall 0.550 unchanged."""
    return {work.id for work in papers[:BESIDE_THE_CLAIM]}


def summary_passages(work: Work) -> list[Passage]:
    """The pieces of a work's abstract (its title when it has none): where a work states its
    own result. A full text's passages are not among them: its Introduction and Discussion
    quote other studies' results ("The overall response rate to TKI varies between 60 and 90%
    [9]"), and the RAG filter ranks its sections one by one already."""
    return [p for p in chunk_work(work) if p.section in ("abstract", "title")]


def with_summaries(kept: list[Passage], works: Mapping[str, Work],
                   score: float | None = None) -> list[Passage]:
    """The passages kept for a sub-question, then the other pieces of the abstracts
    (:func:`summary_passages`) of those ``works`` they come from, filed under the same
    sub-question and ranked after them (``score``: the score they take; else chunking's).

    A kept piece is often an abstract's background and aims, or a full text's Discussion,
    while the sentence stating the work's own methods or results lies in the abstract's piece
    beside it (the README review's methods sub-question kept a crowdsourcing study's second
    piece; its "Methods: We collected 296,166 crowd-generated labels..." sentence is in the
    first)."""
    have = {p.id for p in kept}
    update: dict[str, object] = {} if score is None else {"score": score}
    rest = [passage.model_copy(update={"sub_question_id": kept[0].sub_question_id, **update})
            for owner in dict.fromkeys(p.work_id for p in kept)
            if (work := works.get(owner)) is not None
            for passage in summary_passages(work) if passage.id not in have]
    return [*kept, *rest]


def in_review_order(subs: list[SubQuestion], findings: list[Finding],
                    years: dict[str, int | None]) -> list[Finding]:
    """Findings by sub-question, oldest work first within each, as a review reads."""
    position = {sub.id: index for index, sub in enumerate(subs)}

    def year(finding: Finding) -> int:
        return min((years.get(work) or 9999 for work in _works(finding)), default=9999)

    return sorted(findings, key=lambda f: (position.get(f.sub_question_id or "", len(subs)),
                                           year(f)))


def evidence_limitation(papers: list[Work]) -> str:
    """What the evidence was read from: abstracts only, or how many works in full."""
    read = sum(1 for work in papers if work.full_text_spans)
    if not read:
        return REVIEW_LIMITATIONS[0]
    how = "(open-access full text, cited by section and page)"
    if read == len(papers):  # "1 of 1 ... the others rest on their abstracts" named no others
        return (f"The included work was read in full {how}." if read == 1
                else f"All {read} included works were read in full {how}.")
    return (f"{read} of {counted(len(papers), 'included work')} {'was' if read == 1 else 'were'} "
            f"read in full {how}; the others rest on their titles and abstracts, and what "
            "their full papers add or qualify was not read.")


QUOTED_FOR_RESULTS = "Each included study is quoted for its result on the claim, not again for"
"""How a claim's review names its other sub-questions (methods, limitations) that quote no
finding because its studies are quoted for their results (:func:`extractive_draft`): they
were not left without evidence; "No passage among the 3 included works addresses: What
methods and data have been used ..." said so of a review whose studies each state their
methods."""


def database_entries(papers: list[Work]) -> frozenset[str]:
    """The ids of the included works that are database entries (Materials Project), not
    studies: their values answer no claim's methods or limitations."""
    return frozenset(work.id for work in papers if work.kind == "material")


def quoted_for_results(subs: list[SubQuestion], findings: list[Finding],
                       claim_sub: SubQuestion | None,
                       entries: frozenset[str] = frozenset()) -> list[SubQuestion]:
    """A claim's other sub-questions (methods, limitations) that quote no finding because the
    claim's studies are quoted for their results (``claim_sub``, the sub-question asking the
    claim, quotes a finding): they are answered by those studies, not left without evidence.
    The summary, the gaps and the evaluator's verdict read them alike; the evaluator sent a
    claim's review back to search again for its methods' sub-question although each of its
    studies stated its own (over the recorded corpus, "Machine learning improves disease
    surveillance in public health." ran a second round to no effect). A finding quoting only
    database entries (``entries``, :func:`database_entries`) quotes no study: "TiO2 has a band
    gap above 3 eV." said its studies were quoted for their results beside "No included study
    tests the claim", its one work being the Materials Project's entry."""
    if claim_sub is None or not any(
            f.sub_question_id == claim_sub.id and f.kind == "finding"
            and any(pid.split("#")[0] not in entries for pid in f.passage_ids)
            for f in findings):
        return []
    quoted = {f.sub_question_id for f in findings if f.kind == "finding"}
    return [sub for sub in subs if sub.id != claim_sub.id and sub.id not in quoted]


def evidence_gaps(subs: list[SubQuestion], findings: list[Finding], n_papers: int,
                  claim_sub: SubQuestion | None = None,
                  entries: frozenset[str] = frozenset()) -> list[str]:
    """Sub-questions no finding answers, and those only one work speaks to; when only one
    work was included, that is said once, not once per sub-question. For a claim
    (``claim_sub``, the sub-question asking it) whose studies are quoted for their result, its
    other sub-questions left without a finding are named as such (``QUOTED_FOR_RESULTS``,
    :func:`quoted_for_results`)."""
    gaps = []
    beside = {sub.id for sub in quoted_for_results(subs, findings, claim_sub, entries)}
    if n_papers == 1:
        gaps.append("The review rests on one work: no other study confirms or qualifies what "
                    "it reports.")
    for sub in subs:
        works = {pid.split("#")[0] for f in findings if f.sub_question_id == sub.id
                 and f.kind == "finding" for pid in f.passage_ids}
        if sub.id in beside:
            gaps.append(f"{QUOTED_FOR_RESULTS}: {sub.text}")
        elif not works:
            among = ("of the one included work " if n_papers == 1 else
                     f"among the {counted(n_papers, 'included work')} " if n_papers
                     else "(no work was included) ")
            gaps.append(f"No passage {among}addresses: {sub.text}")
        elif len(works) == 1 and n_papers > 1:
            gaps.append(f"Only one work speaks to: {sub.text}")
    return gaps


def extractive_summary(subs: list[SubQuestion], findings: list[Finding], passages: list[Passage],
                       papers: list[Work]) -> str:
    """What the review did and found, in numbers; the findings themselves are quoted below. It
    reads on from the sentence naming the question (:func:`scholargraph.report.asked_line`)."""
    cited = {p.work_id for p in passages if any(p.id in f.passage_ids for f in findings)}
    years = sorted(w.year for w in papers if w.id in cited and w.year)
    span = f" published {years[0]}–{years[-1]}" if years and years[0] != years[-1] else (
        f" published in {years[0]}" if years else "")
    answered = sum(1 for s in subs if any(f.sub_question_id == s.id and f.kind == "finding"
                                          for f in findings))
    kinds = [f.kind for f in findings]
    return (f"It screened {counted(len(papers), 'work')} and quotes "
            f"{counted(kinds.count('finding'), 'finding')} from {len(cited)} of them{span}, "
            "verbatim from their titles and "
            f"abstracts. {answered_line(answered, len(subs))} "
            f"{_count(kinds.count('contradiction'), 'contradiction')} and "
            f"{_count(kinds.count('agreement'), 'agreement')} between sources are set side by "
            f"side below.")


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
