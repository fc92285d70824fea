"""`WorkerPool` against the real binary: spreading, restart after a death, closing without orphans."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest
from conftest import async_test, children, eventually, process_exists

from photoworker_client import Item, Result, WorkerClosed, WorkerDied, WorkerPool


@async_test
async def test_calls_are_spread_over_the_workers(worker_bin):
    async with WorkerPool(3, worker_bin) as pool:
        pids = {w.pid for w in pool.workers}
        assert len(pids) == 3
        calls = [asyncio.ensure_future(pool.call("diagnostics.sleep", {"ms": 300})) for _ in range(6)]
        await asyncio.sleep(0)  # let every call be sent
        assert [w.in_flight for w in pool.workers] == [2, 2, 2]
        assert [r["slept"] for r in await asyncio.gather(*calls)] == [300] * 6


@async_test
async def test_a_dead_worker_fails_its_calls_and_is_replaced(worker_bin):
    async with WorkerPool(2, worker_bin) as pool:
        victim, survivor = pool.workers
        assert victim is not None and survivor is not None
        calls = [asyncio.ensure_future(pool.call("diagnostics.sleep", {"ms": 1500})) for _ in range(4)]
        await asyncio.sleep(0)
        assert victim.in_flight == 2 and survivor.in_flight == 2
        await eventually(lambda: _running(victim, 2), what="the victim's jobs to start")
        os.kill(victim.pid, signal.SIGKILL)

        outcomes = await asyncio.gather(*calls, return_exceptions=True)
        died = [o for o in outcomes if isinstance(o, WorkerDied)]
        assert len(died) == 2, outcomes
        assert all(d.pid == victim.pid and d.returncode == -signal.SIGKILL for d in died)
        assert [o for o in outcomes if isinstance(o, dict)] == [{"slept": 1500}] * 2

        await eventually(lambda: _replaced(pool, victim.pid), what="a replacement worker")
        assert pool.restarts == 1
        assert not process_exists(victim.pid)
        results = await asyncio.gather(*(pool.call("ping") for _ in range(4)))
        assert results == [{}] * 4


async def _running(worker, n) -> bool:
    return len((await worker.call("jobs.list"))["jobs"]) == n


async def _replaced(pool, old_pid) -> bool:
    return all(w is not None and w.alive for w in pool.workers) and old_pid not in {w.pid for w in pool.workers}


@async_test
async def test_pool_streams(worker_bin):
    async with WorkerPool(2, worker_bin) as pool:
        events = [e async for e in pool.stream("diagnostics.fanout", {"children": 4, "ms": 0})]
        assert sorted(e.index for e in events if isinstance(e, Item)) == [0, 1, 2, 3]
        assert events[-1] == Result({"children": 4})


@async_test
async def test_close_ends_every_child_including_replacements(worker_bin):
    before = set(children())
    pool = WorkerPool(3, worker_bin)
    await pool.start()
    first = pool.workers[0]
    os.kill(first.pid, signal.SIGKILL)
    await eventually(lambda: _replaced(pool, first.pid), what="a replacement worker")
    pids = {w.pid for w in pool.workers}
    assert set(children()) - before == pids
    await pool.close()
    assert set(children()) - before == set()
    assert not any(process_exists(pid) for pid in pids)
    with pytest.raises(WorkerClosed):
        await pool.call("ping")


@async_test
async def test_close_during_a_restart_leaves_no_orphan(worker_bin):
    before = set(children())
    pool = WorkerPool(1, worker_bin)
    await pool.start()
    os.kill(pool.workers[0].pid, signal.SIGKILL)
    await pool.workers[0].wait_exit()
    await pool.close()  # the monitor may be mid-spawn: it must close what it started
    assert set(children()) - before == set()


@async_test
async def test_a_pool_that_cannot_start_raises_and_cleans_up(tmp_path):
    before = set(children())
    with pytest.raises(OSError):
        async with WorkerPool(2, tmp_path / "missing"):
            pass
    assert set(children()) - before == set()


@async_test
async def test_leaving_a_pool_stream_early_cancels_the_job(worker_bin):
    async with WorkerPool(1, worker_bin) as pool:
        async for event in pool.stream("diagnostics.fanout", {"children": 50, "ms": 10_000}):
            assert isinstance(event, Item)
            break
        worker = pool.workers[0]
        await eventually(lambda: _running(worker, 0), what="the abandoned stream's job to be cancelled")


@async_test
async def test_max_memory_goes_to_every_worker_of_the_pool(worker_bin):
    async with WorkerPool(2, worker_bin, max_memory="1G") as pool:
        for worker in pool.workers:
            limits = (await worker.initialize())["limits"]
            assert limits["maxMemoryOrigin"].startswith("--max-memory 1 GiB"), limits
        # A replacement is started with the same flag.
        first = pool.workers[0]
        os.kill(first.pid, signal.SIGKILL)
        await eventually(lambda: _replaced(pool, first.pid), what="a replacement worker")
        limits = (await pool.workers[0].initialize())["limits"]
        assert limits["maxMemoryOrigin"].startswith("--max-memory 1 GiB"), limits


def test_a_bad_max_memory_fails_the_pool_constructor(worker_bin):
    with pytest.raises(ValueError):
        WorkerPool(2, worker_bin, ["--max-memory", "1G"], max_memory="2G")
