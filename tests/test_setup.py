"""The set-up a new user runs is the set-up CI runs, and the lock covers what pyproject asks for."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib.metadata import requires
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / ".ci"))

from readme_setup import setup_commands  # noqa: E402


def normalised(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def locked() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        match = re.match(r"^([A-Za-z0-9_.\-]+)==([^\s;]+)", line)
        if match:
            pins[normalised(match[1])] = match[2]
    return pins


def test_the_readme_installs_from_the_lock_and_runs_an_offline_review() -> None:
    install, tests = setup_commands((ROOT / "README.md").read_text(encoding="utf-8"))
    assert "-c requirements.lock" in install and '-e ".[dev]"' in install
    assert "scholargraph review" in install and "--offline" in install and "--out" in install
    assert "upgrade" not in install  # the pip a new venv ships is enough
    assert tests == "python -m pytest"


def test_every_declared_requirement_is_locked() -> None:
    pins = locked()
    declared = [Requirement(text) for text in requires("scholargraph") or []]
    wanted = [r for r in declared
              if r.marker is None or any(r.marker.evaluate({"extra": extra})
                                         for extra in ("dev", "postgres", "browser"))]
    missing = [str(r) for r in wanted if normalised(r.name) != "scholargraph"
               and normalised(r.name) not in pins]
    assert wanted and missing == []
    assert "lxml-html-clean" in pins  # jusText imports lxml.html.clean; old pip skips the extra
    assert "torch" not in pins  # the default install needs no PyTorch


def test_every_built_in_source_imports_in_a_fresh_process() -> None:
    code = ("from scholargraph.sources.registry import agent_classes; "
            "print(','.join(cls.name for cls in agent_classes()))")
    names = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, timeout=120).stdout.strip().split(",")
    assert {"library", "pubmed", "arxiv", "openalex", "materials", "web"} <= set(names)


CONFLICT_MARKER = re.compile(r"^(<{7}|>{7})( |$)|^={7}$", re.MULTILINE)


def test_no_tracked_text_file_holds_a_merge_conflict_marker() -> None:
    """A merge left unresolved in the README once went unnoticed for a session: the docs
    showed both sides and the markers."""
    tracked = subprocess.run(["git", "ls-files", "*.py", "*.md", "*.toml", "*.txt", "*.cfg",
                              ".ci/*"], cwd=ROOT, capture_output=True, text=True, check=True)
    marked = [name for name in tracked.stdout.split()
              if (ROOT / name).is_file()
              and CONFLICT_MARKER.search((ROOT / name).read_text(encoding="utf-8",
                                                                   errors="replace"))]
    assert tracked.stdout and not marked, marked
