"""The worker that ships inside the `photoworker` wheel (scripts/package.sh).

The wheel puts the self-contained worker (binary, its C libraries, its resource bundles) in `_worker/` beside this
module. The plain client (`pip install clients/python`) has no such folder, so `bundled_executable()` is None there and
the client falls back to `$PHOTOWORKER_BIN` or PATH. The wheel's `photoworker` command
(scripts/package/photoworker_command.py) finds the same file without importing this package.
"""

from __future__ import annotations

from pathlib import Path

_WORKER = Path(__file__).resolve().parent / "_worker" / "photoworker"


def bundled_executable() -> str | None:
    """The worker installed with this package, or None when the package carries none."""
    return str(_WORKER) if _WORKER.is_file() else None

