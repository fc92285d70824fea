"""`Worker` against the real binary (and, for the protocol basics, the fake worker too, to keep it honest)."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal

import pytest
from conftest import CORPUS, async_test, children, eventually, process_exists

from photoworker_client import (
    ErrorCode,
    InvalidParams,
    Item,
    MethodNotFound,
    OverMemoryBudget,
    Progress,
    Result,
    ServerCancelled,
    SourceNotFound,
    Worker,
    WorkerClosed,
    WorkerDied,
    WorkerError,
)


@pytest.fixture(params=["real", "fake"])
def any_bin(request, worker_bin, fake_bin):
    return worker_bin if request.param == "real" else fake_bin


async def job_ids(w: Worker) -> set:
    return {job["id"] for job in (await w.call("jobs.list"))["jobs"]}


@async_test
async def test_initialize_and_ping(any_bin):
    async with Worker.spawn(any_bin, initialize=True) as w:
        assert w.server_info is not None
        names = {m["name"] for m in w.server_info["methods"]}
        assert {"ping", "jobs.list", "jobs.cancel", "worker.stats", "diagnostics.sleep"} <= names
        assert w.server_info["limits"]["maxLineBytes"] > 0
        assert await w.call("ping") == {}


@async_test
async def test_many_calls_in_flight_each_get_their_own_reply(any_bin):
    async with Worker.spawn(any_bin) as w:
        # 200 sleeps of 0..99 ms: sequentially that is ~10 s; in flight together, about the longest one.
        durations = [(i * 37) % 100 for i in range(200)]
        loop = asyncio.get_running_loop()
        start = loop.time()
        results = await asyncio.gather(*(w.call("diagnostics.sleep", {"ms": ms}) for ms in durations))
        assert [r["slept"] for r in results] == durations
        assert loop.time() - start < 5
        assert w.in_flight == 0


@async_test
async def test_replies_come_in_completion_order(any_bin):
    async with Worker.spawn(any_bin) as w:
        order = []

        async def sleep(ms):
            await w.call("diagnostics.sleep", {"ms": ms})
            order.append(ms)

        await asyncio.gather(sleep(400), sleep(1))
        assert order == [1, 400]


@async_test
async def test_stream_yields_every_item_then_the_result(any_bin):
    async with Worker.spawn(any_bin) as w:
        events = [e async for e in w.stream("diagnostics.fanout", {"children": 20, "ms": 50})]
        items = [e for e in events if isinstance(e, Item)]
        assert sorted(e.index for e in items) == list(range(20))
        assert all(e.ok and e.result["child"] == e.index for e in items)
        assert events[-1] == Result({"children": 20})
        assert sum(isinstance(e, Result) for e in events) == 1


@async_test
async def test_call_reports_streamed_events_to_on_progress(any_bin):
    async with Worker.spawn(any_bin) as w:
        seen: list = []
        result = await w.call("diagnostics.fanout", {"children": 5, "ms": 0}, on_progress=seen.append)
        assert result == {"children": 5}
        assert sorted(e.index for e in seen) == [0, 1, 2, 3, 4]


@async_test
async def test_errors_are_typed(any_bin):
    async with Worker.spawn(any_bin) as w:
        with pytest.raises(MethodNotFound) as caught:
            await w.call("no.such.method")
        assert caught.value.code == ErrorCode.METHOD_NOT_FOUND
        assert caught.value.data == {"method": "no.such.method"}

        with pytest.raises(InvalidParams) as caught:
            await w.call("diagnostics.sleep", {"ms": -5})
        assert caught.value.data["path"] == "ms"
        assert isinstance(caught.value.data["reason"], str)
        assert await w.call("ping") == {}  # an error does not disturb the connection


@async_test
async def test_a_live_photo_through_the_client(worker_bin, tmp_path):
    """A Live Photo (a still and its clip, Apple's names): its clip cut with `motion`, what that changed said in
    `warnings`; the still alone where a clip is needed is InvalidParams naming the clip beside it; a batch pairs the
    two by name and says so."""
    still, clip = tmp_path / "IMG_0001.HEIC", tmp_path / "IMG_0001.MOV"
    shutil.copy(CORPUS / "formats" / "girl.heic", still)
    shutil.copy(CORPUS / "motion" / "zoom-hevc-rot90.mov", clip)
    async with Worker.spawn(worker_bin) as w:
        r = await w.call("image.animatedSticker", {"source": {"path": str(still)}, "motion": {"path": str(clip)},
                                                   "output": {"path": str(tmp_path / "a.webp")}, "size": 128,
                                                   "keyFrameInterval": 10})
        assert r["frames"] > 1, r
        assert any(x.startswith("the 64x96 source was scaled up 1.3x to 128 px") for x in r["warnings"]), r["warnings"]
        with pytest.raises(InvalidParams) as caught:
            await w.call("image.animatedSticker", {"source": {"path": str(still)}, "output": {"path": str(tmp_path / "b.webp")}})
        assert caught.value.data["path"] == "source", caught.value.data
        assert "IMG_0001.MOV" in caught.value.data["reason"], caught.value.data
        batch = await w.call("photos.process", {"sources": [{"path": str(still)}], "output": {"dir": str(tmp_path / "out")},
                                                "animated": {"size": 64, "keyFrameInterval": 10}})
        assert batch["completed"] == 1 and batch["paired"][0]["found"] is True, batch
        assert batch["paired"][0]["motion"].endswith("IMG_0001.MOV"), batch


@async_test
async def test_image_errors_are_typed(worker_bin, tmp_path):
    async with Worker.spawn(worker_bin) as w:
        with pytest.raises(SourceNotFound) as caught:
            await w.call("image.info", {"source": {"path": str(tmp_path / "missing.png")}})
        assert caught.value.code == -32001
        assert "missing.png" in caught.value.data["source"]
        with pytest.raises(InvalidParams) as caught:
            await w.call("image.info", {"source": {}})
        assert caught.value.data["path"].startswith("source")


@async_test
async def test_cancelling_the_task_cancels_the_job(any_bin):
    async with Worker.spawn(any_bin) as w:
        task = asyncio.ensure_future(w.call("diagnostics.spin", {"ms": 20_000}))
        # Wait for "running": a compute job cancelled while it is still queued is a different path.
        await eventually(lambda: _running(w), what="the spin job to run")
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await eventually(lambda: _no_jobs(w), what="the job to go after $/cancelRequest")
        stats = await w.call("worker.stats")
        assert stats["cancelled"] == 1
        assert w.in_flight == 0


async def _running(w: Worker) -> bool:
    return [job["state"] for job in (await w.call("jobs.list"))["jobs"]] == ["running"]


async def _has_jobs(w: Worker) -> bool:
    return bool(await job_ids(w))


async def _no_jobs(w: Worker) -> bool:
    return not await job_ids(w)


@async_test
async def test_timeout_raises_and_cancels_the_job(any_bin):
    async with Worker.spawn(any_bin) as w:
        loop = asyncio.get_running_loop()
        start = loop.time()
        with pytest.raises(TimeoutError):
            await w.call("diagnostics.sleep", {"ms": 20_000}, timeout=0.2)
        assert loop.time() - start < 2
        await eventually(lambda: _no_jobs(w), what="the timed-out job to be cancelled")
        assert (await w.call("worker.stats"))["cancelled"] == 1


@async_test
async def test_leaving_a_stream_early_cancels_the_job(any_bin):
    async with Worker.spawn(any_bin) as w:
        stream = w.stream("diagnostics.fanout", {"children": 50, "ms": 10_000})
        async for event in stream:
            assert isinstance(event, (Item, Progress))
            break
        await stream.aclose()
        await eventually(lambda: _no_jobs(w), what="the abandoned stream's job to be cancelled")


@async_test
async def test_breaking_out_of_an_inline_stream_cancels_the_job(any_bin):
    # No explicit aclose(): asyncio's async-generator finalizer closes the dropped stream, which sends the cancel.
    async with Worker.spawn(any_bin) as w:
        async for event in w.stream("diagnostics.fanout", {"children": 50, "ms": 10_000}):
            assert isinstance(event, Item)
            break
        await eventually(lambda: _no_jobs(w), what="the dropped stream's job to be cancelled")


@async_test
async def test_stream_timeout(any_bin):
    async with Worker.spawn(any_bin) as w:
        with pytest.raises(TimeoutError):
            async for _ in w.stream("diagnostics.sleep", {"ms": 20_000}, timeout=0.2):
                pass
        await eventually(lambda: _no_jobs(w), what="the timed-out stream's job to be cancelled")


@async_test
async def test_stream_raises_the_final_error(any_bin):
    async with Worker.spawn(any_bin) as w:
        with pytest.raises(InvalidParams):
            async for _ in w.stream("diagnostics.fanout", {"children": -1, "ms": 0}):
                pass


@async_test
async def test_killed_worker_fails_in_flight_and_later_calls(any_bin):
    w = await Worker.spawn(any_bin)
    try:
        calls = [asyncio.ensure_future(w.call("diagnostics.sleep", {"ms": 20_000})) for _ in range(3)]
        await eventually(lambda: _has_jobs(w), what="jobs in flight")
        os.kill(w.pid, signal.SIGKILL)
        for call in calls:
            with pytest.raises(WorkerDied) as caught:
                await call
            assert caught.value.returncode == -signal.SIGKILL
            assert str(w.pid) in str(caught.value)
        assert not w.alive
        with pytest.raises(WorkerDied):
            await w.call("ping")
    finally:
        await w.close()
    assert not process_exists(w.pid)


@async_test
async def test_close_lets_in_flight_calls_finish_and_exits_cleanly(any_bin):
    w = await Worker.spawn(any_bin)
    pending = asyncio.ensure_future(w.call("diagnostics.sleep", {"ms": 300}))
    await eventually(lambda: _has_jobs(w), what="the job to start")
    assert await w.close() == 0
    assert (await pending)["slept"] == 300
    assert not process_exists(w.pid)
    with pytest.raises((WorkerClosed, WorkerDied)):
        await w.call("ping")


@async_test
async def test_terminate_answers_in_flight_jobs_with_server_cancelled(any_bin):
    w = await Worker.spawn(any_bin)
    pending = asyncio.ensure_future(w.call("diagnostics.sleep", {"ms": 20_000}))
    await eventually(lambda: _has_jobs(w), what="the job to start")
    await w.terminate()
    with pytest.raises(ServerCancelled) as caught:
        await pending
    assert caught.value.code == ErrorCode.SERVER_CANCELLED
    assert not process_exists(w.pid)


@async_test
async def test_no_child_processes_remain(any_bin):
    before = set(children())
    workers = [await Worker.spawn(any_bin) for _ in range(3)]
    assert len(set(children()) - before) == 3
    await asyncio.gather(*(w.call("ping") for w in workers))
    await asyncio.gather(*(w.close() for w in workers))
    assert set(children()) - before == set()


@async_test
async def test_stderr_is_kept(worker_bin, tmp_path):
    # The real worker logs at debug level when asked; the lines must be drained and kept, not block the pipe.
    lines: list[str] = []
    async with Worker.spawn(worker_bin, ["--log-level", "trace"], on_stderr=lines.append) as w:
        for _ in range(20):
            await w.call("ping")
        with pytest.raises(WorkerError):
            await w.call("image.info", {"source": {"path": str(tmp_path / "nope.png")}})
    assert lines, "expected the worker to log at trace level"
    assert w.stderr_tail(1) == lines[-1]


@async_test
async def test_cancelling_a_queued_compute_job_answers_at_once(worker_bin):
    async with Worker.spawn(worker_bin, ["--max-jobs", "1"]) as w:

        async def states(expected):
            return [job["state"] for job in (await w.call("jobs.list"))["jobs"]] == expected

        running = asyncio.ensure_future(w.call("diagnostics.spin", {"ms": 3000}))
        await eventually(lambda: states(["running"]), what="the first spin to hold the only slot")
        queued = asyncio.ensure_future(w.call("diagnostics.spin", {"ms": 3000}))
        await eventually(lambda: states(["running", "queued"]), what="the second spin to queue")
        queued.cancel()
        with pytest.raises(asyncio.CancelledError):
            await queued
        try:
            await eventually(lambda: states(["running"]), timeout=1.0, what="the cancelled queued job to go")
        finally:
            running.cancel()


@async_test
async def test_max_memory_becomes_the_workers_budget(worker_bin):
    # What the worker says it chose is the proof the flag arrived: its budget is the value less what it holds itself.
    for value, said in [("1.5G", "--max-memory 1.5 GiB"), (768 * 2**20, "--max-memory 768 MiB"), (" 60% ", "60% of ")]:
        async with Worker.spawn(worker_bin, initialize=True, max_memory=value) as w:
            limits = w.server_info["limits"]
            assert limits["maxMemoryOrigin"].startswith(said), limits
            assert 0 < limits["maxMemoryBytes"], limits
            if not isinstance(value, str) or "%" not in value:
                assert limits["maxMemoryBytes"] <= (value if isinstance(value, int) else 1.5 * 2**30), limits
            memory = (await w.call("worker.stats"))["memory"]
            assert memory["origin"] == limits["maxMemoryOrigin"], memory
    async with Worker.spawn(worker_bin, initialize=True, max_memory="off") as w:
        assert "maxMemoryBytes" not in w.server_info["limits"], w.server_info["limits"]


@async_test
async def test_a_job_over_the_memory_budget_is_over_memory_budget(worker_bin):
    photo = str(CORPUS / "photos" / "girl-1.jpg")
    # 1 MiB is less than the worker holds itself: the budget left for jobs is 0, which no decoding job fits.
    async with Worker.spawn(worker_bin, max_memory="1M") as w:
        with pytest.raises(OverMemoryBudget) as caught:
            await w.call("image.palette", {"source": {"path": photo}}, timeout=20)
        assert caught.value.code == ErrorCode.OVER_MEMORY_BUDGET == -32007
        assert caught.value.data["neededBytes"] > caught.value.data["budgetBytes"], caught.value.data
        assert await w.call("ping") == {}, "the refusal is the job's, not the worker's"


@pytest.mark.parametrize(
    "value, args, error",
    [(0, (), ValueError), (-1, (), ValueError), ("  ", (), ValueError), (True, (), TypeError), (1.5, (), TypeError),
     ("1G", ("--max-memory", "2G"), ValueError), ("1G", ("--max-memory=2G",), ValueError)],
)
def test_a_bad_max_memory_is_refused_before_spawning(fake_bin, value, args, error):
    before = set(children())
    with pytest.raises(error):
        Worker.spawn(fake_bin, args, max_memory=value)
    assert set(children()) - before == set()
