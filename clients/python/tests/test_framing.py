"""The client in both framings against the real binary: the worker detects how it is spoken to and answers
in kind, with the same guarantees (streaming, cancellation, typed errors, exactly one reply)."""

from __future__ import annotations

import asyncio

import pytest
from conftest import CORPUS, async_test, children, eventually

from photoworker_client import InvalidParams, Item, Result, SyncWorker, Worker, WorkerPool


@pytest.fixture(params=["ndjson", "content-length"])
def framing(request):
    return request.param


@async_test
async def test_calls_streams_and_errors(worker_bin, framing):
    async with Worker.spawn(worker_bin, framing=framing, initialize=True) as w:
        assert w.framing == framing
        assert w.server_info["serverInfo"]["name"] == "photoworker"
        palette = await w.call("image.palette", {"source": {"path": str(CORPUS / "photos/girl-1.jpg")}, "count": 4})
        assert 1 <= len(palette["colors"]) <= 4
        results = await asyncio.gather(*(w.call("diagnostics.sleep", {"ms": ms}) for ms in (30, 0, 10)))
        assert [r["slept"] for r in results] == [30, 0, 10]
        events = [e async for e in w.stream("diagnostics.fanout", {"children": 6, "ms": 5})]
        assert sorted(e.index for e in events if isinstance(e, Item)) == list(range(6))
        assert events[-1] == Result({"children": 6})
        with pytest.raises(InvalidParams):
            await w.call("image.palette", {"source": {"path": "x.jpg"}, "count": 99})
        assert w.protocol_errors == []


@async_test
async def test_cancelling_a_call_cancels_the_job(worker_bin, framing):
    async with Worker.spawn(worker_bin, framing=framing) as w:
        task = asyncio.ensure_future(w.call("diagnostics.sleep", {"ms": 60_000}))

        async def running() -> bool:
            return bool((await w.call("jobs.list"))["jobs"])

        await eventually(running, what="the job to start")
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

        async def gone() -> bool:
            return not (await w.call("jobs.list"))["jobs"]

        await eventually(gone, what="the cancelled job to go")
        assert (await w.call("worker.stats"))["cancelled"] == 1


@async_test
async def test_a_pool_passes_the_framing_to_its_workers(worker_bin):
    async with WorkerPool(2, worker_bin, framing="content-length") as pool:
        assert [r["slept"] for r in await asyncio.gather(*(pool.call("diagnostics.sleep", {"ms": 1}) for _ in range(4)))] == [1] * 4


def test_sync_worker_in_content_length(worker_bin):
    with SyncWorker(worker_bin, framing="content-length") as w:
        assert w.call("ping") == {}


def test_an_unknown_framing_is_refused_before_a_process_starts(worker_bin):
    before = children()
    with pytest.raises(ValueError, match="framing"):
        with SyncWorker(worker_bin, framing="xml"):
            pass
    assert children() == before
