"""Shared fixtures: the real binary (PHOTOWORKER_BIN, default <repo>/.build/debug/photoworker) and the fake worker."""

from __future__ import annotations

import asyncio
import functools
import os
import sys
from pathlib import Path
from typing import Any, Awaitable, Callable

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
FAKE_WORKER = REPO / "clients" / "testing" / "fake_worker.py"
CORPUS = REPO / "corpus"

sys.path.insert(0, str(HERE.parent))  # the package, without installing it


def real_binary() -> Path:
    return Path(os.environ.get("PHOTOWORKER_BIN") or REPO / ".build" / "debug" / "photoworker")


@pytest.fixture(scope="session")
def worker_bin() -> str:
    path = real_binary()
    if not os.access(path, os.X_OK):
        pytest.fail(f"photoworker binary not found at {path}: run `swift build` or set PHOTOWORKER_BIN")
    return str(path)


@pytest.fixture(scope="session")
def fake_bin() -> str:
    return str(FAKE_WORKER)


def async_test(fn: Callable[..., Awaitable[Any]]) -> Callable[..., Any]:
    """Runs an async test on a fresh event loop with a hard time limit (no pytest-asyncio needed)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        async def limited() -> Any:
            return await asyncio.wait_for(fn(*args, **kwargs), 30)

        return asyncio.run(limited())

    return wrapper


def process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie still answers kill(0); it is not running any more but it has not been reaped either.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def children(pid: int | None = None) -> list[int]:
    """Live (non-zombie) child processes of `pid` (default: this process)."""
    parent = pid or os.getpid()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
        if int(fields[1]) == parent and fields[0] != "Z":
            found.append(int(entry))
    return found


async def eventually(check: Callable[[], Awaitable[bool]], timeout: float = 5.0, what: str = "condition") -> None:
    """Polls `check` (an async predicate) until it holds; fails the test after `timeout` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not await check():
        if loop.time() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)
