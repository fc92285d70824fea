"""Run photoworker under Ray Data: one worker process per Ray actor, each input row one request.

    import ray
    from photoworker_client.ray import PhotoWorkerUDF

    ds = ray.data.from_items([{"path": p} for p in paths])
    out = ds.map_batches(PhotoWorkerUDF, batch_size=8, num_cpus=1,
                         compute=ray.data.ActorPoolStrategy(size=4),
                         fn_constructor_kwargs={"method": "photo.process",
                                                "params": {"count": 5, "output": {"dir": "out"}},
                                                "executable": "/path/to/photoworker"})

Each row's `path`, `url` or `bytes` column becomes the request's `source` (`params` is merged in, and a row's own
`params` column, a dict or JSON text, over that); each output row
keeps the input columns and adds `result` (the JSON result, as JSON text; "" when it failed) and `error` (the
JSON-RPC error `{code, message, data}` as JSON text; "" when it worked). A bad photo is an error row, never a
failed job. The requests of a batch run concurrently on the worker, which is parallel inside (`--max-jobs`, by
default the CPUs Ray gave the actor), within its memory budget (`--max-memory`, by default the memory Ray reserved
for the actor: `memory=` in `map_batches` or the actor's options).

`__call__` is a coroutine, so Ray runs the UDF in an async actor: cancelling the Ray task (or the dataset) raises
CancelledError in it, the client sends `$/cancelRequest` for every request in flight, and the actor stays usable.
The worker runs in its own process group; `close()` (also when the UDF is collected, and at interpreter exit)
ends the group, and if the actor process dies without any of that (`ray.kill`, a crash) the worker's parent watch
ends it within half a second. (The kernel's parent-death signal is not used: it follows the thread that spawned
the worker, and Ray's threads come and go.)

`process_folder(...)` is the one-call version: a folder (or a list of paths/URLs) through a pool of actors, with
progress, into a JSON-lines or Parquet manifest. Requires `pip install "photoworker-client[ray]"`.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import signal
import sys
import time
import weakref
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from .errors import WorkerError
from .worker import Worker, max_memory_args, names_flag

#: Image files `process_folder` picks up.
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".gif", ".heic", ".heif", ".avif")

#: The columns a row may name its image with, in the order they are looked at.
SOURCE_COLUMNS = ("path", "url", "bytes")


def _assigned_cpus() -> int:
    try:
        import ray

        return max(1, int(ray.get_runtime_context().get_assigned_resources().get("CPU", 1)))
    except Exception:  # outside Ray
        return 1


def _assigned_memory() -> int | None:
    """The bytes of memory Ray reserved for this actor (`memory=`); None when it reserved none, or outside Ray."""
    try:
        import ray

        memory = ray.get_runtime_context().get_assigned_resources().get("memory")
    except Exception:  # outside Ray
        return None
    return int(memory) if memory and memory >= 1 else None


class PhotoWorkerUDF:
    """A callable class for `Dataset.map_batches` that owns one photoworker process, created once per actor.

    - method, params: the request each row becomes (`params` is merged with the row's `source`).
    - executable, args: the worker binary (default `$PHOTOWORKER_BIN`, then PATH) and extra flags.
    - max_jobs: the worker's `--max-jobs` (default: the CPUs Ray assigned to this actor).
    - max_memory: the worker's `--max-memory`, bytes or a str such as "1.5G" or "60%" (default: the memory Ray
      reserved for this actor with `memory=`, in bytes; with none reserved, or `--max-memory` in `args`, the
      worker's own default, 90% of the node's or its container's memory, which several actors on one node
      overcommit). Jobs wait until their estimated peak fits; a row whose job never could is an error row, -32007.
    - timeout: seconds per request (None: no limit).
    """

    def __init__(
        self,
        method: str = "photo.process",
        params: dict[str, Any] | None = None,
        executable: str | os.PathLike[str] | None = None,
        args: Sequence[str] = (),
        max_jobs: int | None = None,
        timeout: float | None = None,
        max_memory: str | int | None = None,
    ):
        self.method = method
        self.params = dict(params or {})
        self.executable = executable
        self.args = list(args)
        self.max_jobs = max_jobs or _assigned_cpus()
        if max_memory is None and not names_flag(self.args, "--max-memory"):
            max_memory = _assigned_memory()
        self.max_memory = max_memory
        # Checked here, so that a bad value fails the actor's creation rather than its first batch.
        self._memory_args = max_memory_args(max_memory, self.args)
        self.timeout = timeout
        self._worker: Worker | None = None
        self._starting: asyncio.Lock | None = None
        # Ends the worker's process group even if nobody calls close(): when the UDF is collected, or at
        # interpreter exit (a finalizer runs then too).
        self._reaper = weakref.finalize(self, _end_group, [None])

    async def _ensure_worker(self) -> Worker:
        # Created lazily, inside the event loop Ray runs the UDF on (the Worker belongs to that loop).
        if self._starting is None:
            self._starting = asyncio.Lock()
        async with self._starting:
            if self._worker is None or not self._worker.alive:
                self._worker = await Worker.spawn(
                    self.executable, ["--max-jobs", str(self.max_jobs), *self._memory_args, *self.args],
                    new_process_group=True)
                self._reaper.detach()
                self._reaper = weakref.finalize(self, _end_group, [self._worker.pid])
        return self._worker

    @staticmethod
    def source_of(row: dict[str, Any]) -> dict[str, Any]:
        """The request's `source` for a row with a `path`, `url` or `bytes` column."""
        for column in SOURCE_COLUMNS:
            value = row.get(column)
            if value is None or (isinstance(value, str) and value == ""):
                continue
            if column == "bytes":
                return {"data": base64.b64encode(bytes(value)).decode("ascii")}
            return {column: str(value)}
        raise ValueError(f"a row needs one of the columns {SOURCE_COLUMNS}; it has {sorted(row)}")

    @staticmethod
    def row_params(row: dict[str, Any]) -> dict[str, Any]:
        """A row's own `params` column (a dict or JSON text), if it has one."""
        value = row.get("params")
        if value is None or (isinstance(value, str) and value == ""):
            return {}
        value = json.loads(value) if isinstance(value, (str, bytes)) else value
        if not isinstance(value, dict):
            raise ValueError(f"the params column must hold objects, not {type(value).__name__}")
        return value

    async def _one(self, worker: Worker, row: dict[str, Any]) -> tuple[str, str]:
        try:
            params = {**self.params, **self.row_params(row), "source": self.source_of(row)}
            result = await worker.call(self.method, params, timeout=self.timeout)
            return json.dumps(result, separators=(",", ":")), ""
        except WorkerError as error:
            return "", json.dumps({"code": error.code, "message": error.message, "data": error.data}, separators=(",", ":"))
        except ValueError as error:
            return "", json.dumps({"code": -32602, "message": "invalid params", "data": {"reason": str(error)}})

    async def __call__(self, batch: Any) -> dict[str, Any]:
        import numpy as np

        columns = _columns(batch)
        n = len(next(iter(columns.values()))) if columns else 0
        rows = [{k: v[i] for k, v in columns.items()} for i in range(n)]
        worker = await self._ensure_worker()
        # Concurrently: the worker queues them and runs --max-jobs at once. Cancelling this coroutine cancels
        # every call, and each call's cancellation sends $/cancelRequest.
        outcomes = await asyncio.gather(*(self._one(worker, row) for row in rows))
        out = {k: np.asarray(v) for k, v in columns.items()}
        out["result"] = np.array([r for r, _ in outcomes], dtype=object)
        out["error"] = np.array([e for _, e in outcomes], dtype=object)
        return out

    # For tests and monitoring through an actor handle.
    async def worker_pid(self) -> int:
        return (await self._ensure_worker()).pid

    async def jobs(self) -> list[dict[str, Any]]:
        return (await (await self._ensure_worker()).call("jobs.list"))["jobs"]

    async def stats(self) -> dict[str, Any]:
        """The worker's `worker.stats`; `memory` has its budget (`budgetBytes`, `origin`) and what holds it."""
        return await (await self._ensure_worker()).call("worker.stats")

    async def close(self) -> None:
        """Ends the worker: its jobs are answered -32802 (SIGTERM), then its process group is ended."""
        worker, self._worker = self._worker, None
        if worker is not None:
            await worker.terminate(timeout=2)
        self._reaper()


def _end_group(pid_cell: list[int | None]) -> None:
    """SIGTERM, then SIGKILL, to the worker's process group (it leads a group of its own)."""
    pid = pid_cell[0]
    if pid is None:
        return
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            try:
                os.killpg(pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.01)


def _columns(batch: Any) -> dict[str, Any]:
    """A batch as columns: Ray's default (dict of numpy arrays), a pandas DataFrame, or a pyarrow Table."""
    if isinstance(batch, dict):
        return batch
    if hasattr(batch, "to_pydict"):  # pyarrow.Table
        return batch.to_pydict()
    if hasattr(batch, "to_dict"):  # pandas.DataFrame
        return {k: list(v) for k, v in batch.to_dict(orient="list").items()}
    raise TypeError(f"unsupported batch type {type(batch).__name__}")


def process_folder(
    sources: str | os.PathLike[str] | Iterable[str],
    manifest: str | os.PathLike[str],
    *,
    method: str = "photo.process",
    params: dict[str, Any] | None = None,
    executable: str | os.PathLike[str] | None = None,
    actors: int = 2,
    cpus_per_actor: int = 1,
    memory_per_actor: int | None = None,
    batch_size: int = 8,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, int]:
    """Every image of a folder (or each path/URL given) through `actors` Ray actors; writes a manifest.

    The manifest is JSON lines (`.jsonl`, one row a line as it arrives) or Parquet (`.parquet`), one row per
    image: `path` or `url`, `result`, `error` (see PhotoWorkerUDF). `progress(done, total)` is called as rows come
    in (default: a line on stderr). `memory_per_actor` (bytes) is reserved from Ray for each actor (`memory=`) and
    is its worker's `--max-memory`; None reserves nothing and leaves each worker its default. Needs Ray started
    (`ray.init()`) or starts a local one. Returns the counts.
    """
    import ray

    if isinstance(sources, (str, os.PathLike)) and Path(sources).is_dir():
        items = [{"path": str(p)} for p in sorted(Path(sources).iterdir()) if p.suffix.lower() in IMAGE_SUFFIXES]
    else:
        items = [{"url": s} if str(s).startswith(("http://", "https://")) else {"path": str(s)}
                 for s in ([sources] if isinstance(sources, (str, os.PathLike)) else sources)]
    if not items:
        raise ValueError(f"no images in {sources}")
    if progress is None:
        def progress(done: int, total: int) -> None:
            print(f"photoworker: {done}/{total}", file=sys.stderr, flush=True)

    reserve = {} if memory_per_actor is None else {"memory": memory_per_actor}
    ds = ray.data.from_items(items).map_batches(
        PhotoWorkerUDF, batch_size=batch_size, num_cpus=cpus_per_actor,
        compute=ray.data.ActorPoolStrategy(size=actors), **reserve,
        fn_constructor_kwargs={"method": method, "params": params or {}, "executable": executable,
                               "max_jobs": cpus_per_actor, "max_memory": memory_per_actor})
    manifest = Path(manifest)
    counts = {"total": len(items), "completed": 0, "failed": 0}
    rows: list[dict[str, Any]] = []
    jsonl = manifest.suffix.lower() != ".parquet"
    with open(manifest, "w", encoding="utf-8") if jsonl else _Nothing() as out:
        for row in ds.iter_rows():
            row = {k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()}
            counts["failed" if row["error"] else "completed"] += 1
            if jsonl:
                out.write(json.dumps(row) + "\n")
            else:
                rows.append(row)
            progress(counts["completed"] + counts["failed"], counts["total"])
    if not jsonl:
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pylist(rows), manifest)
    return counts


class _Nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None
