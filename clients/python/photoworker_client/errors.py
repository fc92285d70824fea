"""Typed errors: one `WorkerError` subclass per wire error code, plus the client's own failures."""

from __future__ import annotations

from typing import Any, ClassVar


class ErrorCode:
    """The wire error codes of protocol/README.md."""

    PARSE_ERROR = -32700
    INVALID_REQUEST = -32600
    METHOD_NOT_FOUND = -32601
    INVALID_PARAMS = -32602
    INTERNAL_ERROR = -32603
    REQUEST_CANCELLED = -32800
    SERVER_CANCELLED = -32802
    OVERLOADED = -32000
    SOURCE_NOT_FOUND = -32001
    INVALID_IMAGE = -32002
    IMAGE_TOO_LARGE = -32003
    FETCH_FAILED = -32004
    OUTPUT_FAILED = -32005
    OVER_MEMORY_BUDGET = -32007


class WorkerError(Exception):
    """A JSON-RPC error reply from the worker.

    `WorkerError.from_wire` returns the subclass registered for the code (`InvalidParams`, `SourceNotFound`, ...),
    so callers can `except SourceNotFound:` or compare `err.code` with an `ErrorCode` constant.
    """

    code_value: ClassVar[int | None] = None
    _by_code: ClassVar[dict[int, type[WorkerError]]] = {}

    def __init__(self, code: int, message: str, data: Any = None, *, method: str | None = None):
        super().__init__(code, message, data)
        self.code = code
        self.message = message
        self.data = data
        self.method = method

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.code_value is not None:
            WorkerError._by_code[cls.code_value] = cls

    @classmethod
    def from_wire(cls, error: Any, *, method: str | None = None) -> WorkerError:
        if not isinstance(error, dict):
            return ProtocolError(f"malformed error object: {error!r}")
        code = error.get("code")
        message = error.get("message")
        if not isinstance(code, int) or isinstance(code, bool):
            return ProtocolError(f"error object without an integer code: {error!r}")
        subclass = cls._by_code.get(code, WorkerError)
        return subclass(code, message if isinstance(message, str) else "", error.get("data"), method=method)

    def __str__(self) -> str:
        where = f" ({self.method})" if self.method else ""
        detail = f": {self.data}" if self.data is not None else ""
        return f"[{self.code}] {self.message}{where}{detail}"


class ParseError(WorkerError):
    code_value = ErrorCode.PARSE_ERROR


class InvalidRequest(WorkerError):
    code_value = ErrorCode.INVALID_REQUEST


class MethodNotFound(WorkerError):
    code_value = ErrorCode.METHOD_NOT_FOUND


class InvalidParams(WorkerError):
    """`data` is {"path": "a.b[0]", "reason": "..."}."""

    code_value = ErrorCode.INVALID_PARAMS


class InternalError(WorkerError):
    code_value = ErrorCode.INTERNAL_ERROR


class RequestCancelled(WorkerError):
    """The request was cancelled (by `jobs.cancel`, or by another client of the same worker)."""

    code_value = ErrorCode.REQUEST_CANCELLED


class ServerCancelled(WorkerError):
    """The worker cancelled the job itself: drain timeout, shutdown or a signal."""

    code_value = ErrorCode.SERVER_CANCELLED


class Overloaded(WorkerError):
    """The worker's queue is full; retrying later may succeed."""

    code_value = ErrorCode.OVERLOADED


class SourceNotFound(WorkerError):
    code_value = ErrorCode.SOURCE_NOT_FOUND


class InvalidImage(WorkerError):
    code_value = ErrorCode.INVALID_IMAGE


class ImageTooLarge(WorkerError):
    code_value = ErrorCode.IMAGE_TOO_LARGE


class FetchFailed(WorkerError):
    """`data` carries the HTTP status where there was one."""

    code_value = ErrorCode.FETCH_FAILED


class OutputFailed(WorkerError):
    """The output could not be written (missing folder, permissions, disk full); `data.path` says where."""

    code_value = ErrorCode.OUTPUT_FAILED


class OverMemoryBudget(WorkerError):
    """The job's estimated peak memory alone is more than the worker may use (`--max-memory`, `max_memory=`), so it
    could never start; retrying the same job on the same worker fails again. `data` is
    {"reason", "neededBytes", "budgetBytes"}: raise the budget, or ask for a smaller output."""

    code_value = ErrorCode.OVER_MEMORY_BUDGET


class ClientError(Exception):
    """A failure on the client side of the pipe (not a JSON-RPC error reply)."""


class WorkerDied(ClientError):
    """The worker process ended (or its pipes broke) while the call was in flight, or before it was sent.

    `returncode` is the exit status (negative: killed by that signal) when known; `stderr_tail` holds the last
    lines the worker wrote to stderr, which usually say why.
    """

    def __init__(self, message: str, *, returncode: int | None = None, stderr_tail: str = "", pid: int | None = None):
        super().__init__(message)
        self.returncode = returncode
        self.stderr_tail = stderr_tail
        self.pid = pid

    def __str__(self) -> str:
        text = super().__str__()
        if self.stderr_tail:
            text += "\n--- worker stderr (tail) ---\n" + self.stderr_tail
        return text


class WorkerClosed(ClientError):
    """The worker was closed by this client; no new calls are accepted."""


class ProtocolError(WorkerError):
    """The worker sent something that is not valid protocol (a reply the client cannot interpret)."""

    def __init__(self, message: str):
        super().__init__(ErrorCode.INTERNAL_ERROR, message)
