"""Print the README's set-up commands, one a line, exactly as written.

CI runs what this prints, so the README cannot drift from what is tested: the commands are the
lines of the first fenced ``bash`` block under the ``## Set-up`` heading. Exactly two are expected
(install and review; the tests), and anything else fails CI with a message.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

BLOCK = re.compile(r"^## Set-up\n.*?^```bash\n(?P<body>.*?)^```", re.MULTILINE | re.DOTALL)


def setup_commands(readme: str) -> list[str]:
    match = BLOCK.search(readme)
    if match is None:
        raise SystemExit("README: no ```bash block under '## Set-up'")
    commands = [line.strip() for line in match["body"].splitlines() if line.strip()]
    if len(commands) != 2:
        raise SystemExit(f"README: the set-up block has {len(commands)} commands, not 2")
    return commands


if __name__ == "__main__":
    print("\n".join(setup_commands(Path(sys.argv[1]).read_text(encoding="utf-8"))))
