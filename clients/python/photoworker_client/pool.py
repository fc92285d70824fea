"""`WorkerPool`: several worker processes behind one call interface, restarted when they die."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from typing import Any, AsyncIterator, Sequence

from .errors import WorkerClosed, WorkerDied
from .events import Event
from .worker import ProgressCallback, Worker, max_memory_args

log = logging.getLogger("photoworker_client")


class _Slot:
    def __init__(self, index: int):
        self.index = index
        self.worker: Worker | None = None
        self.monitor: asyncio.Task[None] | None = None
        self.recent_restarts = 0  # restarts of workers that died soon after starting; drives the back-off
        self.gave_up = False  # starting a replacement failed max_spawn_failures times in a row
        self.started_at = 0.0


class WorkerPool:
    """Spreads calls over `size` worker processes (each call goes to the live worker with the fewest in flight).

    - Important: when a worker dies, its in-flight calls fail with `WorkerDied` (they are not retried: the caller
      decides whether a job is safe to repeat) and the pool starts a replacement, with back-off if replacements
      keep dying. `close()` ends every child, including one being started at that moment.

    `async with WorkerPool(4, executable=...) as pool: await pool.call("image.info", {...})`

    `max_memory` is each worker's `--max-memory` (see `Worker.spawn`): the workers of a pool share one machine, and
    each one left to its default budgets 90% of all of it, so give each its share, e.g. the memory meant for the
    pool divided by `size`. Other keyword options go to `Worker.spawn` for every worker.
    """

    def __init__(
        self,
        size: int,
        executable: str | os.PathLike[str] | None = None,
        args: Sequence[str] = (),
        *,
        restart: bool = True,
        max_spawn_failures: int = 5,
        max_memory: str | int | None = None,
        **spawn_options: Any,
    ):
        if size < 1:
            raise ValueError("size must be at least 1")
        self._size = size
        self._executable = executable
        # Made into the flag here, so that a bad value fails the constructor rather than start().
        self._args = (*args, *max_memory_args(max_memory, args))
        self._restart = restart
        self._max_spawn_failures = max_spawn_failures
        self._spawn_options = spawn_options
        self._slots = [_Slot(i) for i in range(size)]
        self._changed: asyncio.Event | None = None
        self._closing = False
        self._close_task: asyncio.Task[None] | None = None
        self._next = 0
        self.restarts = 0
        """How many times a dead worker has been replaced."""

    # --- lifecycle ------------------------------------------------------------------------------------------------

    async def start(self) -> WorkerPool:
        """Starts every worker; if any fails to start, the others are closed and the error raised."""
        self._changed = asyncio.Event()
        try:
            workers = await asyncio.gather(*(self._spawn() for _ in self._slots))
        except BaseException:
            self._closing = True
            await self._close_started()
            raise
        for slot, worker in zip(self._slots, workers):
            self._install(slot, worker)
        return self

    async def close(self, timeout: float = 10.0) -> None:
        """Closes every worker gracefully (in-flight calls finish), killing any that overstay `timeout`."""
        if self._close_task is None:
            self._close_task = asyncio.ensure_future(self._close(timeout))
        await asyncio.shield(self._close_task)

    async def _close(self, timeout: float) -> None:
        self._closing = True
        self._wake()
        await asyncio.gather(
            *(slot.worker.close(timeout) for slot in self._slots if slot.worker is not None), return_exceptions=True
        )
        # A monitor may be starting a replacement right now; it sees `_closing` and closes it itself.
        await asyncio.gather(*(slot.monitor for slot in self._slots if slot.monitor is not None), return_exceptions=True)

    async def _close_started(self) -> None:
        await asyncio.gather(*(s.worker.close(2) for s in self._slots if s.worker is not None), return_exceptions=True)

    async def __aenter__(self) -> WorkerPool:
        return await self.start()

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.close()

    # --- calls ----------------------------------------------------------------------------------------------------

    @property
    def workers(self) -> list[Worker | None]:
        """The current worker of each slot (None while a slot is being restarted)."""
        return [slot.worker for slot in self._slots]

    async def call(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        timeout: float | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> Any:
        """`Worker.call` on the least busy live worker (waiting for a restart if none is alive)."""
        worker = await self._pick()
        return await worker.call(method, params, timeout=timeout, on_progress=on_progress)

    async def stream(
        self, method: str, params: dict[str, Any] | None = None, *, timeout: float | None = None
    ) -> AsyncIterator[Event]:
        """`Worker.stream` on the least busy live worker."""
        worker = await self._pick()
        # aclosing: leaving this stream early closes the worker's stream at once, which cancels the job.
        async with contextlib.aclosing(worker.stream(method, params, timeout=timeout)) as events:
            async for event in events:
                yield event

    async def _pick(self) -> Worker:
        assert self._changed is not None, "start the pool first (async with WorkerPool(...) or await pool.start())"
        while True:
            if self._closing:
                raise WorkerClosed("the pool is closed")
            live = [s for s in self._slots if s.worker is not None and s.worker.alive]
            if live:
                # Fewest in flight; ties go round-robin so idle workers share the load.
                self._next = (self._next + 1) % self._size
                best = min(live, key=lambda s: (s.worker.in_flight, (s.index - self._next) % self._size))  # type: ignore[union-attr]
                return best.worker  # type: ignore[return-value]
            if not self._restart or all(s.gave_up for s in self._slots):
                raise WorkerDied("no live worker in the pool: every worker died and could not be restarted")
            self._changed.clear()
            await self._changed.wait()

    # --- restarts -------------------------------------------------------------------------------------------------

    async def _spawn(self) -> Worker:
        return await Worker.spawn(self._executable, self._args, **self._spawn_options)

    def _install(self, slot: _Slot, worker: Worker) -> None:
        slot.worker = worker
        slot.started_at = time.monotonic()
        slot.monitor = asyncio.ensure_future(self._watch(slot, worker))
        self._wake()

    def _wake(self) -> None:
        if self._changed is not None:
            self._changed.set()

    async def _watch(self, slot: _Slot, worker: Worker) -> None:
        returncode = await worker.wait_exit()
        if self._closing or not self._restart:
            self._wake()
            return
        log.warning(
            "pool worker %s (slot %d) died with status %s; restarting. stderr tail:\n%s",
            worker.pid, slot.index, returncode, worker.stderr_tail(10),
        )
        # A worker that keeps dying soon after start is restarted with growing delays, then given up on.
        if time.monotonic() - slot.started_at > 10:
            slot.recent_restarts = 0
        slot.worker = None
        failures = 0
        while not self._closing:
            attempts = slot.recent_restarts + failures
            if attempts:
                await asyncio.sleep(min(5.0, 0.05 * 2 ** (attempts - 1)))
            if self._closing:
                break
            try:
                replacement = await self._spawn()
            except OSError as error:
                failures += 1
                log.error("pool slot %d: restart failed (%s)", slot.index, error)
                if failures >= self._max_spawn_failures:
                    slot.gave_up = True
                    break
                continue
            if self._closing:
                await replacement.close(2)
                return
            slot.recent_restarts += 1
            self.restarts += 1
            self._install(slot, replacement)
            return
        self._wake()
