"""photoworker under Ray Data (a local Ray with 2 CPUs): the documented example on corpus photos, error rows for
broken files, cancellation through Ray, and no worker process left after the dataset, ray.kill or ray.shutdown.
Skipped when Ray is not installed (scripts/test.sh installs it into the test venv; `--quick` leaves this out)."""

from __future__ import annotations

import json
import os
import signal
import time

import pytest
from conftest import CORPUS

if os.environ.get("PHOTOWORKER_REQUIRE_RAY"):  # scripts/test-ray.sh: a missing Ray fails, never skips
    import numpy as np
    import ray
else:
    ray = pytest.importorskip("ray", reason="Ray is installed by scripts/test-env.sh for the full test run")
    np = pytest.importorskip("numpy")

from photoworker_client.ray import PhotoWorkerUDF, process_folder  # noqa: E402

PHOTOS = [str(CORPUS / "photos" / n) for n in ("girl-1.jpg", "animal-2.jpg", "car-1.jpg", "coffee.png")]
BROKEN = str(CORPUS / "broken" / "pillow-truncated_jpeg.jpg")


@pytest.fixture(scope="module")
def local_ray(worker_bin):
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    # Ray's worker processes import the client as the driver does (on a cluster it is installed on every node).
    client = str(CORPUS.parent / "clients" / "python")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [client, os.environ.get("PYTHONPATH")]))
    before = set(workers_of(worker_bin))
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False,
             ignore_reinit_error=True)
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    # An actor that is never closed: its worker must go with ray.shutdown().
    lingering = ray.remote(PhotoWorkerUDF).options(num_cpus=0).remote(method="ping", executable=worker_bin)
    pid = ray.get(lingering.worker_pid.remote())
    yield
    ray.shutdown()
    wait_for_workers_to_exit((set(workers_of(worker_bin)) - before) | {pid}, worker_bin, "every worker after ray.shutdown()")


def workers_of(binary: str) -> list[int]:
    """Live processes running this photoworker binary. When the suites start the worker through
    scripts/photoworker-diagnostics (which execs the built binary with --diagnostics), the processes run the
    binary that PHOTOWORKER_REAL_BIN names."""
    found = []
    target = os.path.realpath(os.environ.get("PHOTOWORKER_REAL_BIN") or binary)
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.path.realpath(f"/proc/{entry}/exe") != target:
                continue
            with open(f"/proc/{entry}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    continue
        except (FileNotFoundError, PermissionError, ProcessLookupError):
            continue
        found.append(int(entry))
    return found


# How long Ray may take to tear an actor down once it is done with it (ray.shutdown, a finished dataset's pool, a
# kill): asynchronous in Ray, over a minute on a loaded 2-core machine, and a finished dataset's pool actor was once
# still alive after 180 s (Ray does not promise to end them: ray-project/ray#42366). That is Ray's part: past this,
# the test ends the actor's process itself, which is no weaker a check (an actor killed outright is the harder case
# for the worker) and keeps the wait from costing the test command a minute and a half. The worker's own part,
# exiting once its actor is gone, is what `wait_for_workers_to_exit` checks, within WORKER_EXIT seconds of its
# parent's end.
RAY_TEARDOWN = 30
WORKER_EXIT = 20


def parent_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (FileNotFoundError, ProcessLookupError, ValueError):
        return None


def wait_for_workers_to_exit(pids, worker_bin: str, what: str) -> None:
    """Waits until none of `pids` runs: each may wait for Ray to end its actor (RAY_TEARDOWN in all, then the actor's
    process is killed here), and must exit within WORKER_EXIT seconds once its parent has gone (reparented or no longer
    there)."""
    pids = set(pids)
    parents = {pid: parent_of(pid) for pid in pids}
    orphaned_at: dict[int, float] = {}
    deadline = time.monotonic() + RAY_TEARDOWN
    while True:
        alive = pids & set(workers_of(worker_bin))
        if not alive:
            return
        now = time.monotonic()
        for pid in alive:
            parent = parent_of(pid)
            if pid not in orphaned_at and (parent != parents[pid] or not os.path.exists(f"/proc/{parents[pid]}")):
                orphaned_at[pid] = now
            if pid in orphaned_at and now - orphaned_at[pid] > WORKER_EXIT:
                pytest.fail(f"{what}: worker {pid} still runs {WORKER_EXIT} s after its parent {parents[pid]} ended")
        if now > deadline:
            for pid in alive - set(orphaned_at):
                if parents[pid] in (None, os.getpid(), os.getppid()):  # not an actor's process: never end this test's own
                    pytest.fail(f"{what}: after {RAY_TEARDOWN} s worker {pid} still runs under {parents[pid]}")
                print(f"{what}: after {RAY_TEARDOWN} s Ray has not ended the actor {parents[pid]} of worker {pid}; "
                      "ending it here")
                try:
                    os.kill(parents[pid], signal.SIGKILL)
                except (ProcessLookupError, TypeError):
                    pass
            deadline = float("inf")
        time.sleep(0.05)


def wait_until(check, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {seconds} s waiting for {what}")
        time.sleep(0.05)


def test_the_documented_example_with_an_error_row(local_ray, worker_bin, tmp_path):
    before = set(workers_of(worker_bin))
    ds = ray.data.from_items([{"path": p} for p in PHOTOS + [BROKEN]])
    out = ds.map_batches(PhotoWorkerUDF, batch_size=3, num_cpus=1, compute=ray.data.ActorPoolStrategy(size=2),
                         fn_constructor_kwargs={"method": "photo.process",
                                                "params": {"count": 5, "output": {"dir": str(tmp_path / "out")}},
                                                "executable": worker_bin})
    rows = {r["path"]: r for r in out.take_all()}
    assert set(rows) == set(PHOTOS + [BROKEN])
    for path in PHOTOS:
        assert rows[path]["error"] == "", rows[path]["error"]
        result = json.loads(rows[path]["result"])
        assert os.path.exists(result["sticker"]["path"]) and 1 <= len(result["palette"]) <= 5
    error = json.loads(rows[BROKEN]["error"])
    assert rows[BROKEN]["result"] == "" and error["code"] == -32002
    # The dataset is done and let go, as at the end of a program's scope; once Ray ends its actors, their workers end.
    del out, ds
    wait_for_workers_to_exit(set(workers_of(worker_bin)) - before, worker_bin, "the dataset's workers")


def test_cancelling_the_ray_task_cancels_the_worker_job_and_the_actor_stays_usable(local_ray, worker_bin):
    actor = ray.remote(PhotoWorkerUDF).options(num_cpus=0).remote(
        method="diagnostics.sleep", params={"ms": 60_000}, executable=worker_bin)
    pid = ray.get(actor.worker_pid.remote())
    ref = actor.__call__.remote({"path": np.array(PHOTOS[:2])})
    wait_until(lambda: len(ray.get(actor.jobs.remote())) == 2, 20, "both sleeps to run")
    ray.cancel(ref)
    with pytest.raises((ray.exceptions.TaskCancelledError, ray.exceptions.RayTaskError)):
        ray.get(ref, timeout=20)
    wait_until(lambda: ray.get(actor.jobs.remote()) == [], 10, "$/cancelRequest to end the jobs")
    assert ray.get(actor.worker_pid.remote()) == pid, "the same worker serves on"
    ray.kill(actor)
    # Killed without any clean-up: the worker sees its parent die and exits.
    wait_for_workers_to_exit({pid}, worker_bin, "the killed actor's worker")


def test_the_memory_reserved_for_the_actor_is_its_workers_budget(local_ray, worker_bin):
    actor = ray.remote(PhotoWorkerUDF).options(num_cpus=0, memory=512 * 2**20).remote(
        method="ping", executable=worker_bin)
    memory = ray.get(actor.stats.remote())["memory"]
    assert memory["origin"].startswith("--max-memory 512 MiB"), memory
    pid = ray.get(actor.worker_pid.remote())
    ray.get(actor.close.remote())
    ray.kill(actor)
    wait_for_workers_to_exit({pid}, worker_bin, "the closed actor's worker")


CANCELLED_DRIVER = """
import json, sys
import ray
from photoworker_client.ray import PhotoWorkerUDF
ray.init(address=sys.argv[1], log_to_driver=False)
ray.data.DataContext.get_current().enable_progress_bars = False
rows = [{"path": p} for p in sys.argv[3:]]
ds = ray.data.from_items(rows).map_batches(
    PhotoWorkerUDF, batch_size=1, num_cpus=1, compute=ray.data.ActorPoolStrategy(size=1),
    fn_constructor_kwargs={"method": "diagnostics.sleep", "params": {"ms": 60000}, "executable": sys.argv[2]})
for batch in ds.iter_batches(batch_size=1):
    print("batch", flush=True)
"""


def test_a_cancelled_dataset_leaves_no_worker(local_ray, worker_bin, tmp_path):
    """A pipeline stopped with Ctrl-C while its photos are in flight: Ray ends the driver's actors, and their
    workers, jobs still running, are gone once their actors are (within WORKER_EXIT seconds)."""
    import signal
    import subprocess
    import sys

    before = set(workers_of(worker_bin))
    script = tmp_path / "driver.py"
    script.write_text(CANCELLED_DRIVER)
    env = dict(os.environ)  # PYTHONPATH set by the fixture: the driver imports the client too
    driver = subprocess.Popen([sys.executable, str(script), ray.get_runtime_context().gcs_address, worker_bin, *PHOTOS],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        # The actor starts its worker with the first batch and sends it the batch's photos at once.
        wait_until(lambda: len(set(workers_of(worker_bin)) - before) == 1, 60, "the dataset's worker to start")
        started = set(workers_of(worker_bin)) - before
        driver.send_signal(signal.SIGINT)
        driver.wait(timeout=30)
        wait_for_workers_to_exit(started, worker_bin, "the cancelled dataset's worker")
    finally:
        driver.kill()


def test_process_folder_writes_a_manifest(local_ray, worker_bin, tmp_path):
    folder = tmp_path / "photos"
    folder.mkdir()
    for p in PHOTOS[:3] + [BROKEN]:
        (folder / os.path.basename(p)).write_bytes(open(p, "rb").read())
    seen = []
    counts = process_folder(folder, tmp_path / "manifest.jsonl", method="image.palette", params={"count": 3},
                            executable=worker_bin, actors=1, progress=lambda done, total: seen.append((done, total)))
    assert counts == {"total": 4, "completed": 3, "failed": 1}
    lines = [json.loads(line) for line in (tmp_path / "manifest.jsonl").read_text().splitlines()]
    assert len(lines) == 4 and sum(1 for r in lines if r["error"]) == 1
    assert seen[-1] == (4, 4)

    import pyarrow.parquet as pq

    counts = process_folder([str(folder / "girl-1.jpg"), str(folder / "missing.jpg")], tmp_path / "manifest.parquet",
                            method="image.info", executable=worker_bin, actors=1, progress=lambda *_: None)
    assert counts == {"total": 2, "completed": 1, "failed": 1}
    table = pq.read_table(tmp_path / "manifest.parquet").to_pylist()
    errors = {r["path"].rsplit("/", 1)[1]: r["error"] for r in table}
    assert errors["girl-1.jpg"] == "" and json.loads(errors["missing.jpg"])["code"] == -32001
