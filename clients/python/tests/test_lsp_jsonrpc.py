"""A stock LSP JSON-RPC client (python-lsp-jsonrpc, Content-Length framing only) drives the worker unchanged.

Its `future.cancel()` sends `$/cancelRequest`, but the library then raises InvalidStateError when the worker's
-32800 reply arrives for the already-cancelled future (a bug on its side, fixed in pygls); so this test uses
calls and notifications, and cancels with the `jobs.cancel` method. protocol/README.md says what clients
should expect."""

from __future__ import annotations

import subprocess
import threading

import pytest
from conftest import CORPUS, process_exists

pylsp_jsonrpc = pytest.importorskip("pylsp_jsonrpc", reason="python-lsp-jsonrpc is installed by scripts/test-env.sh")
from pylsp_jsonrpc.endpoint import Endpoint  # noqa: E402
from pylsp_jsonrpc.exceptions import JsonRpcException  # noqa: E402
from pylsp_jsonrpc.streams import JsonRpcStreamReader, JsonRpcStreamWriter  # noqa: E402


@pytest.fixture
def lsp(worker_bin):
    proc = subprocess.Popen([worker_bin], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    progress: list = []
    writer = JsonRpcStreamWriter(proc.stdin)
    endpoint = Endpoint({"$/progress": progress.append}, writer.write)
    reader = JsonRpcStreamReader(proc.stdout)
    listener = threading.Thread(target=reader.listen, args=(endpoint.consume,), daemon=True)
    listener.start()
    yield proc, endpoint, progress
    endpoint.shutdown()
    if proc.poll() is None:
        proc.stdin.close()
        proc.wait(timeout=20)
    listener.join(timeout=5)


def test_requests_and_results(lsp):
    proc, endpoint, _ = lsp
    palette = endpoint.request("image.palette", {"source": {"path": str(CORPUS / "photos/girl-1.jpg")}, "count": 3})
    colors = palette.result(timeout=30)["colors"]
    assert 1 <= len(colors) <= 3 and all(c["hex"].startswith("#") for c in colors)
    assert endpoint.request("ping").result(timeout=10) == {}


def test_errors_arrive_as_exceptions(lsp):
    _, endpoint, _ = lsp
    with pytest.raises(JsonRpcException) as caught:
        endpoint.request("no.such.method").result(timeout=10)
    assert caught.value.code == -32601


def test_streamed_progress_reaches_the_notification_dispatcher(lsp):
    _, endpoint, progress = lsp
    assert endpoint.request("diagnostics.fanout", {"children": 4, "ms": 1}).result(timeout=10) == {"children": 4}
    items = [p for p in progress if p.get("kind") == "item"]
    assert sorted(p["index"] for p in items) == [0, 1, 2, 3]


def test_a_running_job_is_cancelled_and_answered_once(lsp):
    _, endpoint, _ = lsp
    job = endpoint.request("diagnostics.sleep", {"ms": 60_000})
    # The job is registered before the next message is read, so jobs.cancel finds it.
    jobs = endpoint.request("jobs.list").result(timeout=10)["jobs"]
    assert [j["method"] for j in jobs] == ["diagnostics.sleep"]
    assert endpoint.request("jobs.cancel", {"id": jobs[0]["id"]}).result(timeout=10)["cancelled"] is True
    with pytest.raises(JsonRpcException) as caught:
        job.result(timeout=10)
    assert caught.value.code == -32800


def test_the_worker_exits_when_the_client_closes(lsp):
    proc, endpoint, _ = lsp
    assert endpoint.request("ping").result(timeout=10) == {}
    proc.stdin.close()
    assert proc.wait(timeout=20) == 0
    assert not process_exists(proc.pid)
