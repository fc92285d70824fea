"""What the client does when the worker misbehaves: crashes, garbage on stdout, floods stderr, answers late.

These need the fake worker, which can be told to misbehave on demand.
"""

from __future__ import annotations

import asyncio

import pytest
from conftest import async_test

from photoworker_client import Progress, Worker, WorkerDied


@async_test
async def test_crash_fails_the_call_with_the_exit_status_and_stderr(fake_bin):
    async with Worker.spawn(fake_bin) as w:
        await w.call("test.stderr", {"lines": 1, "text": "about to crash"})
        other = asyncio.ensure_future(w.call("diagnostics.sleep", {"ms": 10_000}))
        with pytest.raises(WorkerDied) as caught:
            await w.call("test.crash", {"code": 7})
        assert caught.value.returncode == 7
        assert "about to crash 0" in caught.value.stderr_tail
        assert "exited with status 7" in str(caught.value)
        with pytest.raises(WorkerDied):
            await other


@async_test
async def test_garbage_on_stdout_is_recorded_and_skipped(fake_bin):
    async with Worker.spawn(fake_bin) as w:
        assert await w.call("test.garbage") == {}
        assert await w.call("ping") == {}
        assert len(w.protocol_errors) == 1
        assert "not JSON" in w.protocol_errors[0]


@async_test
async def test_a_stderr_flood_never_blocks_the_worker(fake_bin):
    # 4 MB of stderr, far beyond a pipe buffer: the worker would block forever if nobody drained it.
    async with Worker.spawn(fake_bin, stderr_lines=100) as w:
        await w.call("test.stderr", {"lines": 40_000, "text": "x" * 100}, timeout=20)
        assert w.stderr_tail(1) == "x" * 100 + " 39999"
        assert len(w.stderr_tail().splitlines()) == 100


@async_test
async def test_a_late_reply_after_a_timeout_is_dropped_quietly(fake_bin):
    async with Worker.spawn(fake_bin) as w:
        with pytest.raises(TimeoutError):
            await w.call("test.ignoreCancel", {"ms": 200}, timeout=0.05)
        await asyncio.sleep(0.4)  # the fake ignores the cancel and answers after 200 ms; nothing listens
        assert await w.call("ping") == {}
        assert w.protocol_errors == []


@async_test
async def test_params_must_be_by_name(fake_bin):
    async with Worker.spawn(fake_bin) as w:
        with pytest.raises(TypeError):
            await w.call("ping", [1, 2])  # type: ignore[arg-type]
        assert w.in_flight == 0


@async_test
async def test_progress_events_reach_on_progress(fake_bin):
    async with Worker.spawn(fake_bin) as w:
        seen: list = []
        assert await w.call("test.ignoreCancel", {"ms": 1}, on_progress=seen.append) == {"ignored": True}
        assert seen == [Progress(done=1, total=1)]


@async_test
async def test_missing_executable_raises_at_spawn(tmp_path):
    with pytest.raises(FileNotFoundError):
        await Worker.spawn(tmp_path / "no-such-worker")
