"""`SyncWorker`: the blocking facade for scripts."""

from __future__ import annotations

import threading
import time

import pytest
from conftest import process_exists

from photoworker_client import InvalidParams, Item, Result, SyncWorker


def test_sync_calls_streams_and_errors(worker_bin):
    with SyncWorker(worker_bin) as w:
        assert w.call("ping") == {}
        events = list(w.stream("diagnostics.fanout", {"children": 3, "ms": 0}))
        assert sorted(e.index for e in events if isinstance(e, Item)) == [0, 1, 2]
        assert events[-1] == Result({"children": 3})
        with pytest.raises(InvalidParams):
            w.call("diagnostics.sleep", {"ms": "soon"})
        with pytest.raises(TimeoutError):
            w.call("diagnostics.sleep", {"ms": 20_000}, timeout=0.1)
        pid = w.pid
    assert not process_exists(pid)


def test_sync_worker_is_usable_from_several_threads(worker_bin):
    with SyncWorker(worker_bin) as w:
        results: list = []
        threads = [
            threading.Thread(target=lambda i=i: results.append(w.call("diagnostics.sleep", {"ms": 100 + i})))
            for i in range(8)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(r["slept"] for r in results) == [100 + i for i in range(8)]


def test_breaking_out_of_a_sync_stream_cancels_the_job(worker_bin):
    with SyncWorker(worker_bin) as w:
        stream = w.stream("diagnostics.fanout", {"children": 30, "ms": 10_000})
        first = next(stream)
        assert isinstance(first, Item)
        stream.close()
        assert _drained(w), "the job should be cancelled once the stream is closed"


def _drained(w) -> bool:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if w.call("jobs.list")["jobs"] == []:
            return True
        time.sleep(0.01)
    return False
