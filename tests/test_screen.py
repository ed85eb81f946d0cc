"""``scholargraph screen``: a library ranked for a person, their labels learned, versions merged
into one decision, the stop estimate, and ``--interactive`` driven through a pseudo-terminal.

The library is built from the recorded corpus: the 30 OpenAlex works of the replay fixtures
(``peneira_works.json``, a search for machine learning in public health), which hold a JMIR
article with its two preprints and two other published/preprint pairs.
"""

from __future__ import annotations

import csv
import json
import math
import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import scholargraph
from scholargraph.cli import main
from scholargraph.screening import learner
from scholargraph.screening.labels import LabelsError, append_label, read_labels
from scholargraph.screening.learner import Ranker, build_features, normal_scores
from scholargraph.screening.records import read_library
from scholargraph.screening.relevance import standardised
from scholargraph.screening.session import criteria_terms, open_session, screen
from scholargraph.screening.stopping import (
    CONFIDENCE,
    ESTIMATE_MIN,
    MIN_SCREENED,
    estimate,
    knee_ratio,
    recall_p_value,
    records_left,
    required_ratio,
)
from scholargraph.sources.library import WORK_FIELDS
from scholargraph.sources.openalex import work_from_openalex
from scholargraph.testing import fixture_path

QUESTION = "machine learning for public health surveillance"
CROWDSOURCING = "Crowdsourcing for Machine Learning in Public Health Surveillance"
PREPRINT_DOI = "10.31219/osf.io/ndp8m"  # the OSF preprint of the JMIR article 10.2196/28749


def corpus_works() -> list[dict]:
    items = json.loads(fixture_path("openalex/peneira_works.json").read_text())["results"]
    works = [work_from_openalex(item).model_dump(mode="json") for item in items]
    return [{key: work.get(key) for key in WORK_FIELDS} for work in works]


@pytest.fixture
def library(tmp_path: Path) -> Path:
    path = tmp_path / "library.jsonl"
    path.write_text("".join(json.dumps(work) + "\n" for work in corpus_works()))
    return path


def read_table(out: Path) -> list[dict[str, str]]:
    with (out / "screening.csv").open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def ris_titles(path: Path) -> list[str]:
    return [line[6:].strip() for line in path.read_text().splitlines() if line.startswith("TI  -")]


def test_ranks_a_library_from_the_question_alone(library, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["screen", str(library), "--question", QUESTION, "--out", str(out),
                 "--batch", "5"]) == 0
    rows = read_table(out)
    assert len(rows) == 25  # 30 records, five of them other versions or copies of a work
    assert [int(row["rank"]) for row in rows] == list(range(1, 26))
    titles = [row["title"] for row in rows]
    # on topic above off topic: surveillance by machine learning vs latent class analysis
    assert titles.index("Oak Ridge Biosurveillance Toolkit: Scalable machine learning for "
                        "public health surveillance") < 10
    assert titles.index("Beyond the number of classes: separating substantive from "
                        "non-substantive dependence in latent class analysis") > 15
    assert all(row["decision"] == "" for row in rows)
    oak_ridge = rows[titles.index(next(t for t in titles if "Oak Ridge" in t))]
    # the concepts' everyday words too: "public health" is half of what the question asks
    assert {"machine", "learning", "public", "health", "surveillance"} <= set(
        oak_ridge["criteria_words"].split("; "))
    assert ris_titles(out / "to-screen.ris") == titles[:5]
    assert ris_titles(out / "included.ris") == []
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["records"], summary["works"], summary["verdict"]) == (30, 25, "continue")
    assert summary["estimated_left"] is None
    assert "hypergeometric" in summary["rule"] and summary["assumption"]
    assert "knee method" in summary["knee_rule"] and summary["knee_assumption"]
    assert "verdict: CONTINUE" in capsys.readouterr().err


def test_versions_are_one_decision_and_labels_are_learned(library, tmp_path):
    labels = tmp_path / "labels.csv"
    labels.write_text(f"record_id,label\nhttps://doi.org/{PREPRINT_DOI},1\n"
                      "doi:10.1007/s11634-015-0211-0,0\n"  # latent class analysis
                      "doi:10.2196/50243,0\n")  # a journal's transfer notice
    out = tmp_path / "out"
    session = scholargraph.screen(library, QUESTION, labels=labels, out=out, batch=30)
    rows = read_table(out)
    crowdsourcing = [row for row in rows if row["title"].startswith(CROWDSOURCING)]
    assert len(crowdsourcing) == 1  # the article and its two preprints: one work
    assert crowdsourcing[0]["decision"] == "include"
    assert "one decision for 3 records" in crowdsourcing[0]["reason"]
    assert "labels line 2" in crowdsourcing[0]["reason"]
    assert sorted(row["decision"] for row in rows if row["decision"]) == [
        "exclude", "exclude", "include"]
    assert [t for t in ris_titles(out / "included.ris")] == [crowdsourcing[0]["title"]]
    screen_next = ris_titles(out / "to-screen.ris")
    assert len(screen_next) == 22 and crowdsourcing[0]["title"] not in screen_next
    undecided = [row for row in rows if not row["decision"]]
    assert all("model of your 3 decisions" in row["reason"] for row in undecided)
    # the learned ranking differs from the zero-shot one, and the include scores above both
    # excludes
    scores = {row["title"]: float(row["score"]) for row in rows}
    excluded = [row["title"] for row in rows if row["decision"] == "exclude"]
    assert all(scores[crowdsourcing[0]["title"]] > scores[title] for title in excluded)
    assert session.summary().found == 1
    estimate = session.summary_lines()[1]
    assert session.summary().estimated_recall is None  # three decisions tell no falling rate
    assert estimate.startswith("estimated relevant works left: not estimated before 150 "
                               "decisions (3 so far"), estimate
    assert "% of the relevant works" not in estimate
    # a p-value is not the chance that recall is below the target: the line names the hypothesis
    assert "(hypothesis 'recall below 95%': p = " in session.summary_lines()[2]


def test_a_run_with_new_labels_reads_the_kept_features(library, tmp_path, monkeypatch):
    """The second run over the same library only ranks again: the features the first one kept
    are read back as they were, and no model is loaded, so nothing is embedded again."""
    from scholargraph.screening import session as session_module

    first = open_session(library, QUESTION)
    kept = list((tmp_path / "home" / "screening").glob("features-*.npz"))
    assert len(kept) == 1

    def no_model(*args, **kwargs):
        raise AssertionError("the kept features should have been read, not computed again")

    monkeypatch.setattr(session_module, "load_run_embedder", no_model)
    labels = tmp_path / "labels.csv"
    labels.write_text(f"doi:{PREPRINT_DOI},1\ndoi:10.2196/50243,0\n")
    second = open_session(library, QUESTION, labels=labels)
    assert (second.features.words != first.features.words).nnz == 0
    assert second.features.prior.tolist() == first.features.prior.tolist()
    assert first.features.vectors is not None and second.features.vectors is not None
    assert second.features.vectors.tolist() == first.features.vectors.tolist()
    assert second.scores.tolist() != first.scores.tolist()  # the labels were learned
    # another question is another set of features: computed, not read from the kept file
    with pytest.raises(AssertionError, match="computed again"):
        open_session(library, "deep learning for retinal images")


def test_a_csv_library_and_labels_by_its_record_ids(tmp_path):
    library = tmp_path / "records.csv"
    with library.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["record_id", "title", "abstract", "doi", "year", "authors"])
        for number, work in enumerate(corpus_works()):
            writer.writerow([f"r{number}", work["title"], work["abstract"] or "", work["doi"],
                             work["year"], "; ".join(work["authors"])])
    labels = tmp_path / "labels.csv"
    labels.write_text("r0,0\nr4,1\nnot-a-record,1\nr99,0\n")
    session = open_session(library, QUESTION, labels=labels)
    assert len(session.entries) == 25
    assert sorted(session.decisions.values()) == [False, True]
    assert session.unmatched == ["not-a-record", "r99"]
    assert session.entries[next(i for i, inc in session.decisions.items() if inc)
                           ].record_id == "r4"


def test_a_decision_on_a_record_retracted_since_says_so(tmp_path):
    """The library exported again after a retraction: the include labelled on the first export
    still stands by its record id, and the session says the record is now retracted (beside
    the decision and in a warning) rather than keeping it silently."""
    library = tmp_path / "records.csv"
    works = corpus_works()
    with library.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["record_id", "title", "abstract", "year"])
        for number, work in enumerate(works):
            title = f"RETRACTED: {work['title']}" if number == 4 else work["title"]
            writer.writerow([f"r{number}", title, work["abstract"] or "", work["year"]])
    labels = tmp_path / "labels.csv"
    labels.write_text("r4,1\nr0,1\n")
    session = open_session(library, QUESTION, labels=labels)
    reasons = {session.entries[index].record_id: session.reason(index)
               for index in session.decisions}
    assert reasons["r4"].endswith("; its record is marked retracted")
    assert "retracted" not in reasons["r0"]
    assert any(warning.startswith("1 work you included is marked retracted in the library: r4")
               for warning in session.warnings)


def test_a_library_exported_again_says_which_works_are_new(tmp_path):
    """The reviewer runs the search again and screens the new export into the same folder with
    the same labels: the works whose record ids the folder's screening.csv did not hold are
    said to be new, in the table and the summary; the session's own later writes (every ten
    decisions in --interactive) keep that earlier run as the reference."""
    def export(path: Path, count: int) -> None:
        with path.open("w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["record_id", "title", "abstract", "year"])
            for number, work in enumerate(corpus_works()[:count]):
                writer.writerow([f"r{number}", work["title"], work["abstract"] or "",
                                 work["year"]])

    first, second, out = tmp_path / "search-1.csv", tmp_path / "search-2.csv", tmp_path / "out"
    export(first, 12)
    export(second, 16)
    labels = tmp_path / "labels.csv"
    labels.write_text("r0,1\nr1,0\n")
    screen(first, QUESTION, labels=labels, out=out)
    assert json.loads((out / "summary.json").read_text())["new_since_last_run"] is None
    session = screen(second, QUESTION, labels=labels, out=out)
    rows = read_table(out)
    new = {row["record_id"] for row in rows if row["reason"].endswith(
        "; new since the last run into this folder")}
    assert new == {"r12", "r13", "r14", "r15"}
    assert sorted(session.decisions.values()) == [False, True]  # the labels still stand
    assert json.loads((out / "summary.json").read_text())["new_since_last_run"] == 4
    assert session.summary_lines()[0].endswith("(4 new since the last run into this folder)")
    session.write(out)  # a later write of the same session
    assert {row["record_id"] for row in read_table(out)
            if row["reason"].endswith("into this folder")} == new


def test_the_ris_files_carry_the_record_ids_the_labels_use(tmp_path):
    """A person who reads to-screen.ris in a reference manager labels each record by the ID it
    shows there; with the CSV's own record ids, and no DOI on some records, every ID must name
    its record (a citation key from the title, 'crowdsourcing', named none)."""
    import rispy

    library = tmp_path / "records.csv"
    with library.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["record_id", "title", "abstract", "doi"])
        for number, work in enumerate(corpus_works()):
            writer.writerow([f"r{number}", work["title"], work["abstract"] or "",
                             work["doi"] if number % 3 else ""])
    out = tmp_path / "out"
    session = screen(library, QUESTION, out=out, batch=8)
    shown = rispy.loads((out / "to-screen.ris").read_text(encoding="utf-8"))
    assert [entry["id"] for entry in shown] == [row["record_id"] for row in read_table(out)[:8]]
    assert [record.work.title for record in read_library(out / "to-screen.ris")] == \
        [entry["title"] for entry in shown]  # the project's own reader takes it back too
    labels = tmp_path / "labels.csv"
    labels.write_text("".join(f"{entry['id']},{int(i < 2)}\n" for i, entry in enumerate(shown)))
    session = screen(library, QUESTION, labels=labels, out=out)
    assert session.unmatched == [] and len(session.decisions) == 8
    included = rispy.loads((out / "included.ris").read_text(encoding="utf-8"))
    assert [entry["id"] for entry in included] == [shown[0]["id"], shown[1]["id"]]


@pytest.mark.parametrize(("content", "message"), [
    ("record_id,label\ndoi:10.2196/28749,yes\n", "labels.csv:2: the label of "
                                                 "'doi:10.2196/28749' is 'yes', not 1 or 0"),
    ("doi:10.2196/28749,1\n,0\n", "labels.csv:2: no record id"),
    ("doi:10.2196/28749,1\ndoi:10.2196/50243\n", "labels.csv:2: the label of "
                                                 "'doi:10.2196/50243' is nothing, not 1 or 0"),
])
def test_bad_labels_exit_2_naming_file_and_line(library, tmp_path, capsys, content, message):
    labels = tmp_path / "labels.csv"
    labels.write_text(content)
    code = main(["screen", str(library), "--question", QUESTION, "--labels", str(labels),
                 "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and message in err
    assert not (tmp_path / "out").exists()


def test_unreadable_labels_and_library_exit_2(library, tmp_path, capsys):
    missing = tmp_path / "nowhere.csv"
    assert main(["screen", str(library), "--question", QUESTION, "--labels", str(missing),
                 "--out", str(tmp_path / "out")]) == 2
    assert f"labels file {missing} cannot be read" in capsys.readouterr().err
    empty = tmp_path / "empty.csv"
    empty.write_text("id,title,abstract\n1,,nothing\n")
    assert main(["screen", str(empty), "--question", QUESTION, "--out", str(tmp_path)]) == 2
    assert "no record with a title" in capsys.readouterr().err


def test_labels_by_pmid_as_pubmed_shows_it(library, tmp_path):
    """A person copying ids from PubMed writes the bare number: it names the work holding that
    PMID (the recorded corpus holds nine), as 'pmid:N' does; a number no work holds is unmatched."""
    with_pmid = [work for work in corpus_works() if work.get("pmid")]
    labels = tmp_path / "labels.csv"
    labels.write_text(f"{with_pmid[0]['pmid']},1\npmid:{with_pmid[1]['pmid']},0\n1,0\n")
    session = open_session(library, QUESTION, labels=labels)
    decided = {session.entries[i].work.pmid: inc for i, inc in session.decisions.items()}
    assert decided == {with_pmid[0]["pmid"]: True, with_pmid[1]["pmid"]: False}
    assert session.unmatched == ["1"]


def test_unmatched_ids_are_counted_in_a_warning(library, tmp_path, capsys):
    labels = tmp_path / "labels.csv"
    labels.write_text("doi:10.2196/28749,1\ndoi:10.9999/none,0\npmid:1,0\n")
    out = tmp_path / "out"
    assert main(["screen", str(library), "--question", QUESTION, "--labels", str(labels),
                 "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "2 ids in" in err and "match no record" in err
    assert "(first: 'doi:10.9999/none' on line 2, 'pmid:1' on line 3)" in err  # to mend them
    assert json.loads((out / "summary.json").read_text())["unmatched_labels"] == 2
    labels.write_text("doi:10.2196/28749,1\npmid:1,0\n")
    assert main(["screen", str(library), "--question", QUESTION, "--labels", str(labels),
                 "--out", str(out)]) == 0
    assert "1 id in" in (err := capsys.readouterr().err) and "matches no record" in err, err


def test_labels_file_round_trip(tmp_path):
    path = tmp_path / "labels.csv"
    append_label(path, "doi:10.1/a", True)
    append_label(path, "r7", False)
    assert path.read_text().splitlines()[0] == "record_id,label"
    assert [(label.record, label.included, label.line) for label in read_labels(path)] == [
        ("doi:10.1/a", True, 2), ("r7", False, 3)]
    path.write_text("x,1")  # edited by hand, no final line break
    append_label(path, "y", False)
    assert [label.record for label in read_labels(path)] == ["x", "y"]
    append_label(path, "x", None)  # undecided: an empty label, taking back the earlier 1
    assert path.read_text().splitlines()[-1] == "x,"
    assert [(label.record, label.included) for label in read_labels(path)] == [
        ("x", True), ("y", False), ("x", None)]
    with pytest.raises(LabelsError, match="cannot be read"):
        read_labels(tmp_path)


def test_a_labels_file_saved_by_excel_with_semicolons_or_tabs(tmp_path):
    """Excel saves a CSV with semicolons where the decimal mark is a comma (a person editing
    the labels between runs in such a locale), and a column copied from a spreadsheet holds
    tabs: both are read, and a decision appended keeps the file's separator. A DOI holding a
    semicolon (an old Wiley 'SICI' one) in a comma file stays whole."""
    path = tmp_path / "labels.csv"
    path.write_bytes("\ufeffrecord_id;label\r\nr4;1\r\nr0;0\r\n".encode())
    assert [(label.record, label.included) for label in read_labels(path)] == [
        ("r4", True), ("r0", False)]
    append_label(path, "r9", None)
    assert path.read_text(encoding="utf-8-sig").splitlines()[-1] == "r9;"
    assert read_labels(path)[-1].included is None
    tabbed = tmp_path / "tabbed.csv"
    tabbed.write_text("r4\t1\nr0\t0\n")
    assert [label.included for label in read_labels(tabbed)] == [True, False]
    sici = tmp_path / "sici.csv"
    sici.write_text("10.1002/(SICI)1097-4636(199603)31:3<1::AID-JBM1>3.0.CO;2-X,1\n")
    assert read_labels(sici)[0].record.endswith("3.0.CO;2-X")


# ---------------------------------------------------------------- the ranking

def test_scores_are_joined_by_rank_so_one_extreme_value_sets_no_order():
    skewed = np.append(np.arange(9) / 10, 40.0)  # the last record far above the rest
    reverse = np.arange(10.0)[::-1]  # the opposite order, evenly spread
    # standardised and added, the one extreme value puts its record first
    assert int(np.argmax(standardised(skewed) + standardised(reverse))) == 9
    # by rank the two orders weigh alike and cancel out
    assert np.allclose(normal_scores(skewed) + normal_scores(reverse), 0)
    assert np.allclose(normal_scores(skewed), normal_scores(np.arange(10.0)))
    assert abs(normal_scores(skewed).mean()) < 1e-9 and abs(normal_scores(skewed).std() - 1) < 1e-9


def test_records_the_question_ranks_lowest_teach_the_classifier_what_is_off_topic(monkeypatch):
    """From the first include, the undecided records at the bottom of the zero-shot score count
    as light excludes: a record sharing words only with them falls below one that shares words
    with nothing labelled, which the person's two decisions alone cannot tell apart."""
    on_topic = [f"machine learning for public health surveillance of outbreaks, study {i}"
                for i in range(6)]
    off_topic = [f"latent class dependence in survey data, variant {i}" for i in range(6)]
    probes = ["latent class dependence of answers", "quantum spin lattice of magnets"]
    missed = ["machine learning for public health surveillance, a study the question missed"]
    texts = on_topic + probes + off_topic + missed
    prior = np.array([10.0 - i for i in range(6)] + [0.0, 0.0] + [-10.0 - i for i in range(7)])
    features = build_features(texts, prior, None)
    labels = {0: True, 5: False, 14: True}  # the last: an include the zero-shot score put lowest
    ranker = Ranker(features)
    pseudo = ranker.pseudo_excluded(labels)
    assert 14 not in pseudo and set(pseudo) == set(range(1, 5)) | set(range(6, 14))
    latent, quantum = 6, 7
    scores = ranker.scores(labels)
    assert scores[latent] < scores[quantum]
    monkeypatch.setattr(learner, "PSEUDO_EXCLUDES", 0)  # the person's decisions alone
    alone = Ranker(features).scores(labels)
    assert alone[latent] >= alone[quantum]


# ---------------------------------------------------------------- the stop estimate

def test_knee_says_stop_once_relevant_records_have_thinned_out():
    early = [True] * 20 + [False] * 10 + [True] * 5 + [False] * 200
    stop = estimate(early, total=2000)
    assert stop.knee_verdict == "stop" and stop.knee_ratio is not None
    assert stop.knee_ratio >= required_ratio(25) == 131  # few found: a steep knee is needed
    still_finding = [True] * 25 + ([False] * 85 + [True]) * 2  # two more in the last 172
    ratio = knee_ratio(still_finding)
    assert ratio is not None and 6 < ratio < required_ratio(27)
    assert estimate(still_finding, total=2000).knee_verdict == "continue"
    assert stop.estimated_left is not None and stop.estimated_left < 3
    assert stop.estimated_recall is not None and stop.estimated_recall > 0.9
    # the cautious bound: none found in the 200 since the knee, plus one, over the 1,765 left
    assert stop.left_at_most == pytest.approx(1765 / 200)


def test_no_recall_is_claimed_from_a_handful_of_decisions():
    """One include and one exclude once gave 'estimated relevant left 0.0' in the interactive
    status line, and 4 relevant in the first 10 screened 'about 99% of the relevant works'
    where 10% were found: the decay is fitted only from ESTIMATE_MIN decisions; the cautious
    bound is given from the first, and the whole library decided needs no estimate."""
    few = estimate([True, False], total=257)
    assert few.estimated_left is None and few.estimated_recall is None
    assert few.left_at_most == pytest.approx(255)  # one found since the knee, over the rest
    early = [True] * 4 + [False] * 6
    assert estimate(early, total=271).estimated_recall is None
    fitted = estimate(early + [False] * (ESTIMATE_MIN - 10), total=271)
    assert fitted.estimated_left is not None and fitted.estimated_recall is not None
    whole = estimate([True] * 3 + [False] * 7, total=10)
    assert whole.estimated_left == 0 and whole.estimated_recall == 1


def test_knee_says_continue_while_relevant_records_keep_coming():
    steady = [index % 10 == 5 for index in range(300)]  # one in ten, all along
    stop = estimate(steady, total=2000)
    assert stop.knee_verdict == stop.verdict == "continue"
    # a constant rate is expected to go on over the 1,700 records left
    assert records_left(steady, 2000) == pytest.approx(170, rel=0.1)
    too_few = [True] * 5 + [False] * (MIN_SCREENED - 10)
    assert estimate(too_few, total=2000).knee_verdict == "continue"
    assert knee_ratio([False] * 40) is None


def test_the_recall_test_by_hand():
    """19 relevant in the first 19 of 100 records, then 61 not: were recall below 95%, at least
    21 would be relevant, 2 of them among the 81 records left after the first 19, and the 61
    drawn from those 81 would miss both with chance C(79, 61) / C(81, 61)."""
    decisions = [True] * 19 + [False] * 61
    by_hand = math.comb(79, 61) / math.comb(81, 61)
    assert recall_p_value(decisions, 100) == pytest.approx(by_hand)  # the lowest of the windows
    assert by_hand > 0.05 and estimate(decisions, 100).verdict == "continue"
    # ten more without one: the 71 drawn from the 81 miss both with chance C(79, 71) / C(81, 71)
    assert recall_p_value(decisions + [False] * 10, 100) == pytest.approx(
        math.comb(79, 71) / math.comb(81, 71))
    assert estimate(decisions + [False] * 10, 100).verdict == "stop"
    # one record left cannot hold the two the hypothesis needs
    assert recall_p_value([True] * 19 + [False] * 80, 100) == 0.0
    assert recall_p_value([], 100) is None


def test_the_recall_test_errs_rarely_when_its_assumption_holds():
    """Records screened in random order are a random sample, as the test assumes: it should say
    stop with recall below 95% in about 5% of reviews at most (checked after every 10)."""
    draw = np.random.default_rng(7)
    total, relevant, reviews = 200, 20, 100
    early = 0
    for _ in range(reviews):
        truth = np.zeros(total, dtype=bool)
        truth[draw.choice(total, relevant, replace=False)] = True
        stop = next(n for n in range(10, total + 1, 10)
                    if recall_p_value(truth[:n].tolist(), total) < 1 - CONFIDENCE)  # type: ignore[operator]
        early += truth[:stop].sum() < 0.95 * relevant
    assert early <= 0.08 * reviews


def test_the_recall_test_on_a_library_screened_with_the_learner(library, tmp_path):
    """The person includes the works whose title names health; the session ranks the rest from
    their decisions after each one (the real learner). The verdict says continue while fewer
    than 95% of those works are found and stop before the library's end; the summary states the
    rule and the assumption it rests on."""
    labels = tmp_path / "labels.csv"
    session = open_session(library, QUESTION, labels=labels, create_labels=True)
    relevant = {index for index, entry in enumerate(session.entries)
                if "health" in entry.work.title.lower()}
    assert 10 < len(relevant) < len(session.entries)
    verdicts = []
    while len(session.decisions) < len(session.entries):
        index = session.to_screen(1)[0]
        session.decide(index, index in relevant)
        session.rank()
        found = len(relevant & {i for i, inc in session.decisions.items() if inc})
        verdicts.append((session.summary().verdict, found / len(relevant)))
    stopped = [recall for verdict, recall in verdicts if verdict == "stop"]
    assert stopped and min(stopped) >= 0.95
    assert verdicts[-2][0] == "stop"  # before the last work
    assert len(read_labels(labels)) == len(session.entries)
    summary = session.summary_record()
    assert "hypergeometric" in str(summary["rule"]) and "random" in str(summary["assumption"])
    assert summary["recall_p"] == 0.0 and summary["knee_verdict"] == "stop"


# ---------------------------------------------------------------- interactive

def _spawn(args: list[str], env: dict[str, str]) -> tuple[subprocess.Popen, int]:
    primary, secondary = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "scholargraph.cli", *args],
                               stdin=secondary, stdout=secondary, stderr=secondary, env=env,
                               close_fds=True)
    os.close(secondary)
    return process, primary


def _read_until(primary: int, text: str, timeout: float = 120) -> str:
    """What the terminal showed up to ``text``. Polled, not selected: select() refuses a
    descriptor numbered past 1,023, which a long test session can reach."""
    seen = b""
    deadline = time.monotonic() + timeout
    poller = select.poll()
    poller.register(primary, select.POLLIN)
    while text.encode() not in seen:
        ready = poller.poll(max(0.0, deadline - time.monotonic()) * 1000)
        if not ready:
            raise AssertionError(f"never saw {text!r}; the screen showed: {seen[-2000:]!r}")
        try:
            seen += os.read(primary, 65536)
        except OSError:  # the child closed the terminal
            break
    return seen.decode("utf-8", "replace")


PROMPT = "quit > "


def test_interactive_under_a_pseudo_terminal(library, tmp_path):
    labels, out = tmp_path / "labels.csv", tmp_path / "out"
    criteria = tmp_path / "criteria.txt"
    criteria.write_text("Include studies of disease surveillance; exclude editorials.")
    env = {**os.environ, "COLUMNS": "140", "TERM": "xterm"}
    process, primary = _spawn(["screen", str(library), "--question", QUESTION, "--criteria",
                               str(criteria), "--labels", str(labels), "--out", str(out),
                               "--interactive"], env)
    try:
        screen = _read_until(primary, PROMPT)
        assert "Eligibility" in screen and "editorials" in screen
        assert "\x1b[" in screen  # styled: the criteria's words highlighted
        first = read_table_like_ranking(library, criteria)
        os.write(primary, b"i")  # one key, no Enter: the terminal is in cbreak mode
        _read_until(primary, PROMPT)
        assert labels.read_text().splitlines() == ["record_id,label", f"{first},1"]
        os.write(primary, b"u")
        _read_until(primary, PROMPT)
        second = labels.read_text().splitlines()[-1]
        assert second.endswith(",") and second != f"{first},"  # undecided: an empty label
        os.write(primary, b"e")
        _read_until(primary, PROMPT)
        assert len(labels.read_text().splitlines()) == 4  # every key saved at once
        process.send_signal(signal.SIGKILL)  # a killed session loses nothing
        process.wait(timeout=30)
    finally:
        os.close(primary)
        if process.poll() is None:
            process.kill()
    decisions = read_labels(labels)
    assert [label.included for label in decisions] == [True, None, False]
    assert not out.exists()  # killed before any refresh: only the labels were written
    # the next session reads the undecided record back as undecided, not as an error
    session = open_session(library, QUESTION, criteria, labels)
    left = session.entries.index(next(e for e in session.entries
                                      if e.record_id == decisions[1].record))
    assert left not in session.decisions and left in session.undecided
    assert sorted(session.decisions.values()) == [False, True]
    assert session.reason(left) == "left undecided by you (labels line 3)"
    assert left in session.to_screen(len(session.entries))  # shown again in a later session


def read_table_like_ranking(library: Path, criteria: Path) -> str:
    """The record id the session shows first: the best-ranked work without labels."""
    session = open_session(library, QUESTION, criteria)
    return session.entries[session.to_screen(1)[0]].record_id


def test_interactive_from_a_pipe_refreshes_every_ten(library, tmp_path):
    labels, out = tmp_path / "labels.csv", tmp_path / "out"
    keys = "i\n" + "e\n" * 11 + "q\n"
    result = subprocess.run(
        [sys.executable, "-m", "scholargraph.cli", "screen", str(library), "--question",
         QUESTION, "--labels", str(labels), "--out", str(out), "--interactive"],
        input=keys, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("ranking refreshed after 10 decisions") == 1
    decisions = read_labels(labels)
    assert [label.included for label in decisions] == [True] + [False] * 11
    rows = read_table(out)
    assert sum(1 for row in rows if row["decision"]) == 12
    assert "1 included, 11 excluded" in result.stderr


def test_the_words_that_frame_criteria_are_not_looked_for():
    """"Inclusion criteria" heads the criteria; an abstract naming its own inclusion criteria
    meets none of the review's, so the words are not highlighted nor listed."""
    terms = criteria_terms("Mesenchymal stem cells for knee osteoarthritis",
                           "Inclusion criteria: randomized trials reporting WOMAC.\n"
                           "Exclusion criteria: studies with the following characteristics: "
                           "animal models.")
    words = set(terms.values())
    assert {"mesenchymal", "osteoarthritis", "womac", "randomized"} <= words
    assert not words & {"inclusion", "exclusion", "criteria", "following", "characteristics"}


def test_a_library_of_one_letter_titles_is_ranked_not_refused(tmp_path, capsys):
    """Titles that are single letters or stop-words hold no token scikit-learn keeps (it takes
    two letters at least): its 'empty vocabulary' ended ``screen`` with exit 1, first ranking
    and after labels alike. The letters are words enough to rank by, and a library with not
    even a letter still ranks, by the question alone."""
    library = tmp_path / "letters.csv"
    library.write_text("record_id,title,abstract\n" + "".join(
        f"r{i},{'ABCDEFGH'[i % 8]},\n" for i in range(120)))
    labels = tmp_path / "labels.csv"
    labels.write_text("r0,1\nr8,1\nr1,0\nr2,0\nr3,0\n")
    out = tmp_path / "out"
    assert main(["screen", str(library), "--question", QUESTION, "--labels", str(labels),
                 "--out", str(out)]) == 0
    rows = read_table(out)
    assert len(rows) == 120
    undecided = [row for row in rows if not row["decision"]]
    # the two includes were both 'A': the other 'A's rank first among the undecided
    assert {row["title"] for row in undecided[:13]} == {"A"}
    marks = tmp_path / "marks.csv"
    marks.write_text("record_id,title,abstract\n1,?,\n2,!,\n3,-,\n")
    assert main(["screen", str(marks), "--question", QUESTION, "--out", str(out)]) == 0
    assert len(read_table(out)) == 3
    assert "empty vocabulary" not in capsys.readouterr().err


def test_an_ris_or_bibtex_library_is_labelled_by_its_own_ids(tmp_path):
    """An RIS record's ``ID`` (EndNote's record number; the id ``to-screen.ris`` writes) and a
    BibTeX entry's key are the ids a person sees in their reference manager and writes in the
    labels file: they name the record, as a CSV's record id does. Read as the work's DOI id,
    every such label matched no record. An id two works share names neither."""
    works = corpus_works()[:6]
    ris_text = "".join(
        f"TY  - JOUR\nID  - EN{number}\nTI  - {work['title']}\n"
        + (f"DO  - {work['doi']}\n" if work["doi"] else "") + "ER  - \n\n"
        for number, work in enumerate(works))
    (tmp_path / "records.ris").write_text(ris_text)
    labels = tmp_path / "labels.csv"
    labels.write_text("record_id,label\nEN0,1\nEN3,0\n")
    session = open_session(tmp_path / "records.ris", QUESTION, labels=labels)
    assert session.unmatched == []
    assert {session.entries[i].record_id: inc for i, inc in session.decisions.items()} == \
        {"EN0": True, "EN3": False}
    bib = tmp_path / "records.bib"
    entries = [f"@article{{key{number},\n  title = {{{work['title']}}},\n}}\n\n"
               for number, work in enumerate(works)]
    bib.write_text("".join(entries) + "@article{,\n  title = {X},\n}\n")
    labels.write_text("key1,1\nkey2,0\n")
    session = open_session(bib, QUESTION, labels=labels)
    assert session.unmatched == []
    assert sorted(session.entries[i].record_id for i in session.decisions) == ["key1", "key2"]
    assert session.entries[-1].record_id.startswith("title:")  # the unkeyed entry: its work id
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "a.ris").write_text(ris_text)
    (folder / "b.ris").write_text(ris_text.replace(works[0]["title"], "Another work entirely")
                                  .replace(f"DO  - {works[0]['doi']}\n", ""))
    labels.write_text("EN0,1\nEN1,1\n")
    session = open_session(folder, QUESTION, labels=labels)
    assert session.unmatched == ["EN0"]  # two works in the folder are 'EN0'
    assert [session.entries[i].record_id for i in session.decisions] == ["EN1"]


def test_screen_says_what_it_is_doing_unless_quiet(library, tmp_path, capsys):
    """A first screening of a library embeds every record (minutes for thousands), and went by
    without a word; each step now has its line, with the time since the start."""
    out = tmp_path / "out"
    assert main(["screen", str(library), "--question", QUESTION, "--out", str(out)]) == 0
    lines = [line.split(None, 1) for line in capsys.readouterr().err.splitlines()]
    steps = [rest for elapsed, rest in lines if elapsed.endswith("s")
             and elapsed[:-1].replace(".", "").isdigit()]
    assert steps[0] == f"library: 30 records read from {library}"
    assert steps[1] == "deduplication: 25 works (5 duplicate records or versions merged)"
    assert steps[2].startswith("features: scoring 25 works")
    assert steps[3] == "ranking: by the question and criteria (no labels yet)"
    assert main(["screen", str(library), "--question", QUESTION, "--out", str(out),
                 "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_a_decision_made_on_a_title_alone_is_set_aside_once_its_abstract_arrives(tmp_path):
    """The first export lacked two abstracts and the person decided on those titles; the next
    export fills them in. The two decisions are set aside (the works ranked and listed to
    screen again, the reason and a warning saying why), run after run, until a new label line
    decides each; a decision made on the abstract stands, and so does a label new since the
    first run on a record that run showed with its abstract."""
    works = corpus_works()[:12]

    def export(path: Path, bare: set[int]) -> None:
        with path.open("w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["record_id", "title", "abstract", "year"])
            for number, work in enumerate(works):
                abstract = "" if number in bare else work["abstract"] or ""
                writer.writerow([f"r{number}", work["title"], abstract, work["year"]])

    first, second, out = tmp_path / "search-1.csv", tmp_path / "search-2.csv", tmp_path / "out"
    export(first, {0, 1})
    export(second, set())
    labels = tmp_path / "labels.csv"
    labels.write_text("r0,0\nr1,1\nr2,0\n")
    session = screen(first, QUESTION, labels=labels, out=out)
    assert len(session.decisions) == 3 and not session.set_aside
    assert {row["record_id"]: row["decided_on"] for row in read_table(out)
            if row["decision"]} == {"r0": "title", "r1": "title", "r2": "title and abstract"}
    append_label(labels, "r3", True)  # decided on the first run's outputs, abstract shown
    session = screen(second, QUESTION, labels=labels, out=out)
    aside = {session.entries[index].record_id for index in session.set_aside}
    assert aside == {"r0", "r1"}
    assert {session.entries[index].record_id for index in session.decisions} == {"r2", "r3"}
    assert not {"r0", "r1"} & {session.entries[i].record_id for i in session.decisions}
    rows = {row["record_id"]: row for row in read_table(out)}
    assert rows["r0"]["reason"].startswith("decided by you on its title alone (labels line 1)")
    assert rows["r0"]["decision"] == "" and rows["r0"]["decided_on"] == "title"
    assert any(warning.startswith("2 decisions made on a title alone were set aside")
               for warning in session.warnings)
    assert json.loads((out / "summary.json").read_text())["set_aside_abstract_arrived"] == 2
    # the next run, same labels: still set aside; the person decides r0 again: it stands
    session = screen(second, QUESTION, labels=labels, out=out)
    assert {session.entries[index].record_id for index in session.set_aside} == {"r0", "r1"}
    append_label(labels, "r0", True)
    session = screen(second, QUESTION, labels=labels, out=out)
    assert {session.entries[index].record_id for index in session.set_aside} == {"r1"}
    assert {session.entries[i].record_id: inc for i, inc in session.decisions.items()}[
        "r0"] is True
