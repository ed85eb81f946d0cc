"""The review bench scores reviews as SciFact scores systems (bench/review.py)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench" / "review.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("review_bench", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["review_bench"] = module
    spec.loader.exec_module(module)
    return module


def outcome(bench, claim, cited, labels=None, quoted=()):
    return bench.Outcome(claim, cited, labels or {}, set(quoted), set(cited), set(),
                         against=False, covered=False, accepted=False, seconds=0.0)


def test_label_f1_counts_an_abstract_only_with_its_gold_label(bench):
    one = bench.Claim("1", "A raises B.", {"10": {"SUPPORT"}, "11": {"CONTRADICT"}}, set())
    two = bench.Claim("2", "C lowers D.", {"20": {"SUPPORT"}}, set())
    tally = bench.Tally([
        outcome(bench, one, ["10", "11", "12"], {"10": "SUPPORT", "11": "SUPPORT",
                                                 "12": "SUPPORT"}),
        outcome(bench, two, ["20"], {"20": "SUPPORT"}),
    ])
    # 2 of 4 predictions right, 2 of 3 gold abstracts found with their label
    precision, recall = 2 / 4, 2 / 3
    assert tally.label_precision_recall() == pytest.approx((precision, recall))
    rows = dict(tally.figures(withheld=False))
    assert rows["abstract-label-precision"] == pytest.approx(precision)
    assert rows["abstract-label-recall"] == pytest.approx(recall)
    assert rows["abstract-label-f1"] == pytest.approx(
        2 * precision * recall / (precision + recall))
    assert rows["evidence-recall"] == pytest.approx((1.0 + 1.0) / 2)
    assert list(rows)[-4:] == ["abstract-label-precision", "abstract-label-recall",
                               "abstract-label-f1", "evidence-recall"]


def test_a_quote_is_a_rationale_by_the_sentences_it_covers(bench, tmp_path):
    sentences = tmp_path / "corpus_sentences.jsonl"
    sentences.write_text(json.dumps({"doc_id": 10, "title": "T", "abstract": [
        "We studied  B in mice.", "A raised B by 20%.", "B matters."]}) + "\n")
    rationales = bench.Rationales(sentences)
    claim = bench.Claim("1", "A raises B.", {"10": {"SUPPORT"}}, set(), {"10": {1}})
    assert rationales.indices("10", "A raised B by 20%.") == {1}
    assert rationales.indices("10", "We studied B in mice. A raised B by 20%.") == {0, 1}
    assert rationales.indices("10", "T") == set()
    tally = bench.Tally([outcome(bench, claim, ["10"], quoted=[
        ("10", "A raised B by 20%."), ("10", "We studied B in mice."), ("99", "Elsewhere.")])])
    assert tally.rationale_precision(rationales) == pytest.approx(1 / 2)
