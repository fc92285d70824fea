"""`PhotoWorkerUDF`'s worker flags from what Ray assigned the actor, without Ray: a stand-in `ray` module answers
`get_runtime_context().get_assigned_resources()` as Ray does inside an actor (the suite with a real Ray is
test_ray.py). What the worker reports as its budget shows the flag arrived."""

from __future__ import annotations

import sys
import types

import pytest
from conftest import async_test

from photoworker_client.ray import PhotoWorkerUDF


def assigned(monkeypatch, resources):
    """Makes `import ray` give a module whose runtime context reports `resources` (None: Ray is not installed)."""
    if resources is None:
        monkeypatch.setitem(sys.modules, "ray", None)
        return
    context = types.SimpleNamespace(get_assigned_resources=lambda: dict(resources))
    monkeypatch.setitem(sys.modules, "ray", types.SimpleNamespace(get_runtime_context=lambda: context))


async def budget_of(udf: PhotoWorkerUDF) -> dict:
    try:
        return (await udf.stats())["memory"]
    finally:
        await udf.close()


@async_test
async def test_the_reserved_memory_becomes_max_memory(monkeypatch, worker_bin):
    # Ray reports memory in bytes, as a float.
    assigned(monkeypatch, {"CPU": 2.0, "memory": 768.0 * 2**20})
    udf = PhotoWorkerUDF(method="ping", executable=worker_bin)
    assert (udf.max_jobs, udf.max_memory) == (2, 768 * 2**20)
    memory = await budget_of(udf)
    assert memory["origin"].startswith("--max-memory 768 MiB"), memory


@async_test
async def test_max_memory_overrides_the_reservation(monkeypatch, worker_bin):
    assigned(monkeypatch, {"CPU": 1.0, "memory": 768.0 * 2**20})
    memory = await budget_of(PhotoWorkerUDF(method="ping", executable=worker_bin, max_memory="1G"))
    assert memory["origin"].startswith("--max-memory 1 GiB"), memory


@async_test
async def test_max_memory_in_args_wins_over_the_reservation(monkeypatch, worker_bin):
    assigned(monkeypatch, {"CPU": 1.0, "memory": 768.0 * 2**20})
    udf = PhotoWorkerUDF(method="ping", executable=worker_bin, args=["--max-memory", "1G"])
    assert udf.max_memory is None
    memory = await budget_of(udf)
    assert memory["origin"].startswith("--max-memory 1 GiB"), memory


@pytest.mark.parametrize("resources", [{"CPU": 1.0}, None], ids=["nothing-reserved", "not-importable"])
@async_test
async def test_without_a_reservation_the_worker_keeps_its_default(monkeypatch, worker_bin, resources):
    assigned(monkeypatch, resources)
    udf = PhotoWorkerUDF(method="ping", executable=worker_bin)
    assert udf.max_memory is None
    memory = await budget_of(udf)
    assert memory["origin"].startswith("90% of "), memory


def test_max_memory_both_as_an_argument_and_in_args_is_refused(monkeypatch):
    assigned(monkeypatch, None)
    with pytest.raises(ValueError):
        PhotoWorkerUDF(method="ping", args=["--max-memory", "1G"], max_memory="2G")
