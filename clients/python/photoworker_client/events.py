"""The events `Worker.stream` yields: `Progress` and `Item` notifications, then one `Result`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Union

from .errors import WorkerError


@dataclass(frozen=True)
class Progress:
    """`$/progress` with kind "progress": `done` of `total` units, with an optional message."""

    done: int | float | None
    total: int | float | None
    message: str | None = None
    kind: Literal["progress"] = "progress"


@dataclass(frozen=True)
class Item:
    """`$/progress` with kind "item": one finished child of a batch job, a result or a (typed) error."""

    index: int
    result: Any = None
    error: WorkerError | None = None
    kind: Literal["item"] = "item"

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass(frozen=True)
class Result:
    """The final reply's result; always the last event of a stream (a final error is raised instead)."""

    value: Any
    kind: Literal["result"] = "result"


Event = Union[Progress, Item, Result]


def event_from_progress(params: dict[str, Any], method: str | None) -> Progress | Item | None:
    """Decodes the params of a `$/progress` notification; unknown kinds are ignored (forward compatibility)."""
    kind = params.get("kind")
    if kind == "item":
        error = params.get("error")
        return Item(
            index=params.get("index", -1),
            result=params.get("result"),
            error=WorkerError.from_wire(error, method=method) if error is not None else None,
        )
    if kind == "progress":
        return Progress(done=params.get("done"), total=params.get("total"), message=params.get("message"))
    return None
