"""`SyncWorker`: a blocking facade over `Worker` for plain scripts.

    from photoworker_client.sync import SyncWorker
    with SyncWorker(executable="photoworker") as w:
        info = w.call("image.info", {"source": {"path": "cat.jpg"}})

The asyncio Worker runs on a private event loop in a daemon thread; each method blocks the calling thread until
the reply comes. Ctrl-C (KeyboardInterrupt) while a call is blocked cancels that job in the worker.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from typing import Any, Awaitable, Iterator, TypeVar

from .events import Event
from .worker import ProgressCallback, Worker

T = TypeVar("T")

_DONE = object()


class SyncWorker:
    """A `Worker` driven from synchronous code; safe to use from several threads at once.

    The options are those of `Worker.spawn`, `max_memory` (the worker's `--max-memory`: bytes, or "1.5G", "60%",
    "off"; None leaves the worker's default of 90% of the machine's or its container's memory) among them.
    """

    def __init__(
        self,
        executable: str | None = None,
        args: tuple[str, ...] | list[str] = (),
        *,
        max_memory: str | int | None = None,
        **options: Any,
    ):
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="photoworker-client", daemon=True)
        self._thread.start()
        try:
            self._worker: Worker = self._run(
                Worker.spawn(executable, args, max_memory=max_memory, **options))  # type: ignore[arg-type]
        except BaseException:
            self._stop_loop()
            raise

    def _run(self, awaitable: Awaitable[T]) -> T:
        async def wrapper() -> T:
            return await awaitable

        future = asyncio.run_coroutine_threadsafe(wrapper(), self._loop)
        try:
            return future.result()
        except BaseException:
            # KeyboardInterrupt (or any other interruption of the waiting thread): cancel the task, which
            # sends $/cancelRequest for the call it was awaiting.
            if not future.done():
                future.cancel()
                try:
                    future.result(timeout=5)
                except (concurrent.futures.CancelledError, Exception):
                    pass
            raise

    @property
    def pid(self) -> int:
        return self._worker.pid

    @property
    def worker(self) -> Worker:
        """The underlying asyncio Worker (use only from its loop)."""
        return self._worker

    def stderr_tail(self, lines: int | None = None) -> str:
        return self._worker.stderr_tail(lines)

    def call(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        timeout: float | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> Any:
        """Blocking `Worker.call`. `on_progress` runs on the client's loop thread: keep it short."""
        return self._run(self._worker.call(method, params, timeout=timeout, on_progress=on_progress))

    def stream(self, method: str, params: dict[str, Any] | None = None, *, timeout: float | None = None) -> Iterator[Event]:
        """Blocking `Worker.stream`: yields events as they arrive; closing the generator early cancels the job."""
        agen = self._worker.stream(method, params, timeout=timeout)
        try:
            while True:
                event = self._run(_next_or_done(agen))
                if event is _DONE:
                    return
                yield event  # type: ignore[misc]
        finally:
            self._run(agen.aclose())

    def close(self, timeout: float = 10.0) -> int | None:
        """Graceful close (see `Worker.close`), then stops the loop thread. Idempotent."""
        if self._loop.is_closed():
            return self._worker.returncode
        try:
            return self._run(self._worker.close(timeout))
        finally:
            self._stop_loop()

    def _stop_loop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()

    def __enter__(self) -> SyncWorker:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()


async def _next_or_done(agen: Any) -> Any:
    try:
        return await agen.__anext__()
    except StopAsyncIteration:
        return _DONE
