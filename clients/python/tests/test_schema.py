"""protocol/openrpc.json: a well-formed OpenRPC document whose schemas are valid JSON Schema (draft 7, as OpenRPC
1.3 uses) and describe what the real binary actually sends and accepts.

The recorded session sends one request (or several) per method over a raw pipe, keeps every line that comes back,
and validates params, results, error `data` and `$/progress` params against the document.
"""

from __future__ import annotations

import base64
import json
import queue
import subprocess
import threading
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import CORPUS, REPO

DOC_PATH = REPO / "protocol" / "openrpc.json"
DOC = json.loads(DOC_PATH.read_text())
METHODS = {m["name"]: m for m in DOC["methods"]}
ERRORS_BY_CODE = {e["code"]: e for e in DOC["components"]["errors"].values()}
GENERIC_CODES = {-32700, -32600, -32601, -32602, -32603}
PHOTO = CORPUS / "photos" / "animal-2.jpg"
PNG = CORPUS / "photos" / "astronaut.png"


def validator(schema: Any) -> jsonschema.Draft7Validator:
    """A validator for a schema that may `$ref` "#/components/...": the document's components ride along at the root."""
    return jsonschema.Draft7Validator({"allOf": [schema], "components": DOC["components"]})


def params_schema(method: dict[str, Any]) -> dict[str, Any]:
    params = method["params"]
    return {
        "type": "object",
        "properties": {p["name"]: p["schema"] for p in params},
        "required": [p["name"] for p in params if p.get("required")],
        "additionalProperties": False,
    }


def every_schema():
    for name, schema in DOC["components"]["schemas"].items():
        yield f"components.schemas.{name}", schema
    for name, error in DOC["components"]["errors"].items():
        yield f"components.errors.{name}", error["x-data-schema"]
    for method in DOC["methods"]:
        for p in method["params"]:
            yield f"{method['name']}.params.{p['name']}", p["schema"]
        if "result" in method:
            yield f"{method['name']}.result", method["result"]["schema"]
        for kind, schema in method.get("x-streams", {}).items():
            if isinstance(schema, dict):
                yield f"{method['name']}.x-streams.{kind}", schema


# --- the document itself --------------------------------------------------------------------------------------------


def test_document_shape():
    assert DOC["openrpc"].startswith("1.")
    assert {"title", "version"} <= DOC["info"].keys()
    names = [m["name"] for m in DOC["methods"]]
    assert len(names) == len(set(names)), "duplicate method names"
    for method in DOC["methods"]:
        assert method["paramStructure"] == "by-name"
        assert all({"name", "schema"} <= p.keys() for p in method["params"]), method["name"]
        for ref in method.get("errors", []):
            assert ref["$ref"].removeprefix("#/components/errors/") in DOC["components"]["errors"], ref


@pytest.mark.parametrize("where,schema", list(every_schema()), ids=lambda v: v if isinstance(v, str) else "")
def test_every_schema_is_valid_json_schema(where, schema):
    jsonschema.Draft7Validator.check_schema(schema)
    # Every $ref resolves: validating anything walks all reachable refs lazily, so resolve them explicitly.
    resolver = validator(schema)._resolver
    for ref in _refs(schema):
        resolver.lookup(ref)


def _refs(node: Any):
    if isinstance(node, dict):
        if "$ref" in node:
            yield node["$ref"]
            yield from _refs(_follow(node["$ref"]))
        for key, value in node.items():
            if key != "$ref":
                yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def _follow(ref: str) -> Any:
    node: Any = DOC
    for part in ref.removeprefix("#/").split("/"):
        node = node[part]
    return node


def test_schemas_reject_what_the_worker_rejects():
    source = validator({"$ref": "#/components/schemas/Source"})
    assert source.is_valid({"path": "a.png"})
    assert not source.is_valid({"path": "a.png", "url": "http://x"})  # exactly one
    assert not source.is_valid({"url": "ftp://x"})
    output = validator({"$ref": "#/components/schemas/Output"})
    assert output.is_valid({"inline": True, "format": "jpeg", "quality": 80})
    assert not output.is_valid({"path": "a.png", "inline": True})
    assert not output.is_valid({"path": "a.jpg", "quality": 0})


# --- the document against the binary --------------------------------------------------------------------------------


class LineReader:
    """The lines of a stream, read on a thread, each waited for with a deadline: a reply that never comes fails the
    test saying what it waited for and what came instead of hanging it."""

    def __init__(self, stream):
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.seen: list[bytes] = []
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream) -> None:
        for line in stream:
            self.lines.put(line)
        self.lines.put(b"")  # end of stream

    def next(self, what: str, seconds: float = 60) -> bytes:
        """The next line, b"" at the end of the stream."""
        try:
            line = self.lines.get(timeout=seconds)
        except queue.Empty:
            raise AssertionError(f"no line in {seconds} s while waiting for {what}; the last lines before: "
                                 f"{self.seen[-10:]}")
        self.seen.append(line)
        return line

    def rest(self, what: str, seconds: float = 60) -> list[bytes]:
        """Every line until the end of the stream."""
        out = []
        while line := self.next(what, seconds):
            out.append(line)
        return out


class RawSession:
    """Sends lines to the binary and keeps every line that comes back (no client library in between)."""

    def __init__(self, binary: str):
        self.proc = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.reader = LineReader(self.proc.stdout)
        self.sent: dict[Any, dict[str, Any]] = {}

    def send(self, rid: Any, method: str, params: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            message["params"] = params
        self.sent[rid] = message
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")  # type: ignore[union-attr]
        self.proc.stdin.flush()  # type: ignore[union-attr]

    def read_reply(self, rid: Any, notifications: list[dict[str, Any]]) -> dict[str, Any]:
        while line := self.reader.next(f"the reply to {rid}"):
            message = json.loads(line)
            if "method" in message:
                notifications.append(message)
            elif message.get("id") == rid:
                return message
            else:
                raise AssertionError(f"unexpected line while waiting for {rid}: {line[:300]!r}")
        raise AssertionError(f"EOF while waiting for {rid}")

    def close(self) -> int:
        self.proc.stdin.close()  # type: ignore[union-attr]
        return self.proc.wait(timeout=30)


@pytest.fixture(scope="module")
def recorded(worker_bin, tmp_path_factory):
    """One session that calls every method with a result at least once; returns (request, reply, notifications)."""
    out = tmp_path_factory.mktemp("schema")
    photo = {"path": str(PHOTO)}
    png = {"path": str(PNG)}
    calls: list[tuple[str, dict[str, Any] | None]] = [
        ("initialize", {"protocolVersion": "1.0", "clientInfo": {"name": "test_schema"}}),
        ("ping", None),
        ("jobs.list", None),
        ("jobs.cancel", {"id": "not-in-flight"}),
        ("worker.stats", None),
        ("diagnostics.sleep", {"ms": 1}),
        ("diagnostics.spin", {"ms": 1}),
        ("diagnostics.hold", {"ms": 1, "bytes": 1024}),
        ("diagnostics.fanout", {"children": 3, "ms": 5}),
        ("image.info", {"source": photo}),
        ("image.info", {"source": {"data": base64.b64encode(PNG.read_bytes()).decode()}}),
        ("image.info", {"source": {"path": str(out / "missing.jpg")}}),
        ("image.info", {"source": {"path": str(CORPUS / "broken" / "pillow-truncated_jpeg.jpg")}}),
        ("image.convert", {"source": {"path": str(CORPUS / "broken" / "pillow-truncated_jpeg.jpg")}, "output": {"inline": True}}),
        ("image.convert", {"source": photo, "output": {"path": str(out / "c.png"), "compressionLevel": 1}}),
        ("image.thumbnail", {"source": photo, "size": 64, "fit": "cover", "output": {"inline": True, "format": "jpeg", "quality": 60}}),
        ("image.thumbnail", {"source": png, "width": 100, "output": {"path": str(out / "t.png")}}),
        ("image.scale", {"source": photo, "factor": 0.25, "output": {"path": str(out / "s.jpg")}}),
        ("image.palette", {"source": photo, "count": 5}),
        ("image.effect", {"source": png, "effects": [{"blur": 2}, {"grayscale": True}, {"opacity": 0.5}],
                          "output": {"path": str(out / "e.png")}}),
        ("image.sticker", {"source": photo, "outline": {"width": 4, "color": "#FFFFFF"}, "output": {"path": str(out / "st.png")},
                           "maskOutput": {"path": str(out / "m.png")}}),
        ("image.subjects", {"source": {"path": str(CORPUS / "subjects" / "pair.jpg")}, "max": 2,
                            "stickers": {"dir": str(out / "subjects")}}),
        ("image.animatedSticker", {"source": {"path": str(CORPUS / "motion" / "cutout.gif")}, "size": 64,
                                   "output": {"path": str(out / "a.webm")}, "target": "telegram",
                                   "maskOutput": {"path": str(out / "am.png")}}),
        ("photo.process", {"source": photo, "count": 4, "output": {"dir": str(out / "one")}, "name": "pic"}),
        ("photos.process", {"sources": [photo, {"path": str(out / "missing.jpg")}], "output": {"dir": str(out / "many"), "create": True},
                            "maxConcurrency": 2}),
        ("pack.export", {"stickers": [png, png, png], "columns": 2, "cellSize": 64, "background": "#FFFFFF",
                         "output": {"inline": True}, "filesDir": str(out / "files")}),
        ("cache.stats", None),
        ("cache.clear", None),
        ("tools/list", None),
        ("tools/call", {"name": "image_info", "arguments": {"source": photo}}),
        ("rpc.discover", None),
        ("no.such.method", None),
        ("diagnostics.sleep", {"ms": "soon"}),
        ("shutdown", None),
    ]
    return _record(worker_bin, calls)


@pytest.fixture(scope="module")
def recorded_mcp(worker_bin, tmp_path_factory):
    """An MCP session: MCP's initialize, then tools/list and tools/call (a result, an error result, progress)."""
    out = tmp_path_factory.mktemp("mcp")
    return _record(worker_bin, [
        ("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test_schema", "version": "1"}}),
        ("tools/list", None),
        ("tools/call", {"name": "image_info", "arguments": {"source": {"path": str(PHOTO)}}}),
        ("tools/call", {"name": "image.palette", "arguments": {"source": {"path": str(out / "missing.jpg")}}}),
        ("tools/call", {"name": "no_such_tool", "arguments": {}}),
        ("tools/call", {"name": "photos_process", "arguments": {"sources": [{"path": str(PHOTO)}, {"path": str(out / "missing.jpg")}],
                                                              "output": {"dir": str(out)}}, "_meta": {"progressToken": "tok"}}),
        ("shutdown", None),
    ])


def _record(worker_bin: str, calls: list[tuple[str, dict[str, Any] | None]]) -> list[tuple[Any, Any, Any]]:
    session = RawSession(worker_bin)
    pairs = []
    try:
        for index, (method, params) in enumerate(calls):
            notifications: list[dict[str, Any]] = []
            session.send(index, method, params)
            reply = session.read_reply(index, notifications)
            pairs.append((session.sent[index], reply, notifications))
    finally:
        status = session.close()
    assert status == 0
    return pairs


def test_every_advertised_method_is_documented(recorded):
    advertised = {m["name"] for m in recorded[0][1]["result"]["methods"]}
    assert advertised - METHODS.keys() == set(), "methods the worker offers but openrpc.json does not describe"
    undocumented_results = {name for name, m in METHODS.items() if "result" in m} - advertised
    assert undocumented_results == set(), "methods openrpc.json describes but the worker does not offer"


# The 2026-07-28 era's methods and MCP's tasks need a modern session's envelope or a running task: the official SDK
# drives them in clients/mcp/test_mcp_sdk.py and checks their results with its own types.
MCP_SESSION_METHODS = {"server/discover", "subscriptions/listen"} | {n for n in METHODS if n.startswith("tasks/")}


def test_the_sessions_cover_every_method_with_a_result(recorded, recorded_mcp):
    called = {request["method"] for request, _, _ in recorded + recorded_mcp}
    assert {name for name, m in METHODS.items() if "result" in m} - MCP_SESSION_METHODS <= called


@pytest.mark.parametrize("session", ["recorded", "recorded_mcp"])
def test_recorded_requests_and_replies_validate(session, request):
    problems: list[str] = []
    for sent, reply, notifications in request.getfixturevalue(session):
        method = METHODS.get(sent["method"])
        if method is not None:
            param_errors = _errors(params_schema(method), sent.get("params", {}), f"{sent['method']} params")
            if reply.get("error", {}).get("code") == -32602:
                # The schema must be at least as strict as the worker: what it refuses, the schema refuses too.
                if not param_errors:
                    problems.append(f"{sent['method']}: the worker refused params the schema accepts: {sent.get('params')}")
            else:
                problems += param_errors
        if "result" in reply:
            assert method is not None, sent
            problems += _errors(method["result"]["schema"], reply["result"], f"{sent['method']} result")
        else:
            code = reply["error"]["code"]
            declared = {_follow(ref["$ref"])["code"] for ref in (method or {}).get("errors", [])}
            if code not in declared | GENERIC_CODES:
                problems.append(f"{sent['method']}: error {code} is not among the method's documented errors")
            known = ERRORS_BY_CODE.get(code)
            if known is None:
                problems.append(f"{sent['method']}: error code {code} is not documented")
            else:
                problems += _errors(known["x-data-schema"], reply["error"].get("data"), f"{sent['method']} error {code} data")
        for note in notifications:
            if note["method"] == "notifications/progress":
                problems += _errors({"$ref": "#/components/schemas/MCPProgressParams"}, note["params"], f"{sent['method']} MCP progress")
                continue
            assert note["method"] == "$/progress", note
            where = f"{sent['method']} $/progress"
            problems += _errors({"$ref": "#/components/schemas/ProgressParams"}, note["params"], where)
            assert note["params"]["id"] == sent["id"]
            streams = (method or {}).get("x-streams", {})
            kind = note["params"]["kind"]
            if kind not in streams:
                problems.append(f"{where}: kind {kind!r} is not in the method's x-streams")
            elif kind == "item" and "result" in note["params"]:
                problems += _errors(streams["item"], note["params"]["result"], f"{where} item result")
    assert problems == []


def test_every_error_code_seen_is_documented_with_its_data(recorded):
    seen = {reply["error"]["code"] for _, reply, _ in recorded if "error" in reply}
    assert {-32601, -32602, -32001, -32002} <= seen


def _errors(schema: Any, instance: Any, where: str) -> list[str]:
    return [f"{where}: {'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator(schema).iter_errors(instance)]


def test_jobs_list_entries_validate(worker_bin):
    session = RawSession(worker_bin)
    try:
        session.send(1, "diagnostics.sleep", {"ms": 300})
        session.send(2, "jobs.list")
        reply = session.read_reply(2, [])
        session.read_reply(1, [])
    finally:
        session.close()
    assert len(reply["result"]["jobs"]) == 1
    assert _errors(METHODS["jobs.list"]["result"]["schema"], reply["result"], "jobs.list") == []


def test_rpc_discover_returns_this_document(worker_bin):
    session = RawSession(worker_bin)
    try:
        session.send(1, "rpc.discover")
        reply = session.read_reply(1, [])
    finally:
        session.close()
    if reply.get("error", {}).get("code") == -32601:
        pytest.xfail("rpc.discover is not implemented by the worker yet")
    assert reply["result"] == DOC


def test_protocol_level_error_data_validates(worker_bin):
    """Errors no single method owns: parse error, invalid request, overload, cancellation by client and server."""
    proc = subprocess.Popen([worker_bin, "--max-jobs", "1", "--max-queue", "1"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    lines = [
        '{"jsonrpc":"2.0","id":1,"method":"ping"',  # parse error
        '{"jsonrpc":"2.0","id":2}',  # no method
        '{"jsonrpc":"2.0","id":null,"method":"ping"}',  # id null
        '[]',  # empty batch
        '{"jsonrpc":"2.0","id":3,"method":"diagnostics.spin","params":{"ms":20000}}',
        '{"jsonrpc":"2.0","id":4,"method":"diagnostics.spin","params":{"ms":20000}}',
        '{"jsonrpc":"2.0","id":5,"method":"diagnostics.spin","params":{"ms":20000}}',  # queue full
        '{"jsonrpc":"2.0","id":3,"method":"ping"}',  # id in flight
        '{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":3}}',  # the running job; 4 starts next
    ]
    proc.stdin.write("".join(line + "\n" for line in lines).encode())  # type: ignore[union-attr]
    proc.stdin.flush()  # type: ignore[union-attr]
    reader = LineReader(proc.stdout)
    replies = [json.loads(reader.next(f"reply {n + 1} of 7")) for n in range(7)]
    proc.terminate()  # job 4 gets -32802
    replies += [json.loads(line) for line in reader.rest("the worker to end")]
    assert proc.wait(timeout=10) == 0
    assert all("error" in r for r in replies), replies
    codes = sorted(r["error"]["code"] for r in replies)
    assert codes == [-32802, -32800, -32700, -32600, -32600, -32600, -32600, -32000], replies
    problems = []
    for reply in replies:
        error = reply["error"]
        problems += _errors(ERRORS_BY_CODE[error["code"]]["x-data-schema"], error.get("data"), f"error {error['code']}")
    assert problems == []
