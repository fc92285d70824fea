"""asyncio client for photoworker, the stdio JSON-RPC 2.0 photo worker (protocol: protocol/README.md).

    async with Worker.spawn(executable="photoworker") as w:
        info = await w.call("image.info", {"source": {"path": "cat.jpg"}}, timeout=10)
        async for event in w.stream("photos.process", {...}):
            ...
"""

from .errors import (
    ClientError,
    ErrorCode,
    FetchFailed,
    ImageTooLarge,
    InternalError,
    InvalidImage,
    InvalidParams,
    InvalidRequest,
    MethodNotFound,
    OutputFailed,
    OverMemoryBudget,
    Overloaded,
    ParseError,
    ProtocolError,
    RequestCancelled,
    ServerCancelled,
    SourceNotFound,
    WorkerClosed,
    WorkerDied,
    WorkerError,
)
from .events import Event, Item, Progress, Result
from .pool import WorkerPool
from .sync import SyncWorker
from .worker import Worker, default_executable

__all__ = [
    "ClientError", "ErrorCode", "Event", "FetchFailed", "ImageTooLarge", "InternalError", "InvalidImage",
    "InvalidParams", "InvalidRequest", "Item", "MethodNotFound", "OutputFailed", "OverMemoryBudget", "Overloaded",
    "ParseError", "Progress", "ProtocolError", "RequestCancelled", "Result", "ServerCancelled", "SourceNotFound",
    "SyncWorker", "Worker", "WorkerClosed", "WorkerDied", "WorkerError", "WorkerPool", "default_executable",
]
