"""Where the benches find ``../shared`` (the evaluation data and recorded full texts, read where
they lie and never copied into the project)."""

from __future__ import annotations

from pathlib import Path


def shared_beside(part: str) -> Path:
    """``shared/<part>`` in the nearest folder above this checkout that holds it: a clone
    beside ``shared`` and a git worktree further down both find it; else the path beside the
    clone, which the bench reports as absent."""
    for folder in Path(__file__).resolve().parents[1:]:
        if (folder / "shared" / part).exists():
            return folder / "shared" / part
    return Path(__file__).resolve().parents[2] / "shared" / part
