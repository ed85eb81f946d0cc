"""Files written whole or not at all: a review's outputs, a screening library's kept features."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_atomically(path: Path, content: str | bytes) -> None:
    """``content`` (text as UTF-8, or bytes) into ``path`` through a temporary file in the same
    folder, renamed into place (``os.replace`` is atomic on one file system): the file is whole
    or untouched, and two writers of one path never share a temporary file."""
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(handle, 0o666 & ~_umask())  # as open() would create it, not mkstemp's 0600
        if isinstance(content, str):
            with os.fdopen(handle, "w", encoding="utf-8") as text:
                text.write(content)
        else:
            with os.fdopen(handle, "wb") as binary:
                binary.write(content)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _umask() -> int:
    """The process's umask (read by setting it, then put back at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
