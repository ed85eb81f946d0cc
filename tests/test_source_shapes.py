"""The source parsers on recorded answers of other shapes: arXiv's old-style ids, versions and
journal references, OpenAlex works whose documented fields are null or malformed (one bad work
loses nothing of its page), PubMed book records. Expected values are read from the recorded
bytes, not typed in."""

from __future__ import annotations

import copy
import json
import logging
import re
from pathlib import Path
from typing import Any

import pytest

from scholargraph.settings import Settings
from scholargraph.sources.arxiv import ArxivAgent
from scholargraph.sources.openalex import work_from_openalex, works_of_page
from scholargraph.testing import ReplayServer, fixture_path
from scholargraph.testing.documents import OneFeed


def recorded(name: str) -> bytes:
    return Path(str(fixture_path(name))).read_bytes()





@pytest.mark.parametrize(("name", "asked"), [
    ("arxiv/id_astro-ph_0601001_s0_m100_3150dca9dc76.atom.xml", "astro-ph/0601001"),
    ("arxiv/id_quant-ph_0201082v1_s0_m100_86989fe779ef.atom.xml", "quant-ph/0201082v1"),
    ("arxiv/id_0808.05394_1707.08567_s0_m100_42e5aa0ec3af.atom.xml", "0808.05394"),
])
def test_arxiv_old_ids_versions_and_journal_refs(name: str, asked: str) -> None:
    body = recorded(name)
    with ReplayServer([OneFeed(body)]) as server, server.environment():
        works = ArxivAgent(Settings()).lookup([asked])
    ids = re.findall(rb"<id>http://arxiv.org/abs/([^<]+?)(?:v\d+)?</id>", body)
    assert [w.arxiv_id for w in works] == [i.decode() for i in ids]
    refs = re.findall(rb"<arxiv:journal_ref[^>]*>([^<]+)<", body)
    assert [w.journal_ref for w in works if w.journal_ref] == [r.decode().strip() for r in refs]
    assert all(w.title and w.abstract and w.authors and w.year and w.kind == "preprint"
               for w in works)


def peneira_works() -> list[dict[str, Any]]:
    return json.loads(recorded("openalex/peneira_works.json"))["results"]


@pytest.mark.parametrize("damage", [
    {"locations": [None]},
    {"authorships": [None]},
    {"abstract_inverted_index": {"climate": None}},
    {"primary_location": None, "best_oa_location": None, "open_access": None, "ids": None},
])
def test_an_openalex_work_with_a_null_or_malformed_part_keeps_its_other_fields(
        damage: dict[str, Any]) -> None:
    item = peneira_works()[0]
    whole = work_from_openalex(item)
    damaged = work_from_openalex({**copy.deepcopy(item), **damage})
    assert (damaged.title, damaged.doi, damaged.year) == (whole.title, whole.doi, whole.year)


def test_an_authorship_without_an_author_gives_the_printed_name() -> None:
    item = copy.deepcopy(peneira_works()[0])
    printed = item["authorships"][0]["raw_author_name"]
    item["authorships"][0]["author"] = None
    family = printed.rsplit(" ", 1)[-1]
    assert work_from_openalex(item).authors[0].startswith(family)


def test_an_unreadable_openalex_work_is_left_out_and_its_page_kept(caplog) -> None:
    page = peneira_works()[:3]
    broken = {**copy.deepcopy(page[1]), "title": ["not", "a", "title"]}
    with caplog.at_level(logging.WARNING):
        works = works_of_page([page[0], broken, page[2], None])
    assert [w.openalex_id for w in works] == [work_from_openalex(page[i]).openalex_id
                                              for i in (0, 2)]
    assert page[1]["id"] in caplog.text
