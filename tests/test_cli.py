"""The command line's contract for bad input: exit 2 and one line on stderr, before any request."""

import re
from datetime import UTC, datetime

import pytest

from scholargraph.cli import main


def run_cli(capsys, *args):
    """Exit code and stderr lines, whether main returns or argparse exits."""
    try:
        code = main(["review", *args])
    except SystemExit as exited:
        code = exited.code
    return code, capsys.readouterr().err.strip().splitlines()


@pytest.mark.parametrize("args, reason", [
    (["", "--out", "{out}"], "question is empty"),
    (["   ", "--out", "{out}"], "question is empty"),
    (["x" * 1001, "--out", "{out}"], "limit is 1000"),
    (["ok question", "--out", "{out}", "--sources", "pubmed,scopus"], "unknown source 'scopus'"),
    (["ok question", "--out", "{out}", "--sources", ","], "at least one source"),
    (["ok question", "--out", "{out}", "--since", "2020", "--until", "2010"],
     "--since 2020 is after --until 2010"),
    (["ok question", "--out", "{out}", "--since", str(datetime.now(UTC).year + 1)],
     f"--since {datetime.now(UTC).year + 1} is after this year"),
    (["ok question", "--out", "{out}", "--max-results", "0"], "--max-results must be between 1"),
    (["ok question", "--out", "{out}", "--since", "twenty"], "invalid int value"),
    (["ok question", "--out", "{file}/sub"], "cannot write to --out"),
])
def test_bad_input_exits_2_with_one_line(capsys, tmp_path, args, reason):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    code, lines = run_cli(capsys, *[a.format(out=tmp_path / "out", file=blocker) for a in args])
    assert code == 2
    assert len(lines) == 1 and reason in lines[0], lines


def test_argparse_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as raised:
        main(["review", "question"])
    assert raised.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--out" in err[0]


def test_unusable_model_name_is_bad_input(capsys, tmp_path, replay):
    code, lines = run_cli(capsys, "machine learning", "--out", str(tmp_path / "o"),
                          "--model", "no-such-provider:model-x", "--sources", "openalex")
    assert code == 2
    assert len(lines) == 1 and "cannot load chat model" in lines[0]


def test_settings_read_only_the_documented_variables(monkeypatch, tmp_path):
    from pathlib import Path

    from scholargraph.settings import Settings

    monkeypatch.delenv("SCHOLARGRAPH_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("MODEL", "not-a-model")
    settings = Settings()
    assert settings.home == Path.home() / ".scholargraph" == tmp_path / ".scholargraph"
    assert settings.model is None
    monkeypatch.setenv("SCHOLARGRAPH_HOME", str(tmp_path / "elsewhere"))
    assert Settings().home == tmp_path / "elsewhere"


def test_version_help_and_bare_command(capsys):
    from importlib.metadata import version

    with pytest.raises(SystemExit) as raised:
        main(["--version"])
    assert raised.value.code == 0
    assert capsys.readouterr().out.strip() == f"scholargraph {version('scholargraph')}"
    assert main([]) == 0
    assert "{review,update,screen,serve,thread,cache}" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["review", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "(default: 20)" in help_text and "(default: apa)" in help_text


def test_cache_info_and_clear(capsys, tmp_path, monkeypatch):
    """What the cache keeps is listed, and clearing it removes the file and its journals."""
    import sqlite3

    from scholargraph.http.cache import CACHE_FILE
    from scholargraph.settings import Settings

    assert main(["cache", "info"]) == 0
    assert "no cache yet" in capsys.readouterr().out
    home = Settings().home
    home.mkdir(parents=True)
    with sqlite3.connect(home / CACHE_FILE) as db:
        db.execute("CREATE TABLE responses (key TEXT, value BLOB)")
        db.executemany("INSERT INTO responses VALUES (?, ?)", [("a", b"1"), ("b", b"2")])
    assert main(["cache", "info"]) == 0
    assert "responses: 2" in capsys.readouterr().out
    assert main(["cache", "clear"]) == 0
    assert "removed 2 cached answers" in capsys.readouterr().err
    assert list(home.glob(CACHE_FILE + "*")) == []


@pytest.mark.parametrize("make, reason", [
    (lambda d: d / "missing" / "eligibility", "criteria file {path} does not exist"),
    (lambda d: d / "criteria.txt", "criteria file {path} does not exist"),
    (lambda d: _written(d / "empty.txt", "\n  \n"), "criteria file {path} is empty"),
])
def test_a_missing_or_empty_criteria_file_exits_2_before_any_search(capsys, tmp_path, replay,
                                                                    make, reason):
    path = make(tmp_path)
    code, lines = run_cli(capsys, "exercise for knee osteoarthritis", "--out",
                          str(tmp_path / "out"), "--criteria", str(path))
    assert code == 2
    assert len(lines) == 1 and reason.format(path=path) in lines[0], lines
    assert replay.count() == 0 and not (tmp_path / "out").exists()


def test_a_library_without_a_titled_record_exits_2_naming_it(capsys, tmp_path, replay):
    library = _written(tmp_path / "records.jsonl", '{"abstract": "Knees were studied."}\n'
                       '{"title": "  ", "doi": "10.1000/x"}\n')
    code, lines = run_cli(capsys, "exercise for knee osteoarthritis", "--out",
                          str(tmp_path / "out"), "--library", str(library),
                          "--sources", "library")
    assert code == 2
    assert len(lines) == 1 and f"{library}: no record has a title" in lines[0], lines
    assert replay.count() == 0 and not (tmp_path / "out").exists()


def _written(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_a_library_source_without_a_library_exits_2_before_any_search(capsys, tmp_path, replay,
                                                                      monkeypatch):
    """`--sources library` without `--library` used to run a whole review of nothing (every
    search 'skipped: no library given') and exit 0; the scientist learns it at once now."""
    monkeypatch.delenv("SCHOLARGRAPH_LIBRARY", raising=False)
    code, lines = run_cli(capsys, "exercise for knee osteoarthritis", "--out",
                          str(tmp_path / "out"), "--sources", "library")
    assert code == 2
    assert len(lines) == 1 and "--sources library needs your records" in lines[0], lines
    assert replay.count() == 0 and not (tmp_path / "out").exists()


def test_an_empty_library_folder_exits_2_before_any_search(capsys, tmp_path, replay):
    """A folder with no library file in it (a wrong path, an export not yet saved) used to be
    read as 0 records while the review searched the services instead, exit 0."""
    folder = tmp_path / "exports"
    folder.mkdir()
    _written(folder / "notes.txt", "not a library file")
    code, lines = run_cli(capsys, "exercise for knee osteoarthritis", "--out",
                          str(tmp_path / "out"), "--library", str(folder))
    assert code == 2
    assert len(lines) == 1 and f"--library {folder} holds no library file" in lines[0], lines
    assert replay.count() == 0 and not (tmp_path / "out").exists()


def test_progress_says_which_source_was_skipped_and_counts_findings_as_the_summary(
        capsys, tmp_path, replay):
    """'lithium-ion cathode materials' chose the Materials Project, which was then skipped (it
    is searched by formula or elements) with no progress line saying so; and 'synthesis: 12
    findings' was followed by 'wrote ...: 11 findings' (a limitation counted as a finding)."""
    code = main(["review", "lithium-ion cathode materials with high capacity", "--out",
                 str(tmp_path / "out"), "--sources", "openalex,materials", "--max-iterations",
                 "1"])
    assert code == 0
    err = capsys.readouterr().err
    assert ("materials skipped: the question names a kind of material (lithium-ion cathode), "
            "not a compound") in err
    assert "every compound containing Li would not single out" in err
    assert re.search(r"\bopenalex: \d+ quer(?:y|ies) -> \d+ records?\b", err), err
    code = main(["review", "machine learning for public health surveillance", "--out",
                 str(tmp_path / "ml"), "--sources", "openalex", "--max-iterations", "1"])
    assert code == 0
    err = capsys.readouterr().err
    import json

    counts = json.loads((tmp_path / "ml" / "review.json").read_text())["counts"]
    said = [int(n) for n in re.findall(r"synthesis: (\d+) findings?", err)]
    assert counts["limitations"]  # the recorded review quotes a limitation beside them
    assert said and said[-1] == counts["findings"]
