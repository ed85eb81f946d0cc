"""The README says what the code does: its option lists, file lists, variables, paths and links
are checked against the code, and one of its offline commands is run as written.

The README is what a scientist follows first. Three of these checks failed on the README of
main at 1274f90: Studio's option list named 8 of the 17 context fields, two variables the
settings read (``SCHOLARGRAPH_LIBRARY``, ``SCHOLARGRAPH_USER_AGENT``) were never named, and the
Python API's keywords were not listed.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import fields
from pathlib import Path

import pytest

from scholargraph.cli import build_parser, main
from scholargraph.context import ReviewContext
from scholargraph.graph import graph
from scholargraph.options import ReviewOptions
from scholargraph.report import REVIEW_FILES
from scholargraph.screening.session import OUTPUT_FILES
from scholargraph.settings import env_fields

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")

REPO_PATH = re.compile(r"`((?:scholargraph|bench|tests|examples|\.ci)/[A-Za-z0-9_./-]+)`")
"""A path in the repository, as the README writes it in backticks."""

OPTION_ROW = re.compile(r"^\| `(--[a-z-]+)", re.MULTILINE)
"""The first option of a row of the README's option table (`| `--since YEAR` / ...`)."""



def section(title: str) -> str:
    """The README's text under a heading, up to the next heading (``##`` or deeper: a single
    ``#`` at a line's start is a shell comment in a code block)."""
    match = re.search(rf"^#{{2,}} {re.escape(title)}\n(.*?)(?=^#{{2,}} )", README,
                      re.MULTILINE | re.DOTALL)
    assert match, f"README has no section {title!r}"
    return match.group(1)


def subcommand_options(name: str) -> set[str]:
    """The long options of one ``scholargraph`` subcommand, as its parser declares them."""
    parser = build_parser()
    commands = next(action for action in parser._actions if action.dest == "command")
    sub = commands.choices[name]  # type: ignore[attr-defined]
    return {flag for action in sub._actions for flag in action.option_strings
            if flag.startswith("--") and flag != "--help"}


def test_every_review_option_is_in_the_readme_table_and_every_row_is_an_option() -> None:
    table = section("Running a review")
    rows = set(OPTION_ROW.findall(table)) | set(re.findall(r"\| `--[a-z-]+[^|]*/ `(--[a-z-]+)",
                                                           table))
    declared = subcommand_options("review")
    assert declared - rows == set(), "options missing from the README's table"
    assert rows - declared == set(), "README rows for options the CLI does not have"


@pytest.mark.parametrize("command, title", [
    ("update", "Keeping a review current"),
    ("screen", "Screening a library with a person in the loop"),
    ("serve", "Live review page"),
    ("thread", "LangGraph Studio"),
])
def test_every_option_of_the_other_commands_is_in_its_section(command: str, title: str) -> None:
    named = set(re.findall(r"--[a-z][a-z-]+", section(title)))
    assert subcommand_options(command) - named == set()


def test_the_python_keywords_the_readme_lists_are_the_options_review_takes() -> None:
    paragraph = README[README.index("`review()` takes the command line's options as keywords"):]
    paragraph = paragraph[:paragraph.index("\n\n")]
    named = set(re.findall(r"`([a-z_]+)`", paragraph))
    accepted = {f.name for f in fields(ReviewOptions)} | {"style"}
    assert named - {"out", "review", "approve_plan"} <= accepted
    cli_fields = {f.name for f in fields(ReviewOptions) if f.metadata.get("cli") is not None}
    cli_fields = {"style" if name == "citation_style" else name for name in cli_fields}
    assert cli_fields - {"approve_plan"} <= named


def test_the_studio_section_names_every_context_field() -> None:
    """Every field of the form Studio renders from the context schema, and no other."""
    named = set(re.findall(r"`([a-z_]+)`", section("LangGraph Studio")))
    form = set(graph.get_context_jsonschema()["properties"])
    assert form <= named
    assert form == {f.name for f in fields(ReviewContext)} - {"chat_model"}


def test_every_variable_the_settings_read_is_documented() -> None:
    documented = set(re.findall(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b", README))
    assert set(env_fields()) - documented == set()


def test_the_files_a_review_writes_are_the_ones_listed() -> None:
    table = section("What you get")
    listed = set(re.findall(r"`([a-z.]+\.(?:md|json|bib|ris|html|svg|csv))`", table))
    assert listed >= set(REVIEW_FILES)
    assert len(REVIEW_FILES) == 9 and "the nine files" in README


def test_the_files_screen_writes_are_the_ones_listed() -> None:
    table = section("Screening a library with a person in the loop")
    for name in OUTPUT_FILES:
        assert f"| `{name}` |" in table


def test_every_repository_path_the_readme_names_exists() -> None:
    missing = [path for path in sorted(set(REPO_PATH.findall(README)))
               if not (ROOT / path.rstrip("/")).exists()]
    assert missing == []


def test_every_link_within_the_readme_reaches_a_heading() -> None:
    anchors = {re.sub(r"[^a-z0-9 -]", "", heading.lower()).replace(" ", "-")
               for heading in re.findall(r"^#{2,} (.*)$", README, re.MULTILINE)}
    links = set(re.findall(r"\]\(#([^)]+)\)", README))
    assert links and links <= anchors


@pytest.mark.slow
def test_the_full_text_example_runs_offline_and_cites_its_section(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's offline review of a recorded CC BY article, run as written (its ``--out``
    moved under the test's folder): the nine files, and a finding cited by its section."""
    block = section("Offline corpus")
    command = re.search(r"^scholargraph (review .*?)\n(?!\s)", block.replace("\\\n", " "),
                        re.MULTILINE)
    assert command, "the Offline corpus section has no scholargraph review command"
    args = shlex.split(command.group(1))
    out = args.index("--out") + 1
    args[out] = str(tmp_path / args[out])
    monkeypatch.chdir(ROOT)  # the README names the fixture from the repository's root
    assert main([*args, "--quiet"]) == 0
    written = {path.name for path in (tmp_path / "erlotinib").iterdir()}
    assert written >= set(REVIEW_FILES)
    review_md = (tmp_path / "erlotinib" / "review.md").read_text(encoding="utf-8")
    assert "[1, Conclusion]" in review_md and "[1, Conclusion]" in block
