"""`SyncWorker`: the blocking facade for scripts."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

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


def test_sync_worker_passes_max_memory(worker_bin):
    with SyncWorker(worker_bin, max_memory=2**30) as w:
        memory = w.call("worker.stats")["memory"]
        assert memory["origin"].startswith("--max-memory 1 GiB"), memory
        assert 0 < memory["budgetBytes"] <= 2**30, memory
    with pytest.raises(TypeError):
        SyncWorker(worker_bin, max_memory=1.5)


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


CTRL_C_SCRIPT = r"""
import os, signal, sys, threading, time
sys.path.insert(0, sys.argv[2])
from photoworker_client.sync import SyncWorker

with SyncWorker(sys.argv[1]) as w:
    def press_ctrl_c_once_the_job_runs():
        while not w.call("jobs.list")["jobs"]:
            time.sleep(0.01)
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=press_ctrl_c_once_the_job_runs, daemon=True).start()
    try:
        w.call("diagnostics.spin", {"ms": 20000})
        print("not interrupted")
    except KeyboardInterrupt:
        deadline = time.monotonic() + 5
        while w.call("jobs.list")["jobs"] and time.monotonic() < deadline:
            time.sleep(0.01)
        print("cancelled", w.call("worker.stats")["cancelled"], len(w.call("jobs.list")["jobs"]))
"""


def test_ctrl_c_in_a_blocking_call_cancels_the_job(worker_bin, tmp_path):
    script = tmp_path / "ctrl_c.py"
    script.write_text(CTRL_C_SCRIPT)
    package_dir = str(Path(__file__).resolve().parents[1])
    # The SIGINT goes to the script's pid alone, so the worker never sees it: what is tested is the client's
    # reaction to KeyboardInterrupt (cancel the job, keep the worker usable).
    done = subprocess.run([sys.executable, str(script), worker_bin, package_dir], capture_output=True, text=True, timeout=30)
    assert done.stdout.strip() == "cancelled 1 0", done.stderr


def test_the_phone_and_web_formats_go_through_the_client(worker_bin, tmp_path):
    formats = Path(__file__).resolve().parents[3] / "corpus" / "formats"
    with SyncWorker(worker_bin) as w:
        for name, kind in [("girl.heic", "heif"), ("girl.avif", "avif"), ("girl-lossy.webp", "webp"), ("girl.gif", "gif")]:
            info = w.call("image.info", {"source": {"path": str(formats / name)}})
            assert info["format"] == kind, info
            palette = w.call("image.palette", {"source": {"path": str(formats / name)}, "count": 3})
            assert 1 <= len(palette["colors"]) <= 3, palette
        out = tmp_path / "sticker.webp"
        r = w.call("image.convert", {"source": {"path": str(formats / "coffee-alpha.heic")}, "output": {"path": str(out)}})
        assert r["output"]["format"] == "webp" and out.read_bytes()[8:12] == b"WEBP", r
