#!/usr/bin/env python3
"""A small stand-in for `photoworker` that speaks the wire protocol of protocol/README.md.

The client suites use it for behaviour the real binary cannot be made to show on demand (a worker
that crashes, writes garbage, or ignores cancellation) and, via PHOTOWORKER_BIN, as a drop-in when
the real binary is not built.  It implements the built-in and diagnostics methods only.

Extra, fake-only methods (never in the real worker):
  test.crash {"code"}           exit immediately with that code, leaving every job unanswered
  test.garbage {}               write a non-JSON line to stdout, then reply {}
  test.stderr {"lines", "text"} write lines to stderr, then reply {}
  test.echo {...}               reply with params
  test.ignoreCancel {"ms"}      sleep ms and reply normally even when cancelled
"""

import asyncio
import json
import os
import signal
import sys
import time

START = time.monotonic()
OPENRPC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "protocol", "openrpc.json")


class Failure(Exception):
    def __init__(self, code, message, data=None):
        super().__init__(message)
        self.code, self.message, self.data = code, message, data

    def wire(self):
        err = {"code": self.code, "message": self.message}
        if self.data is not None:
            err["data"] = self.data
        return err


class Job:
    def __init__(self, rid, method):
        self.id, self.method, self.state = rid, method, "queued"
        self.started = time.time()
        self.task = None
        self.cancel_reason = None  # -32800 or -32802 once cancelled


class FakeWorker:
    def __init__(self):
        self.out = sys.stdout.buffer
        self.jobs = {}  # key -> Job
        self.stats = dict(received=0, completed=0, failed=0, cancelled=0)
        self.shutting_down = False
        self.tasks = set()

    # --- output -------------------------------------------------------------------------
    def send(self, msg):
        self.out.write(json.dumps(msg, separators=(",", ":")).encode() + b"\n")
        self.out.flush()

    @staticmethod
    def key(rid):
        return json.dumps(rid)

    # --- input --------------------------------------------------------------------------
    async def run(self):
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, self.on_sigterm)
        reader = asyncio.StreamReader(limit=1 << 26)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        while True:
            line = await reader.readline()
            if not line:
                break
            line = line.rstrip(b"\n").rstrip(b"\r")
            if not line.strip():
                continue
            try:
                msg = json.loads(line)
            except ValueError:
                self.send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}})
                continue
            if isinstance(msg, list):
                self.spawn(self.batch(msg))
            else:
                fut = self.accept(msg)
                if fut is not None:
                    self.spawn(self.reply_when_done(fut))
        # stdin EOF: drain in-flight jobs, then exit 0.
        while self.tasks:
            await asyncio.gather(*list(self.tasks), return_exceptions=True)
        sys.exit(0)

    def spawn(self, coro):
        task = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    async def reply_when_done(self, fut):
        reply = await fut
        if reply is not None:
            self.send(reply)

    async def batch(self, msgs):
        if not msgs:
            self.send({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid Request: empty batch"}})
            return
        futs = [self.accept(m) for m in msgs]
        replies = [r for r in await asyncio.gather(*[f for f in futs if f is not None]) if r is not None]
        if replies:
            self.send(replies)

    def accept(self, msg):
        """Registers the request before the next line is read; returns an awaitable reply (or None)."""
        done = asyncio.get_running_loop().create_future()
        if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0" or not isinstance(msg.get("method"), str) \
                or ("id" in msg and not isinstance(msg["id"], (str, int, float, type(None)))) \
                or ("params" in msg and not isinstance(msg["params"], (dict, list))):
            rid = msg.get("id") if isinstance(msg, dict) and isinstance(msg.get("id"), (str, int)) else None
            done.set_result(self.error(rid, Failure(-32600, "Invalid Request")))
            return done
        method, params = msg["method"], msg.get("params", {})
        if "id" not in msg:
            self.notification(method, params)
            return None
        rid = msg["id"]
        self.stats["received"] += 1
        if self.shutting_down and method not in ("exit",):
            done.set_result(self.error(rid, Failure(-32802, "Server is shutting down")))
            return done
        job = Job(rid, method)
        self.jobs[self.key(rid)] = job
        job.task = self.spawn(self.execute(job, params))
        job.task.add_done_callback(lambda task: self.finish(job, task, done))
        return done

    def notification(self, method, params):
        if method in ("$/cancelRequest", "notifications/cancelled"):
            rid = params.get("id") if method == "$/cancelRequest" else params.get("requestId")
            self.cancel(rid, -32800)
        elif method == "exit":
            os._exit(0 if self.shutting_down else 1)

    def cancel(self, rid, code):
        job = self.jobs.get(self.key(rid))
        if job is None or job.cancel_reason is not None:
            return False
        job.cancel_reason = code
        if job.method != "test.ignoreCancel":
            job.task.cancel()
        return True

    def on_sigterm(self):
        self.shutting_down = True
        for job in list(self.jobs.values()):
            self.cancel(job.id, -32802)
        async def finish():
            while [t for t in self.tasks if t is not asyncio.current_task()]:
                await asyncio.sleep(0.005)
            os._exit(0)
        asyncio.ensure_future(finish())

    def error(self, rid, failure):
        return {"jsonrpc": "2.0", "id": rid, "error": failure.wire()}

    async def execute(self, job, params):
        if not isinstance(params, dict):
            raise Failure(-32602, "Invalid params", {"path": "", "reason": "params must be an object"})
        handler = getattr(self, "m_" + job.method.replace(".", "_"), None)
        if handler is None:
            raise Failure(-32601, "Method not found", {"method": job.method})
        job.state = "running"
        return await handler(job, params)

    def finish(self, job, task, done):
        """Done-callback of a job's task: it also runs when the task was cancelled before it started."""
        self.jobs.pop(self.key(job.id), None)
        if task.cancelled():
            self.stats["cancelled"] += 1
            code = job.cancel_reason or -32802
            msg = "Request cancelled" if code == -32800 else "Cancelled by the server"
            reply = self.error(job.id, Failure(code, msg))
        elif isinstance(task.exception(), Failure):
            self.stats["failed"] += 1
            reply = self.error(job.id, task.exception())
        elif task.exception() is not None:
            self.stats["failed"] += 1
            reply = self.error(job.id, Failure(-32603, "Internal error", {"reason": repr(task.exception())}))
        else:
            self.stats["completed"] += 1
            reply = {"jsonrpc": "2.0", "id": job.id, "result": task.result()}
        done.set_result(reply)

    # --- methods ------------------------------------------------------------------------
    @staticmethod
    def ms(params, name="ms", default=0):
        value = params.get(name, default)
        if not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0:
            raise Failure(-32602, "Invalid params", {"path": name, "reason": "expected a non-negative number"})
        return value

    async def m_initialize(self, job, params):
        return {"serverInfo": {"name": "photoworker-fake", "version": "0.0.0"}, "protocolVersion": "1",
                "methods": [{"name": n[2:].replace("_", "."), "cost": "immediate", "summary": ""}
                            for n in sorted(dir(self)) if n.startswith("m_")],
                "limits": {"maxLineBytes": 1 << 26, "maxJobs": 2, "maxQueue": 10000, "drainTimeoutSeconds": 30}}

    async def m_ping(self, job, params):
        return {}

    async def m_shutdown(self, job, params):
        self.shutting_down = True
        while [j for j in self.jobs.values() if j is not job]:
            await asyncio.sleep(0.005)
        return {}

    async def m_jobs_list(self, job, params):
        return {"jobs": [{"id": j.id, "method": j.method, "state": j.state,
                          "startedAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(j.started)),
                          "elapsedMs": int((time.time() - j.started) * 1000)}
                         for j in self.jobs.values() if j is not job]}

    async def m_jobs_cancel(self, job, params):
        if "id" not in params:
            raise Failure(-32602, "Invalid params", {"path": "id", "reason": "required"})
        return {"cancelled": self.cancel(params["id"], -32800)}

    async def m_worker_stats(self, job, params):
        running = sum(1 for j in self.jobs.values() if j.state == "running") - 1
        return dict(self.stats, running=running, queued=0, uptimeSeconds=time.monotonic() - START,
                    peakRSSBytes=0)

    async def m_rpc_discover(self, job, params):
        with open(OPENRPC) as f:
            return json.load(f)

    async def m_diagnostics_sleep(self, job, params):
        ms = self.ms(params)
        await asyncio.sleep(ms / 1000)
        return {"slept": ms}

    async def m_diagnostics_spin(self, job, params):
        ms = self.ms(params)
        await asyncio.sleep(ms / 1000)
        return {"spun": ms, "iterations": 1}

    async def m_diagnostics_fanout(self, job, params):
        n = params.get("children")
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise Failure(-32602, "Invalid params", {"path": "children", "reason": "expected a non-negative integer"})
        ms = self.ms(params)
        # Staggered like the real worker's, so completion order differs from start order.
        await asyncio.gather(*[self.child(job, i, ms * ((i * 7919) % n + 1) // n) for i in range(n)])
        return {"children": n}

    async def child(self, job, index, ms):
        await asyncio.sleep(ms / 1000)
        self.send({"jsonrpc": "2.0", "method": "$/progress",
                   "params": {"id": job.id, "kind": "item", "index": index,
                              "result": {"child": index, "sleptMs": ms}}})

    async def m_test_crash(self, job, params):
        os._exit(params.get("code", 3))

    async def m_test_garbage(self, job, params):
        self.out.write(b"this is not json\n")
        self.out.flush()
        return {}

    async def m_test_stderr(self, job, params):
        for i in range(params.get("lines", 1)):
            sys.stderr.write(f"{params.get('text', 'line')} {i}\n")
        sys.stderr.flush()
        return {}

    async def m_test_echo(self, job, params):
        return params

    async def m_test_ignoreCancel(self, job, params):
        await asyncio.sleep(self.ms(params) / 1000)
        self.send({"jsonrpc": "2.0", "method": "$/progress",
                   "params": {"id": job.id, "kind": "progress", "done": 1, "total": 1}})
        return {"ignored": True}


if __name__ == "__main__":
    try:
        asyncio.run(FakeWorker().run())
    except KeyboardInterrupt:
        sys.exit(130)
