"""Ranking records for a person: the zero-shot score first, then a model of their decisions.

With no labels the ranking is the zero-shot score (the question and criteria alone). With labels,
linear SVMs learn the person's decisions, as ASReview's default does, one over each of two views
of each record: its TF-IDF words and word pairs (what a reviewer's include often shares literally
with the next one: an intervention's name, an outcome measure) and its all-MiniLM-L6-v2 vector
(what it shares in meaning). The three scores are joined by rank (:func:`normal_scores`),
each weighing as much as it has told apart the person's decisions so far, a classifier judged on
records it was not fitted to (:meth:`Ranker.weights`): where the question describes the includes
well (a review whose zero-shot ranking beats any early classifier), it keeps its weight for as
long as that holds, instead of fading by the number of includes alone; where a review's includes
share words more than meaning (or the reverse), that view leads. Beside the person's excludes,
each classifier counts the 300 undecided records the zero-shot score puts lowest as excludes of a
tenth of the weight (:data:`PSEUDO_EXCLUDES`): from the first include, it learns what an off-topic
record looks like from more than the few near the top the person has excluded.

Features are computed once (:func:`build_features`) and kept on disk (:func:`save_features`),
so a later run with new labels reads them back and only fits the classifier, which for 3,000
records takes well under the 2 s the issue allows (``bench/screening.py --simulate`` prints
``rerank-seconds`` and ``reload-seconds``).

Tried on the nine shared screening sets (simulated-wss-95, mean of the nine, each change alone
from 0.593, the simulation's protocol unchanged: from no labels, refreshed every 10): words in at
least two records (:data:`MIN_RECORDS`) 0.614, kept; the SVM without class weights 0.590 and
with the includes repeated to balance the classes (ASReview's resampling) 0.588; unigrams only
0.586; rank-based instead of standardised fusion 0.591 (under the weight of then: with the
cross-validated weights it gained, below); the prior's weight with 3 or 30 in place
of 10 includes 0.587 and 0.551; include-centroid relevance feedback while fewer than 5 includes
0.596; no embedding view 0.576, embedding weight 2 0.532. Beside two-record words: C 0.1 0.605,
C 2 0.594, embedding weight 0.25/0.5/0.7 0.604/0.625/0.611 (not monotone: with each review
left out in turn, the weight chosen on the other eight gave a held-out mean of 0.591, below
keeping 1.0, so it stays 1.0). A logistic regression fitted too slowly for the 2 s refresh.
These figures use the zero-shot prior before relevance.py's change merged at af3edc2; with it
the mean is 0.608 (Sep_2021 0.437 -> 0.330, Appenzeller-Herzog_2019 0.825 -> 0.854).

With that prior, the weight of the zero-shot score (each alone, from 0.608): ``10 / (10 +
includes)`` held at no less than 0.2 or 0.33, 0.613 and 0.617; raised to the zero-shot score's
AUC gain on the labelled records, 0.619; its square root, 0.602; by the cross-validated
comparison of :meth:`Ranker.weights` (then over one SVM), 0.632 with 3 folds (0.625 with 5; the
larger of it and ``10 / (10 + includes)`` 0.627; the gains squared 0.620, their square roots
0.620). Chosen among these and the learner changes below with each review left out in turn, the
3-fold comparison won eight times of nine, and the held-out mean was 0.620 (the ASReview 3.0.8
default, elas_u4, on the same records from one include and one exclude: 0.593). Tried beside it
and not kept: character 3-5-grams beside the words 0.620; two of each batch of ten taken from
the records the classifier is least sure of (while fewer than ten includes) 0.615; naive Bayes
on the TF-IDF 0.363; naive Bayes added to the SVM 0.517; with the 3-fold weight, embedding
weight 0.5 0.629. With relevance.py's zero-shot score as merged on 2026-11-27,
``bench/screening_simulate.py`` gives 0.616 (ASReview 0.593; recall at 10% 0.629 against 0.644):
above ASReview on six of the nine, below it on Jeyaraman_2020 (0.52 / 0.63), Kitchenham_2010
(0.62 / 0.67) and Sep_2021 (0.28 / 0.40, where that zero-shot score ranks the includes little
above chance).

From there (0.616, one SVM over both views side by side), each alone: ASReview 3's elas_u4
settings in that SVM (C 0.11, the includes weighing 9.8 times the excludes, no stop words, words
in at most 95% of the records, one-record words) 0.608; C 0.11 alone 0.615, the 9.8 weighting
alone 0.614 (3: 0.613), no stop words and at most 95% alone 0.617; those settings without the
embedding view 0.613, with it at weight 0.25 or 0.5 0.618 and 0.610. elas_u4 as it is (words
only, no zero-shot score after the first include) under this bench's protocol gave 0.596, as
ASReview itself (0.593): what ASReview gains over us on Jeyaraman_2020 and Kitchenham_2010 it
gains from words alone (0.63 and 0.66 there). So each view got its own SVM, weighed beside the
zero-shot score by the same cross-validated AUC gain: 0.624 (the gains squared 0.620; the vectors
scaled by 2, a weaker regularisation of that view, 0.622; the two views' scores added with fixed
weights 1:1 and 1:0.5 under the old prior weight, 0.608 and 0.621). Choosing between it and the
single SVM on six reviews and measuring on the other three, over all 84 splits, the held-out mean
was 0.619 against 0.616 (ASReview 0.593 on the same splits): a small gain, less than one
review's noise, kept because it is the rule the zero-shot score was already weighed by and it
gains where the single SVM lost to ASReview (Sep_2021 0.28 -> 0.34, Jeyaraman_2020 0.52 ->
0.58, Bannach-Brown_2019 0.51 -> 0.54; Kitchenham_2010 0.62 -> 0.59, Appenzeller-Herzog_2019
0.87 -> 0.84). Choosing among all sixteen variants on six reviews gave a held-out 0.596, below
keeping any one: they differ by less than the reviews do.

From there (0.619 over relevance.py's zero-shot score of main at ed63ae9; ASReview 0.593; recall
at 10% 0.629 against 0.644), where the gap to ASReview was: given ASReview's start (its include
and exclude drawn with seed 42) in place of none, 0.630 (Sep_2021 0.32 -> 0.35, Kitchenham_2010
0.59 -> 0.61): a small part. Refreshed after every record, as ASReview is, in place of every 10
(the issue's protocol): Sep_2021 0.32 -> 0.43, Donners_2021 0.70 -> 0.74, van_der_Valk_2021,
Jeyaraman_2020 and Kitchenham_2010 within 0.02: a larger part on the small reviews, which the
protocol keeps. Each change alone: the scores joined by rank (:func:`normal_scores`) 0.644;
the English stop list dropped, words in at most 95% of the records kept (ASReview's), 0.643
(with one-record words too, 0.627); ASReview's weighting of the includes (9.8) 0.621, its C 0.11
0.626; the zero-shot score's gain faded by ``20 / (20 + includes)`` 0.621 (Sep_2021 0.44,
Jeyaraman_2020 0.53, Kitchenham_2010 0.54); the gains' square roots 0.616; two of each batch
of ten taken from the top of each view's own ranking (exploration) 0.624. Joined by rank, beside
it: no stop list 0.670 (at most 95% of the records 0.666; one-record words 0.643); C 0.11 0.626;
the 9.8 weighting 0.624; the fade 0.643 (0.659 with no stop list); the exploration 0.646 (0.658).
Choosing among these nineteen on six reviews and measuring on the other three, over all 84
splits, the held-out mean was 0.667 against 0.619 for the learner before (ASReview 0.593; the
chosen at least ASReview's in 98% of the splits, the learner before in 75%): rank and no stop
list was chosen in 71 splits, with at most 95% in 10. Both make sense beyond these nine: rank
joining is indifferent to the shape of each score, and the stop list drops words ("no", "not",
"without", "system") a decision turns on, in any field. Given ASReview's start in place of
none, the chosen learner gives 0.652 against 0.670 (recall at 10% 0.658 against 0.644; Sep_2021
0.47 -> 0.33, Kitchenham_2010 0.70 -> 0.68): the question is worth more than one include and
one exclude drawn at random.

From there (0.670 in the bench's simulator over the features of main at b7de7b5; recall at 10%
0.643, ASReview 0.644), each alone: the undecided records the zero-shot score puts lowest counted
as light excludes in every fit (:data:`PSEUDO_EXCLUDES`), 300 of them at weight 0.1 0.678
(recall at 10% 0.665), at 0.3 0.673 (0.668), at 0.05 0.672 (0.675); 600 at 0.05 0.675 (0.672);
1,000 at 0.03 0.666 (0.684); 150 at 0.2 0.663; the lower half of the library at 0.1 or 0.3 0.665
and 0.660 (too heavy in a large library); 100 at full weight 0.651 (only until ten includes
0.659; 50 until five 0.662). ASReview's "double" balance of the classes (includes weighed
``2.155 * (includes / excludes) ** -0.94``, excludes ``1 - 0.211 / (1 + decisions)``) in place of
balanced class weights 0.663; a logistic regression (liblinear, fast enough: 0.11 s a refresh) in
place of the SVM 0.649 (C 10: 0.651); SVM, logistic regression and naive Bayes (on the words)
averaged by rank in each view 0.650; a third view of character 3-5-grams 0.662 (and 0.4 s a
refresh); each record's highest cosine to an include as a further view 0.630; the question and
criteria as one more include at full weight 0.654 (with the 300 light excludes 0.669: the
zero-shot score already holds what they say). Choosing among these twenty on six reviews and
measuring on the other three (all 84 splits): simulated-wss-95 0.667 against 0.670 for the
learner before, recall at 10% 0.664 against 0.643 (ASReview 0.593 and 0.644); choosing among the
light-exclude settings and none, 0.671 and 0.666; 300 at 0.1 was chosen in 51 of the 84 splits.
So the light excludes were kept for what they do to the first tenth of the screening (recall at
10% above ASReview's held out, where it was below) at no held-out cost in simulated-wss-95, and
nothing here moves that figure beyond the noise of one review: Sep_2021 (272 records) swings
between 0.39 and 0.50 across settings that differ elsewhere by 0.01.

From there (0.678, recall at 10% 0.665, the same features, the 300 light excludes kept in every
variant), each alone, none kept: (a) the zero-shot score's own parts as a third view, so that the
person's decisions re-weigh what the question's score adds up (per record, standardised: its cosine
with the question, with the question and criteria, with each criteria clause and with each of the
question's concepts; the TF-IDF match with question and criteria; a design the criteria want or
exclude; each concept named in the title, named at all, and in how many sentences; the concepts
named only in passing: 14 to 35 columns), under a logistic regression weighed by the same
cross-validated gain: C 0.1 0.668 (Sep_2021 0.50 -> 0.51, Appenzeller-Herzog_2019 0.86 -> 0.88, but
Jeyaraman_2020 0.66 -> 0.61 and Donners_2021 0.73 -> 0.70), C 1 0.656, only while fewer than 10
includes (few labels, few features) 0.672; fitted on the person's decisions alone, without the
light excludes (the zero-shot score chose those, so they teach its parts the zero-shot score back),
0.653; in place of the zero-shot score once the classifiers can be cross-validated (that score one
more column, the two shares added), 0.637 and 0.648 (C 0.1 and 1). (b) Each record's highest cosine
(vectors) with an include minus its highest with an exclude, as a view weighed like the others:
while fewer than 5 or 10 includes 0.670 and 0.670, throughout 0.658, over words and vectors while
fewer than 10 0.656 (Sep_2021 0.31). (c) The question and criteria as one more include at a tenth
or three tenths of a decision's weight: 0.671 and 0.671 (Donners_2021 0.73 -> 0.75, Jeyaraman_2020
0.66 -> 0.63). (d) A second vector per record, of its text past the 192 tokens the model reads
(7,873 of the 12,601 records run past 212 tokens): as a third view 0.653, averaged with the first
vector 0.652, beside it in one view 0.650; recall at 10% rose to 0.671-0.680, wss-95 fell on five
to seven reviews (Jeyaraman_2020 0.66 -> 0.60-0.64, Donners_2021 0.73 -> 0.64-0.68). Choosing
between the learner and each of these on six reviews and measuring on the other three (all 84
splits), none beat the learner held out (0.672 to 0.678 against its 0.678); choosing among all
sixteen, 0.667 (recall at 10% 0.659 against 0.665). What the nine reviews say: a person's first
decisions add little that the question's score, a words SVM and a meanings SVM do not already hold,
and each added view takes a share of the weight from the two SVMs that tell the later includes
apart best.

From there (0.678, recall at 10% 0.665, the same features and simulator, the 300 light excludes
kept in every variant; session of 2026-11-27 evening), each alone, none kept: the title given twice
in the words view, 0.676 (recall at 10% 0.673; Jeyaraman_2020 0.66 -> 0.63); the light excludes
taken from the bottom of the last ranking instead of the zero-shot score's, 0.672; an RBF-kernel
SVM on the vectors, 0.674; each refresh's gains averaged half and half with the last refresh's,
0.676; the gains weighted towards the latest decisions (weight ``exp(-age / tau)`` per record in
the AUC, tau 100 and 300 decisions), 0.672 and 0.669; the zero-shot score as one more column of
each SVM's input (at 0.1), 0.664; the SVM's C chosen per view and refresh among 0.1, 0.5 and 2 by
the same cross-validation, 0.674 (and 0.45 s a refresh); a third SVM over words and vectors side by
side, 0.658 (recall at 10% 0.682); the vectors whitened (their first 64 principal directions at
unit variance) in place of the vectors, 0.669 (Menon_2022 0.67 -> 0.70, Sep_2021 0.50 -> 0.42),
half-whitened (each principal direction scaled by the inverse square root of its spread; all 384,
or the first 64) 0.678 and 0.664 (all 384: Donners_2021 0.73 -> 0.78, Appenzeller-Herzog_2019 0.86
-> 0.88, Sep_2021 0.50 -> 0.46, van_der_Valk_2021 0.53 -> 0.49; held out 0.673), or whitened as a
third view, 0.641; a 100-dimension LSA of the words as a third view, 0.653 (Sep_2021 0.27);
:data:`PRIOR_INCLUDES` 3 or 1 in place of 10, 0.679 and 0.679 (Kitchenham_2010 0.695 -> 0.699 and
0.702, no other review by more than 0.005). Choosing between the learner and each on six reviews
and measuring on the other three (all 84 splits), the best was :data:`PRIOR_INCLUDES` 3 at 0.679
against the learner's 0.678 held out, less than one review's noise, so not kept; choosing among all
seventeen, 0.669. No setting tried in this or the earlier sessions comes near the issue's 0.75;
across these seventeen the mean moves by less than Sep_2021 alone swings (0.27 to 0.50). The
slowest refresh of the learner as it stands took 0.16 s of processor time on 2,873 records in this
simulator, 0.42 s in ``bench/screening_simulate.py`` (``rerank-cpu-seconds``, under a load of 15).
"""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy import sparse
from scipy.stats import norm, rankdata
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import LinearSVC

from scholargraph.atomic_files import write_atomically
from scholargraph.screening.relevance import standardised

PRIOR_INCLUDES = 10
"""Before two includes and two excludes (when the classifier cannot be cross-validated), how many
includes the zero-shot score counts for: its weight is 10 / (10 + includes).
On the nine shared screening sets (``bench/screening_simulate.py``) 10 gave a mean
simulated-wss-95 of 0.594 against 0.586 for 4, and 0.593 against 0.584 with issue 21's zero-shot
score as the prior: small, but the same way with either prior. With two-record words
(:data:`MIN_RECORDS`), 3, 10, 15 and 30 gave 0.587 (one-record words), 0.614, 0.611 and 0.551
(one-record words)."""
MIN_RECORDS = 2
"""A word or word pair is a TF-IDF column only if at least this many records name it. One named
by a single record cannot carry a decision over to another record, yet under a linear model
fitted on a few hundred labels it lets each labelled record be told apart by its own words
(most of the 173,000 columns of a 2,873-record library) instead of by shared ones. On the nine
shared screening sets the mean simulated-wss-95 rose from 0.593 to 0.614 with 2 (0.607 with 3);
chosen among 1, 2 and 3 with each review left out in turn, 2 won eight times of nine, and the
held-out mean was 0.603. Other changes tried beside it left the mean within the noise or
lowered it (the module docstring)."""
VECTOR_WEIGHT = 1.0
"""Scale of the embedding vectors (norm 1, as the L2-normalised TF-IDF rows): beside the words
for closeness to the includes, and as the vectors view's input, where a larger scale would
weaken that SVM's regularisation (2 gave 0.622 against 0.624, the module docstring)."""
FOLDS = 3
"""Folds of the cross-validation that weighs the classifiers against the zero-shot score
(:meth:`Ranker.weights`)."""
PSEUDO_EXCLUDES = 300
"""How many undecided records, those the zero-shot score puts lowest, the classifiers count as
excludes (each at :data:`PSEUDO_WEIGHT`) beside the person's decisions. In a library of thousands,
its lowest records are off topic nearly without exception (the shared reviews include 1% to 15% of
their records; of the seven with more than 300 records, the lowest 300 hold 5 of their 637
includes), so from the first include the SVMs learn which words and meanings mark an off-topic
record, not only the few the person has excluded so far, which all sat near the top of the ranking.
A record the person has decided is never among them. On the nine shared screening sets
simulated-wss-95 went from 0.670 to 0.678 and recall at 10% from 0.643 to 0.665 (ASReview: 0.593 and
0.644); held out (chosen on six reviews, measured on three), 0.667 to 0.671 against 0.670 and recall
at 10% 0.664 against 0.643 (the module docstring)."""
PSEUDO_WEIGHT = 0.1
"""The weight of each of :data:`PSEUDO_EXCLUDES` against one of the person's decisions: together
they count as about 30 excludes, whatever the library's size, so as the person's own decisions
grow, theirs take over. In a library of fewer than 300 records every undecided record is one of
them, includes too (all 15 of Donners_2021's), weighing together less than 30 decisions; there
they helped as well (Donners_2021 recall at 10% 0.40 -> 0.53, Sep_2021 wss-95 0.47 -> 0.50)."""
REGULARISATION = 0.5
"""Inverse regularisation strength ``C`` of the linear SVM. A linear SVM (liblinear's dual
solver) fits 300 labels of a 2,873-record library in 0.05 s where a logistic regression took
2-7 s over the same 173,000 TF-IDF and vector columns."""


@dataclass
class Features:
    """What the ranking reads of each record, computed once per library."""

    words: sparse.csr_matrix
    """TF-IDF of title and abstract, unigrams and bigrams, L2-normalised rows."""
    vectors: np.ndarray | None
    """all-MiniLM-L6-v2 vectors of title and abstract (None when no embedder works)."""
    prior: np.ndarray
    """The zero-shot score of each record (higher: more likely relevant)."""

    def __len__(self) -> int:
        return len(self.prior)

    def matrix(self) -> Any:
        """The two views side by side: what closeness to the includes is measured on while
        there are no excludes to fit a classifier to."""
        if self.vectors is None:
            return self.words
        return sparse.hstack([self.words, sparse.csr_matrix(self.vectors * VECTOR_WEIGHT)],
                             format="csr")


def build_features(texts: list[str], prior: np.ndarray, vectors: np.ndarray | None) -> Features:
    """TF-IDF of the texts beside their vectors and zero-shot scores."""
    documents = [text or " " for text in texts]
    return Features(words=_words(documents), vectors=vectors,
                    prior=np.asarray(prior, np.float64))


def _words(documents: list[str]) -> sparse.csr_matrix:
    """The TF-IDF of the documents (:func:`_tfidf`), however few words they hold: with words
    in one record only when no word or pair is in two (a tiny or odd library), with one-letter
    words when they are all there is (a library whose titles are 'A', 'B', ...: scikit-learn's
    tokens are two letters at least, and it raised 'empty vocabulary', a traceback where a
    ranking was asked for), and one empty column when not even a letter is (then the zero-shot
    score and the vectors rank alone)."""
    for vectorizer in (_tfidf(MIN_RECORDS if len(documents) > MIN_RECORDS else 1), _tfidf(1),
                       _tfidf(1, token_pattern=SINGLE_LETTER_TOKENS)):
        try:
            return vectorizer.fit_transform(documents).tocsr()
        except ValueError:  # 'empty vocabulary': try the next, more lenient
            continue
    return sparse.csr_matrix((len(documents), 1), dtype=np.float32)


SINGLE_LETTER_TOKENS = r"(?u)\b\w+\b"
"""Tokens of one letter or more, for a library with no longer word (scikit-learn's default,
``\\b\\w\\w+\\b``, asks for two)."""


def _tfidf(min_df: int, token_pattern: str = r"(?u)\b\w\w+\b") -> TfidfVectorizer:
    """Words and word pairs, with no list of stop words: scikit-learn's English list drops words
    a screening decision can turn on ("no", "not", "without", "system", "found", "full") and the
    pairs they form ("no effect", "not randomised"), while a word in nearly every record weighs
    little anyway (its inverse document frequency is near its floor). On the nine shared
    screening sets, with :func:`normal_scores`, dropping the list moved the mean
    simulated-wss-95 from 0.644 to 0.670 (the module docstring)."""
    return TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, min_df=min_df,
                           token_pattern=token_pattern, dtype=np.float32)


def save_features(path: Path, features: Features, warnings: list[str]) -> None:
    """Keep a library's features (and the warnings met computing them) for the next run; written
    to a temporary name and renamed, so a run killed meanwhile leaves no half file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    words = features.words
    buffer = io.BytesIO()
    np.savez(buffer, data=words.data, indices=words.indices, indptr=words.indptr,
             shape=np.asarray(words.shape), prior=features.prior,
             vectors=features.vectors if features.vectors is not None else np.zeros((0, 0)),
             warnings=np.asarray(json.dumps(warnings)))
    write_atomically(path, buffer.getvalue())


def load_features(path: Path) -> tuple[Features, list[str]] | None:
    """The features :func:`save_features` kept, and their warnings; None when there are none
    or the file cannot be read (then they are computed again)."""
    try:
        with np.load(path) as kept:
            words = sparse.csr_matrix((kept["data"], kept["indices"], kept["indptr"]),
                                      shape=tuple(kept["shape"]))
            vectors = kept["vectors"] if kept["vectors"].size else None
            features = Features(words=words, vectors=vectors, prior=kept["prior"])
            return features, list(json.loads(str(kept["warnings"])))
    except (OSError, ValueError, KeyError, zipfile.BadZipFile):
        return None


class Ranker:
    """Scores every record from the features and the labels so far: the zero-shot score and one
    linear SVM per view of the records (TF-IDF words, embedding vectors), each weighted by how
    well it has told apart the person's decisions (:meth:`weights`)."""

    def __init__(self, features: Features) -> None:
        self.features = features
        self.matrix = features.matrix()
        self.views: list[Any] = [features.words]
        if features.vectors is not None:
            self.views.append(np.asarray(features.vectors, np.float64) * VECTOR_WEIGHT)
        self.prior = normal_scores(features.prior)
        self.lowest = np.argsort(features.prior, kind="stable")

    def pseudo_excluded(self, labels: dict[int, bool]) -> np.ndarray:
        """The undecided records the zero-shot score puts lowest, :data:`PSEUDO_EXCLUDES` of
        them (fewer in a smaller library), which the classifiers count as light excludes."""
        lowest = self.lowest[:PSEUDO_EXCLUDES + len(labels)]
        return np.array([i for i in lowest if int(i) not in labels][:PSEUDO_EXCLUDES], np.int64)

    def scores(self, labels: dict[int, bool]) -> np.ndarray:
        """One score per record, higher first; labelled records are scored too."""
        if not any(labels.values()):
            return self.prior
        rows, truth = _arrays(labels)
        pseudo = self.pseudo_excluded(labels)
        if truth.all() and not len(pseudo):  # includes only: no classifier, closeness to them
            centre = np.asarray(self.matrix[rows].mean(axis=0)).ravel()
            weight = PRIOR_INCLUDES / (PRIOR_INCLUDES + int(truth.sum()))
            return weight * self.prior + (1 - weight) * normal_scores(self.matrix @ centre)
        learned = [normal_scores(self._classifier(view, rows, truth, pseudo)
                                 .decision_function(view)) for view in self.views]
        weights = self.weights(rows, truth, pseudo)
        return weights[0] * self.prior + sum(w * s for w, s in zip(weights[1:], learned,
                                                                    strict=True))

    def weights(self, rows: np.ndarray, truth: np.ndarray,
                pseudo: np.ndarray | None = None) -> np.ndarray:
        """The shares of the zero-shot score and of each view's classifier in the ranking, by
        how well each has told apart the person's decisions so far: the zero-shot score as it
        stands (it never saw them), each classifier on records it was not fitted to
        (:data:`FOLDS`-fold cross-validation). Each counts by how far its AUC is above chance
        (``2 * AUC - 1``), so a view that tells this review's includes apart (the words of
        one, the meaning of another) leads it, and a question that describes the includes well
        keeps its weight for as long as that holds. Before two includes and two excludes there
        is nothing to validate on: the zero-shot score's share is ``10 / (10 + includes)``
        (:data:`PRIOR_INCLUDES`), the views share the rest evenly. ``pseudo``
        (:meth:`pseudo_excluded`) join every fold's fit as light excludes, never its judging."""
        held_out = [self._held_out(view, rows, truth, pseudo) for view in self.views]
        if any(values is None for values in held_out):
            prior = PRIOR_INCLUDES / (PRIOR_INCLUDES + int(truth.sum()))
            return np.array([prior] + [(1 - prior) / len(self.views)] * len(self.views))
        gains = np.array([_gain(truth, self.prior[rows])]
                         + [_gain(truth, values) for values in held_out if values is not None])
        if gains.sum() == 0:
            return np.full(len(gains), 1 / len(gains))
        return gains / gains.sum()

    def _held_out(self, view: Any, rows: np.ndarray, truth: np.ndarray,
                  pseudo: np.ndarray | None) -> np.ndarray | None:
        """The view's classifier's decision value for each labelled record, fitted without its
        fold (None with fewer than two includes or two excludes)."""
        includes = int(truth.sum())
        smaller = min(includes, len(truth) - includes)
        if smaller < 2:
            return None
        values = np.zeros(len(rows))
        folds = StratifiedKFold(min(FOLDS, smaller), shuffle=True, random_state=0)
        for fitted, held in folds.split(rows, truth):
            model = self._classifier(view, rows[fitted], truth[fitted], pseudo)
            values[held] = model.decision_function(view[rows[held]])
        return values

    @staticmethod
    def _classifier(view: Any, rows: np.ndarray, truth: np.ndarray,
                    pseudo: np.ndarray | None = None) -> LinearSVC:
        """The linear SVM fitted to the given labelled records of one view and the pseudo-excluded
        ones at :data:`PSEUDO_WEIGHT` (classes balanced, counting each record once: includes are
        few), the one model both the ranking and its cross-validation use. The weights are given
        per record rather than as liblinear's class weights, which reach a slightly different
        solution within its tolerance; these are the ones measured."""
        pseudo = np.zeros(0, np.int64) if pseudo is None else pseudo
        classes = np.concatenate([truth, np.zeros(len(pseudo), bool)])
        weight = np.where(classes, len(classes) / (2 * classes.sum()),
                          len(classes) / (2 * (~classes).sum()))
        weight[len(rows):] *= PSEUDO_WEIGHT
        return LinearSVC(C=REGULARISATION).fit(view[np.concatenate([rows, pseudo])], classes,
                                               sample_weight=weight)


def normal_scores(values: np.ndarray) -> np.ndarray:
    """Each record's rank among the library's, as the standard normal quantile of that rank
    (standardised): the scale on which the zero-shot score and the classifiers are added. An SVM's
    decision values and the zero-shot score differ in shape (a few far includes, a long flat
    middle), so added as they are, after standardising, a handful of extreme values of one sets the
    order of the top for all; by rank, each counts by where it puts a record among the others.
    On the nine shared screening sets the mean simulated-wss-95 rose from 0.619 to 0.644, on seven
    of the nine (the module docstring)."""
    ranks = rankdata(np.asarray(values, dtype=np.float64))
    return standardised(norm.ppf(ranks / (len(ranks) + 1)))


def _gain(truth: np.ndarray, values: np.ndarray) -> float:
    """How far a score's AUC over the labelled records is above chance, ``2 * AUC - 1``
    (none below chance)."""
    return max(0.0, 2 * float(roc_auc_score(truth, values)) - 1)


def _arrays(labels: dict[int, bool]) -> tuple[np.ndarray, np.ndarray]:
    """The labelled records' indexes and decisions, in the labels' order."""
    return (np.fromiter(labels, dtype=np.int64, count=len(labels)),
            np.fromiter(labels.values(), dtype=bool, count=len(labels)))


def next_batch(scores: np.ndarray, decided: set[int], size: int) -> list[int]:
    """The best-scored records not yet decided, best first (ties by library order)."""
    order = np.lexsort((np.arange(len(scores)), -scores))
    return [int(i) for i in order if int(i) not in decided][:size]
