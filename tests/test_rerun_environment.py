"""A review's re-run command carries every setting that shaped the run, the ones the
environment gave included, and never a key: a colleague who runs it in their own shell gets the
same review, not one ranked by another embedding model or searched at another address."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from pydantic import SecretStr

from scholargraph import review
from scholargraph.cli import main
from scholargraph.errors import InputError
from scholargraph.options import ReviewOptions
from scholargraph.report import Report
from scholargraph.runs import effective_options, rerun_command, shaping_environment
from scholargraph.settings import Settings

QUESTION = "machine learning for public health surveillance"


def split_command(command: str) -> tuple[dict[str, str], list[str]]:
    """The variables a POSIX shell would set for the command, and its words after them."""
    words = shlex.split(command)
    at = words.index("scholargraph")
    return dict(word.split("=", 1) for word in words[:at]), words[at:]


def test_settings_that_shaped_a_run_go_before_its_command_and_keys_never_do() -> None:
    """The embedding model and a mirror's address change what a run finds; a key, a contact
    address or a timeout does not. The first two are set before the command (the address
    without its credentials), the others are left to the colleague."""
    settings = Settings(embedding_model="none", ncbi_email="me@example.org",
                        openalex_url="http://reader:pw@mirror.example/openalex?api_key=k1",
                        openalex_api_key=SecretStr("secret-key-1"), timeout_s=5.0,
                        chromium="none")
    environment = shaping_environment(settings)
    assert environment == {"SCHOLARGRAPH_OPENALEX_URL": "http://mirror.example/openalex",
                           "SCHOLARGRAPH_CHROMIUM": "none", "SCHOLARGRAPH_EMBEDDINGS": "none"}
    command = rerun_command(QUESTION, effective_options(ReviewOptions(offline=True)),
                            environment)
    variables, words = split_command(command)
    assert variables == environment
    assert words == ["scholargraph", "review", QUESTION, "--offline", "--out", "rerun"]
    for private in ("secret-key-1", "k1", "pw", "me@example.org", "TIMEOUT"):
        assert private not in command
    assert shaping_environment(Settings()) == {}


def test_the_model_server_is_named_when_an_openai_model_answered(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An ``openai:`` model answered from the server ``OPENAI_BASE_URL`` names (an Ollama or
    vLLM server): the command points the colleague's client there too, without the password in
    the address; a run with the deterministic engine does not name it."""
    monkeypatch.setenv("OPENAI_BASE_URL", "http://me:pw@gpu.example:8000/v1")
    assert shaping_environment(Settings(), "openai:qwen2.5") == {
        "OPENAI_BASE_URL": "http://gpu.example:8000/v1"}
    assert shaping_environment(Settings(embedding_model="openai:text-embedding-3-small")) == {
        "OPENAI_BASE_URL": "http://gpu.example:8000/v1",
        "SCHOLARGRAPH_EMBEDDINGS": "openai:text-embedding-3-small"}
    assert shaping_environment(Settings(), None) == {}


def test_no_key_is_ever_marked_as_shaping_a_run() -> None:
    """A secret in a command or a review.json is a leak: the schema cannot mark one."""
    marked = [name for name, info in Settings.model_fields.items()
              if isinstance(info.json_schema_extra, dict)
              and info.json_schema_extra.get("shapes_run")]
    assert "embedding_model" in marked and "openalex_url" in marked
    for name in marked:
        annotation = str(Settings.model_fields[name].annotation)
        assert "SecretStr" not in annotation, name


def test_a_value_needing_quotes_is_one_shell_word(tmp_path: Path) -> None:
    """A model path with a space stays one assignment when the shell reads the command."""
    environment = {"SCHOLARGRAPH_EMBEDDINGS": str(tmp_path / "my models" / "mini")}
    command = rerun_command(QUESTION, effective_options(ReviewOptions()), environment)
    variables, words = split_command(command)
    assert variables == environment and words[:2] == ["scholargraph", "review"]


def test_the_recorded_command_carries_the_embedding_model_the_run_was_given(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A review ranked lexically (``SCHOLARGRAPH_EMBEDDINGS=none``, given as the run's
    settings), re-run by its recorded command from a shell that has no such variable and a
    fresh home, ranks lexically too: the same works, findings and flow. Without the variable in
    the command the colleague's run embedded with MiniLM (on the recorded corpus with seven
    options given: 12 works included where the review had 21)."""
    settings = Settings(embedding_model="none", home=tmp_path / "first-home")
    first = review(QUESTION, offline=True, sources=["arxiv", "openalex"], max_iterations=1,
                   full_text=0, settings=settings, out=tmp_path / "first")
    assert first.run is not None
    assert first.run.environment == {"SCHOLARGRAPH_EMBEDDINGS": "none"}
    variables, words = split_command(first.run.command)
    monkeypatch.delenv("SCHOLARGRAPH_EMBEDDINGS", raising=False)
    monkeypatch.setenv("SCHOLARGRAPH_HOME", str(tmp_path / "colleague-home"))
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    assert main([*words[1:], "--quiet"]) == 0
    again = Report.model_validate_json((tmp_path / "rerun" / "review.json").read_text())
    assert again.run is not None and again.run.embedding_model == "none"
    assert [p.id for p in again.papers] == [p.id for p in first.papers]
    assert [f.text for f in again.findings] == [f.text for f in first.findings]
    assert json.dumps(again.prisma, sort_keys=True) == json.dumps(first.prisma, sort_keys=True)
    assert again.run.command == first.run.command


def test_a_thread_is_not_resumed_under_other_settings_that_shape_it(tmp_path: Path) -> None:
    """A named run started with lexical ranking and asked for again with MiniLM would hand back
    (or finish) a review its record says was made otherwise: it says so instead."""
    home = tmp_path / "home"
    options = {"offline": True, "sources": ["openalex"], "max_iterations": 1, "full_text": 0,
               "thread": "lexical"}
    first = review(QUESTION, **options, settings=Settings(embedding_model="none", home=home))
    assert first.run is not None and first.run.environment == {"SCHOLARGRAPH_EMBEDDINGS": "none"}
    with pytest.raises(InputError, match="SCHOLARGRAPH_EMBEDDINGS"):
        review(QUESTION, **options, settings=Settings(home=home))
    again = review(QUESTION, **options, settings=Settings(embedding_model="none", home=home))
    assert [p.id for p in again.papers] == [p.id for p in first.papers]
