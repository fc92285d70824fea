"""photoworker as an MCP server, driven by the official MCP Python SDK over stdio (issues #8 and #45): the
2025-06-18 session with roots, then both eras through the SDK's Client (mode "auto" and "2026-07-28" land on
2026-07-28, "legacy" on 2025-11-25), tasks, and the MCP Registry manifest.

Run: python3 -m pytest -q clients/mcp   (scripts/test.sh installs mcp and pytest in its venv; PHOTOWORKER_BIN overrides the binary)
"""
import asyncio
import json
import os
import pathlib
import shutil
import tempfile

import pytest

mcp = pytest.importorskip("mcp")
from mcp import ClientSession, StdioServerParameters, types  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from mcp.shared.exceptions import MCPDeprecationWarning  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = os.environ.get("PHOTOWORKER_BIN", str(ROOT / ".build/debug/photoworker"))
PHOTOS = ROOT / "corpus/photos"


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 120))


async def with_session(body, roots=None):
    """An SDK session whose client exposes `roots` (default: the corpus and the temporary folder):
    MCP sessions are confined to the client's roots."""
    folders = roots if roots is not None else [PHOTOS.parent, pathlib.Path(tempfile.gettempdir())]

    async def list_roots(context):
        return types.ListRootsResult(roots=[types.Root(uri=pathlib.Path(f).resolve().as_uri(), name=pathlib.Path(f).name)
                                            for f in folders])

    params = StdioServerParameters(command=BIN, args=[])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, list_roots_callback=list_roots) as session:
            init = await session.initialize()
            return await body(session, init)


def test_initialize_and_list_tools():
    async def body(session, init):
        assert init.server_info.name == "photoworker"
        assert init.capabilities.tools is not None
        tools = (await session.list_tools()).tools
        names = {t.name for t in tools}
        assert {"image_thumbnail", "image_palette", "image_sticker", "photos_process", "pack_export"} <= names
        thumb = next(t for t in tools if t.name == "image_thumbnail")
        assert thumb.input_schema["type"] == "object"
        assert "source" in thumb.input_schema["required"]
        assert thumb.input_schema["properties"]["source"]["$ref"].startswith("#/$defs/")
        await session.send_ping()
    run(with_session(body))


def test_call_each_kind_of_tool():
    out = tempfile.mkdtemp(prefix="pw-mcp-")
    photo = str(PHOTOS / "animal-2.jpg")

    async def body(session, init):
        info = await session.call_tool("image_info", {"source": {"path": photo}})
        assert not info.is_error
        assert info.structured_content["format"] == "jpeg"
        assert json.loads(info.content[0].text)["width"] == info.structured_content["width"]

        pal = await session.call_tool("image_palette", {"source": {"path": photo}, "count": 4})
        assert len(pal.structured_content["colors"]) == 4

        thumb = await session.call_tool("image_thumbnail", {"source": {"path": photo}, "size": 64,
                                                             "output": {"path": f"{out}/t.png"}})
        links = [c for c in thumb.content if c.type == "resource_link"]
        assert links and str(links[0].uri).endswith("/t.png")
        assert not any(c.type == "image" for c in thumb.content), "no inline image unless asked"

        inline = await session.call_tool("image_thumbnail", {"source": {"path": photo}, "size": 32,
                                                              "output": {"inline": True}})
        assert any(c.type == "image" and c.mime_type == "image/png" for c in inline.content)

        sticker = await session.call_tool("image_sticker", {"source": {"path": photo},
                                                            "output": {"path": f"{out}/s.png"}})
        assert not sticker.is_error and os.path.exists(f"{out}/s.png")

        missing = await session.call_tool("image_info", {"source": {"path": f"{out}/no-such.jpg"}})
        assert missing.is_error
        assert missing.structured_content["error"]["code"] == -32001
    run(with_session(body))


def test_batch_streams_progress():
    out = tempfile.mkdtemp(prefix="pw-mcp-")
    sources = [{"path": str(PHOTOS / n)} for n in ("girl-1.jpg", "girl-2.jpg", "girl-3.jpg")]
    seen = []

    async def progress(value, total, message):
        seen.append((value, total, message))

    async def body(session, init):
        r = await session.call_tool("photos_process", {"sources": sources, "output": {"dir": out}},
                                    progress_callback=progress)
        assert r.structured_content["completed"] == 3
        values = [v for v, _, _ in seen]
        assert values and values == sorted(values) and len(set(values)) == len(values), seen
        assert seen[-1][0] == 3 and seen[-1][1] == 3
    run(with_session(body))


def test_cancellation_sends_no_reply_and_worker_keeps_serving():
    async def body(session, init):
        task = asyncio.create_task(session.call_tool(
            "photos_process", {"sources": [{"path": str(PHOTOS / "animal-3.jpg")}] * 20,
                               "output": {"dir": tempfile.mkdtemp(prefix="pw-mcp-")}}))
        await asyncio.sleep(0.3)
        task.cancel()  # the SDK sends notifications/cancelled
        with pytest.raises(asyncio.CancelledError):
            await task
        # The worker is still healthy and answers the next call.
        r = await session.call_tool("cache_stats", {})
        assert not r.is_error
    run(with_session(body))


# Roots are a legacy feature on purpose here (2026-07-28 deprecates them; the modern tests confine with --allow-*):
# the SDK's deprecation warning is expected, and checked to come.
@pytest.mark.filterwarnings("error::mcp.shared.exceptions.MCPDeprecationWarning")
def test_roots_confine_the_session_and_follow_list_changed():
    inside = tempfile.mkdtemp(prefix="pw-mcp-roots-")
    shutil.copy(PHOTOS / "girl-1.jpg", f"{inside}/photo.jpg")
    folders = [inside]

    async def body(session, init):
        ok = await session.call_tool("image_thumbnail", {"source": {"path": f"{inside}/photo.jpg"}, "size": 32,
                                                          "output": {"path": f"{inside}/t.png"}})
        assert not ok.is_error and os.path.exists(f"{inside}/t.png")
        # Again onto its own output: an MCP session replaces nothing without "overwrite".
        again = await session.call_tool("image_thumbnail", {"source": {"path": f"{inside}/photo.jpg"}, "size": 32,
                                                             "output": {"path": f"{inside}/t.png"}})
        assert again.is_error and again.structured_content["error"]["data"]["rule"] == "exists"
        outside = await session.call_tool("image_info", {"source": {"path": str(PHOTOS / "girl-2.jpg")}})
        assert outside.is_error
        assert outside.structured_content["error"]["code"] == -32006
        assert outside.structured_content["error"]["data"]["rule"] == "outside-allowed-directories"
        stats = await session.call_tool("cache_stats", {})
        assert not stats.is_error
        # The client's roots change: it says so, the worker asks again.
        folders.append(str(PHOTOS))
        with pytest.warns(MCPDeprecationWarning, match="roots"):
            await session.send_roots_list_changed()
        for _ in range(100):
            now = await session.call_tool("image_info", {"source": {"path": str(PHOTOS / "girl-2.jpg")}})
            if not now.is_error:
                break
            await asyncio.sleep(0.05)
        assert not now.is_error, now
    run(with_session(body, roots=folders))


def test_urls_are_public_only_by_default():
    async def body(session, init):
        r = await session.call_tool("image_info", {"source": {"url": "http://169.254.169.254/latest/meta-data"}})
        assert r.is_error
        assert r.structured_content["error"]["data"]["rule"] == "non-public-address"
    run(with_session(body))


def test_batch_result_carries_every_item():
    """photos_process over two photos, one missing: the SDK validates the result against the tool's
    output schema; each item names its source, the good one's files come back as resource links."""
    out = tempfile.mkdtemp(prefix="pw-mcp-")
    missing = f"{out}/no-such.jpg"

    async def body(session, init):
        r = await session.call_tool("photos_process", {"sources": [{"path": str(PHOTOS / "girl-1.jpg")},
                                                                   {"path": missing}],
                                                       "output": {"dir": out}})
        assert not r.is_error
        items = r.structured_content["items"]
        assert [i["index"] for i in items] == [0, 1]
        assert items[1]["source"] == {"path": missing} and items[1]["error"]["code"] == -32001
        sticker = items[0]["result"]["sticker"]["path"]
        links = [str(c.uri) for c in r.content if c.type == "resource_link"]
        assert pathlib.Path(sticker).as_uri() in links, links
        assert any("no-such.jpg" in c.text for c in r.content if c.type == "text")
    run(with_session(body))


def test_tool_schemas_are_2020_12_and_annotated():
    from jsonschema import Draft202012Validator

    async def body(session, init):
        tools = (await session.list_tools()).tools
        for t in tools:
            Draft202012Validator.check_schema(t.input_schema)
            Draft202012Validator.check_schema(t.output_schema)
            assert t.annotations is not None and t.annotations.read_only_hint is not None, t.name
        by_name = {t.name: t for t in tools}
        assert by_name["image_info"].annotations.read_only_hint is True
        assert by_name["pack_export"].annotations.destructive_hint is True
        assert by_name["cache_clear"].annotations.open_world_hint is False
        with pytest.raises(Exception, match="Unknown tool: no_such_tool"):
            await session.call_tool("no_such_tool", {})
    run(with_session(body))


# --- Both eras through the SDK's Client: mode="auto" probes server/discover and stays modern, a pinned
# "2026-07-28" skips the probe, "legacy" runs the initialize handshake (2025-11-25).

from mcp import Client  # noqa: E402

ERAS = [("auto", "2026-07-28"), ("2026-07-28", "2026-07-28"), ("legacy", "2025-11-25")]


async def with_client(mode, body, args=None):
    out = tempfile.mkdtemp(prefix="pw-mcp-era-")
    argv = args if args is not None else ["--allow-read-dir", str(PHOTOS), "--allow-dir", out]
    async with Client(StdioServerParameters(command=BIN, args=argv), mode=mode) as client:
        return await body(client, out)


@pytest.mark.parametrize("mode,version", ERAS)
def test_each_era_lists_calls_with_progress_and_stays_confined(mode, version):
    seen = []

    async def progress(value, total, message):
        seen.append(value)

    async def body(client, out):
        assert client.protocol_version == version
        tools = (await client.list_tools()).tools
        assert "photos_process" in {t.name for t in tools}
        r = await client.call_tool("photos_process", {"sources": [{"path": str(PHOTOS / "girl-1.jpg")},
                                                                  {"path": str(PHOTOS / "girl-2.jpg")}],
                                                      "output": {"dir": out}}, progress_callback=progress)
        assert not r.is_error and r.structured_content["completed"] == 2
        assert seen and seen == sorted(seen) and seen[-1] == 2, seen
        outside = tempfile.mkdtemp(prefix="pw-mcp-outside-")
        shutil.copy(PHOTOS / "girl-3.jpg", f"{outside}/p.jpg")
        denied = await client.call_tool("image_info", {"source": {"path": f"{outside}/p.jpg"}})
        assert denied.is_error and denied.structured_content["error"]["code"] == -32006
    run(with_client(mode, body))


def test_auto_mode_discovers_a_modern_server():
    async def body(client, out):
        discovered = client.session.discover_result
        assert discovered is not None and "2026-07-28" in discovered.supported_versions
        assert discovered.ttl_ms > 0
        assert client.server_info.name == "photoworker" and client.server_info.icons
        assert discovered.meta["policy"]["origin"] == "allow-dir"
    run(with_client("auto", body))


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_cancellation_in_each_era(mode):
    async def body(client, out):
        task = asyncio.create_task(client.call_tool(
            "photos_process", {"sources": [{"path": str(PHOTOS / "animal-3.jpg")}] * 20,
                               "output": {"dir": out, "overwrite": True}}))
        await asyncio.sleep(0.3)
        task.cancel()  # the SDK sends notifications/cancelled
        with pytest.raises(asyncio.CancelledError):
            await task
        r = await client.call_tool("cache_stats", {})
        assert not r.is_error
    run(with_client(mode, body))


def test_legacy_task_started_polled_listed_cancelled_and_fetched():
    """2025-11-25 tasks. The SDK (2.3) has no task helpers, and its result validation for `tools/call` at 2025-11-25
    admits only a CallToolResult, where the specification answers a task-augmented call with a CreateTaskResult;
    so the requests go through its dispatcher unvalidated and the replies are checked with the SDK's own types.
    One task completes and its result is fetched; another is cancelled while it runs."""
    async def body(client, out):
        assert client.session.initialize_result.capabilities.tasks is not None
        send = client.session._dispatcher.send_raw_request

        async def start(sources):
            raw = await send("tools/call", {"name": "photos_process", "task": {"ttl": 60000},
                                            "arguments": {"sources": sources, "output": {"dir": out, "overwrite": True}}}, {})
            return types.CreateTaskResult.model_validate(raw)

        done = await start([{"path": str(PHOTOS / "girl-1.jpg")}])
        long = await start([{"path": str(PHOTOS / "animal-3.jpg")}] * 30)
        assert done.task.status == "working" and done.task.poll_interval
        cancelled = types.CancelTaskResult.model_validate(await send("tasks/cancel", {"taskId": long.task.task_id}, {}))
        assert cancelled.status == "cancelled"
        result = types.CallToolResult.model_validate(await send("tasks/result", {"taskId": done.task.task_id}, {}))
        assert result.structured_content["completed"] == 1
        got = types.GetTaskResult.model_validate(await send("tasks/get", {"taskId": done.task.task_id}, {}))
        assert got.status == "completed"
        listed = types.ListTasksResult.model_validate(await send("tasks/list", {}, {}))
        assert {(t.task_id, t.status) for t in listed.tasks} == {(done.task.task_id, "completed"),
                                                                 (long.task.task_id, "cancelled")}
    run(with_client("legacy", body))


def test_modern_task_through_the_sdk_connection():
    """The 2026-07-28 tasks extension on a connection the SDK opened in mode="auto". The SDK (2.3) has no client for
    the extension, so the requests carry their envelope by hand (declaring the extension) through its dispatcher."""
    async def body(client, out):
        assert client.protocol_version == "2026-07-28"
        assert "io.modelcontextprotocol/tasks" in client.session.discover_result.capabilities.extensions
        send = client.session._dispatcher.send_raw_request
        meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}}
        created = await send("tools/call", {"name": "pack_export", "_meta": meta, "arguments": {
            "stickers": [{"path": str(PHOTOS / "girl-1.jpg")}, {"path": str(PHOTOS / "girl-2.jpg")}], "cellSize": 64,
            "output": {"path": f"{out}/sheet.png"}, "filesDir": f"{out}/files"}}, {})
        assert created["resultType"] == "task", created
        deadline = asyncio.get_running_loop().time() + 60
        while True:
            got = await send("tasks/get", {"taskId": created["taskId"], "_meta": meta}, {})
            if got["status"] != "working" or asyncio.get_running_loop().time() > deadline:
                break
            await asyncio.sleep(got["pollIntervalMs"] / 1000)  # the server's suggested interval, not a sync
        assert got["status"] == "completed", got
        links = [c["uri"] for c in got["result"]["content"] if c["type"] == "resource_link"]
        assert len(links) == 3 and all(pathlib.Path(out).as_uri() in u for u in links), links
    run(with_client("auto", body))


def test_server_json_is_valid_for_the_registry():
    """/server.json (the MCP Registry manifest) against the registry's published schema, committed in
    clients/mcp/registry; its version is the worker's and every argument it offers is a flag the worker takes."""
    import subprocess
    from jsonschema import Draft7Validator

    schema = json.loads((ROOT / "clients/mcp/registry/server.schema.json").read_text())
    manifest = json.loads((ROOT / "server.json").read_text())
    assert manifest["$schema"] == schema["$id"]
    Draft7Validator.check_schema(schema)
    errors = sorted(Draft7Validator(schema, format_checker=Draft7Validator.FORMAT_CHECKER).iter_errors(manifest),
                    key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors]
    version = subprocess.run([BIN, "--version"], capture_output=True, text=True, check=True).stdout.strip()
    assert manifest["version"] == version and {p["version"] for p in manifest["packages"]} == {version}
    assert {p["registryType"] for p in manifest["packages"]} == {"pypi", "npm"}
    assert all(p["transport"] == {"type": "stdio"} for p in manifest["packages"])
    flags = subprocess.run([BIN, "serve", "--help"], capture_output=True, text=True, check=True).stdout
    for package in manifest["packages"]:
        for argument in package["packageArguments"]:
            assert argument["name"] in flags, argument["name"]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_every_tool_result_matches_its_output_schema(mode):
    """The SDK checks a tool's structured result against the output schema it listed: every tool, once."""
    photo = str(PHOTOS / "girl-2.jpg")

    async def body(client, out):
        # The session reads the photos folder and its own; the other sources are copied into its own.
        shutil.copy(ROOT / "corpus/subjects/pair.jpg", f"{out}/pair.jpg")
        shutil.copy(ROOT / "corpus/motion/cutout.gif", f"{out}/cutout.gif")
        calls = {
            "image_info": {"source": {"path": photo}},
            "image_convert": {"source": {"path": photo}, "output": {"path": f"{out}/c.webp", "format": "webp"}},
            "image_thumbnail": {"source": {"path": photo}, "size": 48, "output": {"inline": True}},
            "image_scale": {"source": {"path": photo}, "factor": 0.1, "output": {"path": f"{out}/s.jpg", "format": "jpeg"}},
            "image_palette": {"source": {"path": photo}, "count": 3},
            "image_effect": {"source": {"path": photo}, "effects": [{"blur": 2}, {"grayscale": True}],
                             "output": {"path": f"{out}/e.png"}},
            "image_sticker": {"source": {"path": photo}, "output": {"path": f"{out}/st.png"}},
            "image_subjects": {"source": {"path": f"{out}/pair.jpg"}, "max": 2},
            "image_animated_sticker": {"source": {"path": f"{out}/cutout.gif"}, "output": {"path": f"{out}/a.webp"},
                                       "size": 64},
            "photo_process": {"source": {"path": photo}, "output": {"dir": f"{out}/one"}},
            "photos_process": {"sources": [{"path": photo}], "output": {"dir": f"{out}/many"}},
            "pack_export": {"stickers": [{"path": photo}], "cellSize": 64, "output": {"path": f"{out}/sheet.png"}},
            "cache_stats": {},
            "cache_clear": {},
        }
        listed = {t.name for t in (await client.list_tools()).tools}
        assert listed == set(calls), listed ^ set(calls)
        for name, arguments in calls.items():
            r = await client.call_tool(name, arguments)  # raises if the result does not match the schema
            assert not r.is_error, (name, r.content[0].text)
            assert r.structured_content is not None
        # A tool's name from before every name was snake_case still calls it for one release; it is not listed
        # (asserted above), so the SDK has no output schema to check this result against.
        old = dict(calls["image_animated_sticker"], output={"path": f"{out}/b.webp"})
        r = await client.call_tool("image_animatedSticker", old)
        assert not r.is_error and r.structured_content["frames"] > 1, r
    run(with_client(mode, body))


def test_malformed_envelopes_and_unknown_versions_get_the_documented_errors():
    """On a connection the SDK opened at 2026-07-28, requests with a broken envelope, sent as written."""
    from mcp.shared.exceptions import MCPError

    async def body(client, out):
        send = client.session._dispatcher.send_raw_request
        cases = [
            ({"io.modelcontextprotocol/protocolVersion": "1900-01-01", "io.modelcontextprotocol/clientCapabilities": {}},
             -32022, None),
            ({"io.modelcontextprotocol/protocolVersion": "2026-07-28"}, -32602,
             "_meta.io.modelcontextprotocol/clientCapabilities"),
            ({"io.modelcontextprotocol/clientCapabilities": {}}, -32602, "_meta.io.modelcontextprotocol/protocolVersion"),
        ]
        for meta, code, path in cases:
            with pytest.raises(MCPError) as e:
                await send("tools/call", {"name": "cache_stats", "arguments": {}, "_meta": meta}, {})
            assert e.value.error.code == code, e.value.error
            if path:
                assert e.value.error.data["path"] == path
            else:
                data = types.UnsupportedProtocolVersionErrorData.model_validate(e.value.error.data)
                assert data.requested == "1900-01-01" and "2026-07-28" in data.supported
        # The connection still serves.
        assert not (await client.call_tool("cache_stats", {})).is_error
    run(with_client("2026-07-28", body))


def test_modern_task_cancelled_through_the_sdk_connection():
    async def body(client, out):
        send = client.session._dispatcher.send_raw_request
        meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}}
        created = await send("tools/call", {"name": "photos_process", "_meta": meta, "arguments": {
            "sources": [{"path": str(PHOTOS / "animal-3.jpg")}] * 30, "output": {"dir": out}}}, {})
        assert created["resultType"] == "task"
        ack = await send("tasks/cancel", {"taskId": created["taskId"], "_meta": meta}, {})
        assert ack["resultType"] == "complete"
        got = await send("tasks/get", {"taskId": created["taskId"], "_meta": meta}, {})
        assert got["status"] == "cancelled", got
    run(with_client("auto", body))


def test_subscriptions_are_acknowledged_empty_and_closed():
    """The worker's lists never change: a 2026-07-28 subscription is acknowledged with nothing honored and closed
    gracefully, so the SDK's iterator ends at once instead of waiting."""
    async def body(client, out):
        async with client.listen(tools_list_changed=True) as subscription:
            assert subscription.honored.tools_list_changed is None
            assert [event async for event in subscription] == []
    run(with_client("auto", body))
