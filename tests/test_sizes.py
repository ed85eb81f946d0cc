"""Reviews of 200 records a source finish and write all nine files (issue 20: the PubMed and
arXiv reviews of 200 records died writing them, PRISMA's exclusion reasons undercounted).

The replay server's services find as many records as asked: recorded records repeated under
synthetic ids (:mod:`scholargraph.testing.services.repeated`); the PubMed ones keep their DOIs,
so different works share an id, as the failing review's did.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from scholargraph.report import REVIEW_FILES
from scholargraph.testing.services.repeated import repeated_server

QUESTION = "risk factors, treatment and outcomes of patients in cohort studies"
SERVICE = {"pubmed": "pubmed", "arxiv": "arxiv", "openalex": "openalex"}


@pytest.mark.slow
@pytest.mark.parametrize("source", ["pubmed", "arxiv", "openalex"])
def test_a_review_of_200_records_writes_all_nine_files(source: str, tmp_path: Path,
                                                       screening_check) -> None:
    out = tmp_path / "out"
    with repeated_server() as server, server.environment(
            SCHOLARGRAPH_HOME=str(tmp_path / "home"), SCHOLARGRAPH_RATE_SCALE="1000"):
        done = subprocess.run(
            [sys.executable, "-m", "scholargraph.cli", "review", QUESTION, "--sources", source,
             "--max-results", "200", "--out", str(out), "--quiet"],
            capture_output=True, text=True, timeout=900, env=os.environ, check=False)
        pmc = [request.param("id") for request in server.requests
               if request.service == "pubmed" and request.param("db") == "pmc"]

    assert done.returncode == 0, done.stderr
    data = json.loads((out / "review.json").read_text())
    for name in REVIEW_FILES:
        # a review that included nothing has no reference to export, and says so elsewhere
        empty_allowed = name.endswith((".bib", ".ris")) and not data["papers"]
        assert (out / name).is_file() and (empty_allowed or (out / name).stat().st_size > 0), name
    prisma = data["prisma"]
    assert prisma["identified"][source] >= 200
    identified = sum(prisma["identified"].values())
    assert prisma["screened"] == identified - prisma["duplicates_removed"]
    assert prisma["excluded"] == sum(prisma["excluded_reasons"].values())
    assert prisma["included"] == prisma["screened"] - prisma["excluded"] == len(data["papers"])
    screening_check((out / "screening.csv").read_text(encoding="utf-8"), prisma)
    asked = [pmcid for ids in pmc for pmcid in (ids or "").split(",")]
    assert all(count == 1 for count in Counter(asked).values())  # each article once a run
