#!/usr/bin/env python3
"""photos per second through Ray Data next to the plain clients, on this machine, in one run (issue #19).

  .build/test-venv/bin/python3 bench/ray_bench.py [--bin .build/release/photoworker] [--count 80] [--method photo.process]

(the test venv has Ray: scripts/test-env.sh installs it). Three ways to push --count corpus photos through the same
release binary, each twice, alternating:
  single worker:  one worker with --max-jobs 2, every request in flight at once (the worker is parallel inside);
  WorkerPool:     the Python client's pool of 2 workers with --max-jobs 1;
  Ray Data:       ray.init(num_cpus=2), map_batches(PhotoWorkerUDF, batch_size=8, num_cpus=1,
                  compute=ActorPoolStrategy(size=2)): 2 actors, one worker each with --max-jobs 1;
                  and 1 actor with num_cpus=2, its worker with --max-jobs 2 (the single worker's set-up).
Ray's start-up (ray.init, ~3 s here) is outside the timing; the dataset's actor start is inside it.
"""
import argparse, asyncio, os, pathlib, shutil, sys, tempfile, time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "clients/python"))
from photoworker_client import Worker, WorkerPool  # noqa: E402


def inputs(count, work):
    photos = sorted(p for p in (ROOT / "corpus/photos").glob("*.jpg") if not p.name.startswith("libjpeg-monkey12"))
    paths = []
    for i in range(count):
        dst = work / f"in-{i:04d}.jpg"
        os.link(photos[i % len(photos)], dst)  # distinct names: the decode cache cannot shortcut
        paths.append(str(dst))
    return paths


def params(method, out):
    return {"count": 5, "output": {"dir": str(out)}} if method == "photo.process" else {"count": 5}


async def single(binary, paths, method, out):
    async with Worker.spawn(binary, ["--max-jobs", "2"]) as w:
        t0 = time.perf_counter()
        await asyncio.gather(*(w.call(method, {**params(method, out), "source": {"path": p}}) for p in paths))
        return time.perf_counter() - t0


async def pool(binary, paths, method, out):
    async with WorkerPool(2, binary, ["--max-jobs", "1"]) as pool:
        t0 = time.perf_counter()
        await asyncio.gather(*(pool.call(method, {**params(method, out), "source": {"path": p}}) for p in paths))
        return time.perf_counter() - t0


def through_ray(binary, paths, method, out, actors=2):
    """`actors` actors sharing the 2 CPUs (each worker gets --max-jobs = its actor's CPUs)."""
    import ray
    from photoworker_client.ray import PhotoWorkerUDF

    t0 = time.perf_counter()
    ds = ray.data.from_items([{"path": p} for p in paths]).map_batches(
        PhotoWorkerUDF, batch_size=8, num_cpus=2 // actors, compute=ray.data.ActorPoolStrategy(size=actors),
        fn_constructor_kwargs={"method": method, "params": params(method, out), "executable": binary})
    rows = ds.take_all()
    elapsed = time.perf_counter() - t0
    assert len(rows) == len(paths) and not any(r["error"] for r in rows)
    return elapsed


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=str(ROOT / ".build/release/photoworker"))
    ap.add_argument("--count", type=int, default=80)
    ap.add_argument("--method", default="photo.process")
    a = ap.parse_args()
    if not os.access(a.bin, os.X_OK):
        sys.exit(f"build first: swift build -c release ({a.bin} not found)")
    import ray

    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    # The actors import the client too (on a cluster: pip install "photoworker-client[ray]" on every node).
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "clients/python"), os.environ.get("PYTHONPATH")]))
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    work = pathlib.Path(tempfile.mkdtemp(prefix="pw-raybench-"))
    try:
        paths = inputs(a.count, work)
        times = {"single worker": [], "WorkerPool(2)": [], "Ray Data, 2 actors": [], "Ray Data, 1 actor x 2 CPUs": []}
        for _ in range(2):
            times["single worker"].append(asyncio.run(single(a.bin, paths, a.method, work / "out")))
            times["WorkerPool(2)"].append(asyncio.run(pool(a.bin, paths, a.method, work / "out")))
            times["Ray Data, 2 actors"].append(through_ray(a.bin, paths, a.method, work / "out"))
            times["Ray Data, 1 actor x 2 CPUs"].append(through_ray(a.bin, paths, a.method, work / "out", actors=1))
    finally:
        ray.shutdown()
        shutil.rmtree(work)
    print(f"{a.count} corpus photos, {a.method}, 2 cores, load {os.getloadavg()[0]:.1f}")
    base = a.count / min(times["single worker"])
    for name, ts in times.items():
        rate = a.count / min(ts)
        print(f"  {name:20} {rate:6.1f} photos/s (best of {len(ts)}; {', '.join(f'{t:.2f}' for t in ts)} s)  {rate / base:5.2f}x single")


if __name__ == "__main__":
    main()
