"""The worker that ships inside the `photoworker` wheel (scripts/package.sh), and the `photoworker` command that
starts it.

The wheel puts the self-contained worker (binary, its C libraries, its resource bundles) in `_worker/` beside this
module. The plain client (`pip install clients/python`) has no such folder, so `bundled_executable()` is None there and
the client falls back to `$PHOTOWORKER_BIN` or PATH.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

_WORKER = Path(__file__).resolve().parent / "_worker" / "photoworker"


def bundled_executable() -> str | None:
    """The worker installed with this package, or None when the package carries none."""
    return str(_WORKER) if _WORKER.is_file() else None


def main() -> None:
    """Entry point of the wheel's `photoworker` command: replaces this Python process with the bundled worker.

    `execv`, not a child process: signals, stdio, the exit status and the process id are the worker's own, so a
    host that spawns `photoworker` (an editor, an MCP host) talks to the worker directly and no Python parent is
    left behind if either side dies.
    """
    exe = bundled_executable()
    if exe is None:
        sys.stderr.write("photoworker: this installation carries no worker (expected at %s)\n" % _WORKER)
        raise SystemExit(127)
    os.execv(exe, [exe, *sys.argv[1:]])
