"""`Worker`: one photoworker child process driven over its stdio with JSON-RPC 2.0: one message per line
(NDJSON, the default) or with LSP's `Content-Length` headers (`framing="content-length"`)."""

from __future__ import annotations

import asyncio
import collections
import itertools
import json
import logging
import os
import shutil
import signal
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Callable, Generator, Sequence

from ._bundled import bundled_executable
from .errors import ProtocolError, WorkerClosed, WorkerDied, WorkerError
from .events import Event, Item, Progress, Result, event_from_progress

log = logging.getLogger("photoworker_client")

ProgressCallback = Callable[[Progress | Item], None]

#: Default cap on one incoming line (an inline base64 image can be large; the worker caps its own input).
DEFAULT_MAX_LINE_BYTES = 256 * 1024 * 1024

#: The framings the worker speaks; it detects which one a client uses and answers in it.
FRAMINGS = ("ndjson", "content-length")

_FINAL = object()  # queued after a stream's last notification, when its final reply has arrived


def default_executable() -> str:
    """`$PHOTOWORKER_BIN`, else the worker bundled in the `photoworker` wheel, else `photoworker` from PATH."""
    env = os.environ.get("PHOTOWORKER_BIN")
    if env:
        return env
    bundled = bundled_executable()
    if bundled:
        return bundled
    found = shutil.which("photoworker")
    if found:
        return found
    raise FileNotFoundError(
        "photoworker executable not found: pass executable=, set PHOTOWORKER_BIN, or install the photoworker wheel"
    )


def max_memory_args(max_memory: str | int | None, args: Sequence[str] = ()) -> list[str]:
    """The worker's flags for a `max_memory` option: `["--max-memory", VALUE]`, or `[]` for None.

    An int is bytes; a str goes to the worker as written, which reads a size in binary units ("1.5G", "768M"), a
    share of the smaller of the machine's memory and its cgroup's limit ("60%"), or "off". Raises TypeError for
    another type and ValueError for an int below 1, a blank str, or `args` that already name `--max-memory` (two
    values for one flag, of which the worker would silently keep the last). A str the worker cannot read ends it
    at start, with the reason on its stderr (`WorkerDied.stderr_tail`).
    """
    if max_memory is None:
        return []
    if isinstance(max_memory, bool) or not isinstance(max_memory, (int, str)):
        raise TypeError(f"max_memory must be a str or an int (bytes), not {type(max_memory).__name__}")
    if isinstance(max_memory, int) and max_memory < 1:
        raise ValueError(f"max_memory must be at least 1 byte, not {max_memory}")
    if isinstance(max_memory, str) and not max_memory.strip():
        raise ValueError("max_memory must not be blank")
    if names_flag(args, "--max-memory"):
        raise ValueError("pass max_memory= or --max-memory in args, not both")
    return ["--max-memory", str(max_memory).strip()]


def names_flag(args: Sequence[str], flag: str) -> bool:
    """True if `args` hold `flag`, as `flag VALUE` or `flag=VALUE`."""
    return any(arg == flag or arg.startswith(flag + "=") for arg in map(str, args))


@dataclass(eq=False)
class _Call:
    id: int
    method: str
    future: asyncio.Future[Any]
    events: asyncio.Queue[Any] | None = None  # set for streams
    on_progress: ProgressCallback | None = None
    notified: int = field(default=0)


class _SpawnContext:
    """What `Worker.spawn` returns: `await` it for a Worker, or use it with `async with` to close it on exit."""

    def __init__(self, opener: Callable[[], Any]):
        self._opener = opener
        self._worker: Worker | None = None

    def __await__(self) -> Generator[Any, None, Worker]:
        return self._opener().__await__()

    async def __aenter__(self) -> Worker:
        self._worker = await self._opener()
        return self._worker

    async def __aexit__(self, *exc_info: Any) -> None:
        if self._worker is not None:
            await self._worker.close()


class Worker:
    """A client for one worker process.

    Calls may be issued concurrently from any number of tasks; replies are matched by id, in whatever order the
    worker finishes them. Cancelling the task awaiting `call` (or a timeout) sends `$/cancelRequest` for it.

    - Important: if the process dies, every in-flight call fails with `WorkerDied` and so does every later call;
      a dead Worker is never restarted (that is `WorkerPool`'s job).
    - The worker's stderr is drained continuously into a bounded buffer (`stderr_tail()`), so a chatty worker
      can never block on a full pipe; `on_stderr` sees every line as it arrives.
    - If this process ends without `close()`, the worker sees EOF on stdin, finishes its jobs and exits 0.
    """

    def __init__(
        self,
        process: asyncio.subprocess.Process,
        *,
        stderr_lines: int = 2000,
        on_stderr: Callable[[str], None] | None = None,
        on_notification: Callable[[str, Any], None] | None = None,
        framing: str = "ndjson",
        max_message_bytes: int = DEFAULT_MAX_LINE_BYTES,
    ):
        assert process.stdin and process.stdout and process.stderr, "spawn with stdin, stdout and stderr pipes"
        if framing not in FRAMINGS:
            raise ValueError(f"framing must be one of {FRAMINGS}, not {framing!r}")
        self.framing = framing
        """How messages are delimited: "ndjson" (one per line) or "content-length" (LSP's base protocol)."""
        self._max_message_bytes = max_message_bytes
        self._process = process
        self._stdin = process.stdin
        self._ids = itertools.count(1)
        self._pending: dict[Any, _Call] = {}
        # Calls given up on (cancelled, timed out): their late replies are expected and dropped quietly.
        self._abandoned: collections.OrderedDict[Any, None] = collections.OrderedDict()
        self._stderr: collections.deque[str] = collections.deque(maxlen=stderr_lines)
        self._on_stderr = on_stderr
        self._on_notification = on_notification
        self._drain_lock = asyncio.Lock()
        self._dead: WorkerDied | None = None
        self._closing = False
        self._close_task: asyncio.Task[None] | None = None
        self._exited = asyncio.get_running_loop().create_future()
        self.protocol_errors: list[str] = []
        """Lines from the worker that were not valid protocol (kept for debugging; each is also logged)."""
        self.server_info: dict[str, Any] | None = None
        """The `initialize` result, once `initialize()` has been called."""
        self._stderr_task = asyncio.ensure_future(self._drain_stderr(process.stderr))
        self._reader_task = asyncio.ensure_future(self._read(process.stdout))

    # --- construction ---------------------------------------------------------------------------------------------

    @classmethod
    def spawn(
        cls,
        executable: str | os.PathLike[str] | None = None,
        args: Sequence[str] = (),
        *,
        env: dict[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        initialize: bool = False,
        new_process_group: bool = False,
        max_memory: str | int | None = None,
        **options: Any,
    ) -> _SpawnContext:
        """Starts a worker: `async with Worker.spawn(executable=...) as w:` or `w = await Worker.spawn(...)`.

        `executable` defaults to `default_executable()`. With `initialize=True` the worker's `initialize` result
        is fetched into `server_info` before the Worker is handed out. Other keyword options go to `Worker()`
        (`framing="content-length"` speaks LSP's framing instead of one message per line).

        `new_process_group=True` starts the worker in a session and process group of its own, so a host that
        manages processes by group (Ray, a shell's job control) can end it as one unit, and signals meant for this
        process's group (Ctrl-C in a terminal) do not reach it. Should this process die without closing it, even by
        SIGKILL, the worker notices within half a second and exits (its parent watch).

        `max_memory` is the memory the whole worker may use (`--max-memory`): an int is bytes, a str is "1.5G",
        "768M" (binary units), "60%" (of the smaller of the machine's memory and its cgroup's limit) or "off".
        None (the default) leaves it to the worker: 90% of that limit, which is right for one worker in a container
        with a memory limit; set it when several workers share a machine (each one its share). Jobs wait until
        their estimated peak fits; one that never could is refused with `OverMemoryBudget`. Raises TypeError or
        ValueError for a value `max_memory_args` refuses, before spawning.
        """

        framing = options.get("framing", "ndjson")
        if framing not in FRAMINGS:  # refused before spawning: a bad option leaves no process behind
            raise ValueError(f"framing must be one of {FRAMINGS}, not {framing!r}")
        args = [*args, *max_memory_args(max_memory, args)]

        async def open_worker() -> Worker:
            process = await asyncio.create_subprocess_exec(
                os.fspath(executable) if executable is not None else default_executable(),
                *args,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=env,
                cwd=cwd,
                limit=max_line_bytes,
                start_new_session=new_process_group,
            )
            worker = cls(process, max_message_bytes=max_line_bytes, **options)
            if initialize:
                try:
                    await worker.initialize()
                except BaseException:
                    await worker.close(timeout=2)
                    raise
            return worker

        return _SpawnContext(open_worker)

    # --- state ----------------------------------------------------------------------------------------------------

    @property
    def pid(self) -> int:
        return self._process.pid

    @property
    def returncode(self) -> int | None:
        """The exit status once the process has ended (negative: ended by that signal)."""
        return self._process.returncode

    @property
    def alive(self) -> bool:
        """True until the worker's stdout ends (it exited or closed its end of the pipe)."""
        return not self._exited.done()

    @property
    def in_flight(self) -> int:
        """Calls sent and not yet answered."""
        return len(self._pending)

    def stderr_tail(self, lines: int | None = None) -> str:
        """The last `lines` (default: all kept) lines the worker wrote to stderr."""
        kept = list(self._stderr)
        return "\n".join(kept if lines is None else kept[-lines:])

    async def wait_exit(self) -> int | None:
        """Waits until the worker has gone (stdout closed, process reaped); returns its exit status."""
        await asyncio.shield(self._exited)
        return self._process.returncode

    # --- calls ----------------------------------------------------------------------------------------------------

    async def call(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        timeout: float | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> Any:
        """Sends a request and returns its result.

        Raises the `WorkerError` subclass for an error reply, `WorkerDied` if the process ends first, and
        `TimeoutError` after `timeout` seconds. A timeout or a cancellation of the awaiting task sends
        `$/cancelRequest` so the worker stops the job. `on_progress` receives the `$/progress` events.
        """
        call = await self._start(method, params, on_progress=on_progress)
        try:
            return await asyncio.wait_for(call.future, timeout)
        except asyncio.TimeoutError:  # the builtin TimeoutError from 3.11 on
            self._abandon(call)
            raise TimeoutError(f"{method} (id {call.id}) timed out after {timeout} s; the job was cancelled") from None
        except asyncio.CancelledError:
            self._abandon(call)
            raise

    async def stream(
        self, method: str, params: dict[str, Any] | None = None, *, timeout: float | None = None
    ) -> AsyncIterator[Event]:
        """Sends a request and yields its `Progress` and `Item` events as they arrive, then one `Result`.

        An error reply is raised after the events that preceded it. Leaving the loop early (break, an exception,
        task cancellation) or exceeding `timeout` (seconds, for the whole stream) cancels the job.
        """
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        call = await self._start(method, params, events=asyncio.Queue())
        assert call.events is not None
        try:
            while True:
                remaining = None if deadline is None else max(0.0, deadline - loop.time())
                try:
                    event = await asyncio.wait_for(call.events.get(), remaining)
                except asyncio.TimeoutError:
                    raise TimeoutError(f"{method} (id {call.id}) timed out after {timeout} s; the job was cancelled") from None
                if event is _FINAL:
                    break
                yield event
            yield Result(call.future.result())  # raises the final error, if that is what came
        finally:
            # Runs on break / aclose / cancellation too: a stream left early must stop its job.
            self._abandon(call)

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        """Sends a notification (no reply)."""
        await self._write(self._encode(None, method, params))

    async def cancel(self, request_id: Any) -> None:
        """Sends `$/cancelRequest` for an id (normally implicit: cancel the awaiting task instead)."""
        await self.notify("$/cancelRequest", {"id": request_id})

    async def initialize(self, timeout: float | None = 30) -> dict[str, Any]:
        """Calls `initialize` and keeps the result in `server_info` (serverInfo, protocolVersion, methods, limits)."""
        self.server_info = await self.call("initialize", {}, timeout=timeout)
        return self.server_info

    async def ping(self, timeout: float | None = 10) -> None:
        await self.call("ping", timeout=timeout)

    # --- shutdown -------------------------------------------------------------------------------------------------

    async def close(self, timeout: float = 10.0) -> int | None:
        """Ends the worker gracefully: `shutdown` (in-flight calls finish), `exit`, EOF; returns the exit status.

        If it does not exit within `timeout` seconds it is sent SIGTERM, then SIGKILL. Idempotent; concurrent
        callers share one close.
        """
        if self._close_task is None:
            self._close_task = asyncio.ensure_future(self._close(timeout))
        await asyncio.shield(self._close_task)
        return self._process.returncode

    async def _close(self, timeout: float) -> None:
        self._closing = True
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        if self.alive:
            try:
                call = await self._start("shutdown", None, closing=True)
                await asyncio.wait_for(call.future, timeout)
                await self._write(self._encode(None, "exit", None))
            except (WorkerError, WorkerDied, asyncio.TimeoutError, OSError) as error:
                log.debug("worker %s: graceful shutdown failed: %r", self.pid, error)
        self._close_stdin()
        await self._reap(max(0.1, deadline - loop.time()))
        await self._finish()

    async def terminate(self, timeout: float = 5.0) -> int | None:
        """SIGTERM: the worker answers every job with -32802 and exits; SIGKILL after `timeout` seconds."""
        self._closing = True
        self._signal(signal.SIGTERM)
        await self._reap(timeout)
        await self._finish()
        return self._process.returncode

    async def kill(self) -> int | None:
        """SIGKILL, no questions asked; in-flight calls fail with `WorkerDied`."""
        self._closing = True
        self._signal(signal.SIGKILL)
        await self._finish()
        return self._process.returncode

    async def _reap(self, timeout: float) -> None:
        try:
            await asyncio.wait_for(self._process.wait(), timeout)
            return
        except asyncio.TimeoutError:
            log.warning("worker %s did not exit within %.1f s; sending SIGTERM", self.pid, timeout)
        self._signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(self._process.wait(), 2.0)
        except asyncio.TimeoutError:
            log.warning("worker %s ignored SIGTERM; sending SIGKILL", self.pid)
            self._signal(signal.SIGKILL)
            await self._process.wait()

    async def _finish(self) -> None:
        await self._process.wait()
        await asyncio.gather(self._reader_task, self._stderr_task, return_exceptions=True)

    def _signal(self, signum: int) -> None:
        if self._process.returncode is None:
            try:
                self._process.send_signal(signum)
            except ProcessLookupError:
                pass

    def _close_stdin(self) -> None:
        if not self._stdin.is_closing():
            self._stdin.close()

    async def __aenter__(self) -> Worker:
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.close()

    # --- internals ------------------------------------------------------------------------------------------------

    async def _start(
        self,
        method: str,
        params: dict[str, Any] | None,
        *,
        events: asyncio.Queue[Any] | None = None,
        on_progress: ProgressCallback | None = None,
        closing: bool = False,
    ) -> _Call:
        if params is not None and not isinstance(params, dict):
            raise TypeError("params must be a dict (the protocol passes params by name) or None")
        if self._dead is not None:
            raise self._died()
        if self._closing and not closing:
            raise WorkerClosed(f"worker {self.pid} is closed")
        call = _Call(next(self._ids), method, asyncio.get_running_loop().create_future(), events, on_progress)
        # Registered before it is written, with no await in between, so that the reader's "worker died" sweep
        # can never miss it.
        self._pending[call.id] = call
        line = self._encode(call.id, method, params)
        try:
            await self._write(line)
        except BaseException:
            # Cancelled while waiting for the pipe to drain: the line may already be on its way.
            self._abandon(call)
            raise
        return call

    async def _write(self, line: bytes) -> None:
        if self._dead is not None:
            raise self._died()
        try:
            self._stdin.write(line)  # one write per message: messages never interleave
            async with self._drain_lock:
                await self._stdin.drain()
        except (BrokenPipeError, ConnectionResetError) as error:
            await self.wait_exit()
            raise self._died() from error

    def _died(self) -> WorkerDied:
        """A fresh `WorkerDied` per failed call, so tracebacks of different calls never pile onto one object."""
        assert self._dead is not None
        dead = self._dead
        return WorkerDied(str(dead.args[0]), returncode=dead.returncode, stderr_tail=dead.stderr_tail, pid=dead.pid)

    def _abandon(self, call: _Call) -> None:
        """Forgets a call that has no final reply yet and asks the worker to cancel it (fire and forget)."""
        if not call.future.done():
            call.future.cancel()
        elif not call.future.cancelled():
            call.future.exception()  # an error nobody will read now; mark it retrieved so asyncio stays quiet
        if self._pending.pop(call.id, None) is None:
            return
        self._abandoned[call.id] = None
        while len(self._abandoned) > 4096:
            self._abandoned.popitem(last=False)
        if self._dead is None and not self._stdin.is_closing():
            try:
                self._stdin.write(self._encode(None, "$/cancelRequest", {"id": call.id}))
            except (OSError, RuntimeError) as error:
                log.debug("worker %s: could not send $/cancelRequest: %r", self.pid, error)

    def _encode(self, rid: int | None, method: str, params: dict[str, Any] | None) -> bytes:
        """One message's bytes on the wire, in this worker's framing."""
        body = _message(rid, method, params)
        if self.framing == "ndjson":
            return body
        body = body.rstrip(b"\n")
        return b"Content-Length: %d\r\n\r\n" % len(body) + body

    async def _read(self, stdout: asyncio.StreamReader) -> None:
        try:
            while True:
                if self.framing == "content-length":
                    body = await self._read_content_length(stdout)
                    if body is None:
                        break
                    self._dispatch_line(body)
                    continue
                try:
                    line = await stdout.readline()
                except ValueError as error:  # over the line limit: asyncio has skipped it; go on with the next
                    self._protocol_error(f"line over the limit: {error}")
                    continue
                if not line:
                    break
                self._dispatch_line(line)
        except Exception as error:  # never let the reader die silently; treat it as the end of the worker
            log.exception("worker %s: reader failed", self.pid)
            self._protocol_error(f"reader failed: {error!r}")
        finally:
            await self._on_exit()

    async def _read_content_length(self, stdout: asyncio.StreamReader) -> bytes | None:
        """The next body framed with LSP's headers; None at the end of the stream."""
        length: int | None = None
        while True:
            line = await stdout.readline()
            if not line:
                return None
            line = line.rstrip(b"\r\n")
            if not line:
                if length is not None:
                    break
                continue  # blank lines between messages
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                try:
                    length = int(value.strip())
                except ValueError:
                    self._protocol_error(f"bad Content-Length header: {line[:200]!r}")
        if length > self._max_message_bytes:  # skip it without holding it
            self._protocol_error(f"message of {length} bytes over the limit of {self._max_message_bytes}")
            while length > 0:
                chunk = await stdout.read(min(length, 1 << 20))
                if not chunk:
                    return None
                length -= len(chunk)
            return b""
        try:
            return await stdout.readexactly(length)
        except asyncio.IncompleteReadError:
            return None

    async def _on_exit(self) -> None:
        try:
            returncode = await asyncio.wait_for(self._process.wait(), 5.0)
        except asyncio.TimeoutError:  # stdout closed but the process lingers: kill it, it is useless
            self._signal(signal.SIGKILL)
            returncode = await self._process.wait()
        try:  # let stderr drain so the death message carries the worker's last words
            await asyncio.wait_for(asyncio.shield(self._stderr_task), 1.0)
        except asyncio.TimeoutError:
            pass
        how = f"killed by signal {-returncode}" if returncode is not None and returncode < 0 else f"exited with status {returncode}"
        self._dead = WorkerDied(
            f"worker {self.pid} {how}" + (" (closed by the client)" if self._closing else ""),
            returncode=returncode,
            stderr_tail=self.stderr_tail(20),
            pid=self.pid,
        )
        pending, self._pending = self._pending, {}
        for call in pending.values():
            self._settle(call, self._died())
        if not self._exited.done():
            self._exited.set_result(returncode)

    async def _drain_stderr(self, stderr: asyncio.StreamReader) -> None:
        partial = b""
        while True:
            chunk = await stderr.read(65536)
            if not chunk:
                break
            lines = (partial + chunk).split(b"\n")
            partial = lines.pop()
            for raw in lines:
                self._stderr_line(raw)
        if partial:
            self._stderr_line(partial)

    def _stderr_line(self, raw: bytes) -> None:
        text = raw.decode("utf-8", "replace").rstrip("\r")
        self._stderr.append(text)
        if self._on_stderr is not None:
            try:
                self._on_stderr(text)
            except Exception:
                log.exception("on_stderr callback failed")

    def _dispatch_line(self, line: bytes) -> None:
        line = line.strip()
        if not line:
            return
        try:
            message = json.loads(line)
        except ValueError:
            self._protocol_error(f"not JSON: {line[:200]!r}")
            return
        for item in message if isinstance(message, list) else [message]:
            if isinstance(item, dict):
                self._dispatch(item)
            else:
                self._protocol_error(f"not a JSON-RPC message: {item!r:.200}")

    def _dispatch(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if isinstance(method, str):
            params = message.get("params")
            if method == "$/progress" and isinstance(params, dict):
                self._progress(params)
            elif self._on_notification is not None:
                try:
                    self._on_notification(method, params)
                except Exception:
                    log.exception("on_notification callback failed")
            return
        rid = message.get("id")
        call = self._pending.pop(rid, None) if isinstance(rid, (int, str)) else None
        if call is None:
            if rid in self._abandoned:
                del self._abandoned[rid]
            elif "error" in message:
                # id null: the worker could not tell which request this was (parse error on our side).
                self._protocol_error(f"error reply for no pending request: {message!r:.300}")
            else:
                self._protocol_error(f"reply for an unknown id: {message!r:.300}")
            return
        if "error" in message:
            self._settle(call, WorkerError.from_wire(message["error"], method=call.method))
        elif "result" in message:
            self._settle(call, None, message["result"])
        else:
            self._settle(call, ProtocolError(f"reply without result or error: {message!r:.300}"))

    def _progress(self, params: dict[str, Any]) -> None:
        call = self._pending.get(params.get("id"))  # type: ignore[arg-type]
        if call is None:
            return  # a late notification for an abandoned call
        event = event_from_progress(params, call.method)
        if event is None:
            return
        call.notified += 1
        if call.events is not None:
            call.events.put_nowait(event)
        if call.on_progress is not None:
            try:
                call.on_progress(event)
            except Exception:
                log.exception("on_progress callback failed")

    def _settle(self, call: _Call, error: BaseException | None, result: Any = None) -> None:
        if not call.future.done():
            if error is not None:
                call.future.set_exception(error)
            else:
                call.future.set_result(result)
        if call.events is not None:
            call.events.put_nowait(_FINAL)

    def _protocol_error(self, text: str) -> None:
        log.warning("worker %s: %s", self.pid, text)
        self.protocol_errors.append(text)
        del self.protocol_errors[:-100]


def _message(rid: int | None, method: str, params: dict[str, Any] | None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if rid is not None:
        message["id"] = rid
    if params is not None:
        message["params"] = params
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode("utf-8") + b"\n"
