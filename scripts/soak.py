#!/usr/bin/env python3
"""Soak test for photoworker (stdlib only; bounded, stops by itself).

Sends N mixed requests (default 100,000) with up to M in flight (default 1,000), cancels a random
10% of them, and checks the protocol invariants:
  * every request gets exactly one final reply (result or error), with the right id;
  * nothing about a request (no $/progress) arrives after its final reply;
  * the worker's memory stays flat: current RSS (/proc) and peakRSSBytes (worker.stats) are
    sampled every 5% of the run; the tail must not grow beyond --rss-growth over the early samples;
  * shutdown + exit end the process with code 0.
Exit status 0 when all hold, 1 otherwise. Prints a summary (and JSON with --json).

  python3 scripts/soak.py                       # release build if present, else debug
  python3 scripts/soak.py --requests 5000 --binary .build/debug/photoworker
"""
import argparse, json, os, random, subprocess, sys, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.normpath(os.path.join(ROOT, "corpus"))


def default_binary():
    for c in (".build/release/photoworker", ".build/debug/photoworker"):
        p = os.path.join(ROOT, c)
        if os.access(p, os.X_OK):
            return p
    sys.exit("no photoworker build found; pass --binary")


def rss_bytes(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


class Soak:
    def __init__(self, a):
        self.a = a
        self.rng = random.Random(a.seed)
        small = sorted(os.path.join(CORPUS, "pngsuite", f) for f in os.listdir(os.path.join(CORPUS, "pngsuite"))
                       if f.startswith("bas") and f.endswith(".png"))
        self.small = small or [os.path.join(CORPUS, "photos", "logo.png")]
        self.proc = subprocess.Popen([a.binary, "--max-queue", str(max(10_000, a.in_flight * 2))] + a.worker_args,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
        self.lock = threading.Condition()
        self.in_flight = 0
        self.final = {}          # id -> number of final replies
        self.outcome = {}        # id -> "ok" | error code
        self.violations = []
        self.sent = 0
        self.cancelled_sent = 0
        self.samples = []        # (requests answered, VmRSS, peakRSSBytes)
        self.stats_waiters = {}
        self.next_stats_id = -1
        self.max_seen = 0

    # --- wire ---
    def write(self, obj):
        self.proc.stdin.write((json.dumps(obj, separators=(",", ":")) + "\n").encode())

    def request_for(self, i):
        r = self.rng.random()
        src = {"path": self.rng.choice(self.small)}
        if r < 0.25: return "ping", None
        if r < 0.40: return "diagnostics.sleep", {"ms": self.rng.randint(0, 100)}
        if r < 0.50: return "diagnostics.spin", {"ms": self.rng.randint(0, 2)}
        if r < 0.65: return "image.info", {"source": src}
        if r < 0.75: return "image.thumbnail", {"source": src, "size": 16, "output": {"inline": True}}
        if r < 0.82: return "diagnostics.fanout", {"children": 3, "ms": self.rng.randint(0, 5)}
        if r < 0.88: return "jobs.list", None
        if r < 0.93: return "no.such.method", None
        return "diagnostics.sleep", {"ms": "not a number"}

    # --- reader ---
    def reader(self):
        buf = b""
        out = self.proc.stdout
        while True:
            chunk = out.read(1 << 16)
            if not chunk:
                break
            buf += chunk
            *lines, buf = buf.split(b"\n")
            for line in lines:
                if line:
                    self.handle(json.loads(line))
        with self.lock:
            self.eof = True
            self.lock.notify_all()

    def handle(self, m):
        if "method" in m:
            pid = (m.get("params") or {}).get("id")
            with self.lock:
                if isinstance(pid, int) and self.final.get(pid, 0) > 0:
                    self.violations.append(f"notification for {pid} after its final reply")
            return
        rid = m.get("id")
        with self.lock:
            if isinstance(rid, int) and rid < 0:
                self.stats_waiters[rid] = m
                self.lock.notify_all()
                return
            if not isinstance(rid, int):
                self.violations.append(f"reply without a request id: {m}")
                return
            n = self.final.get(rid, 0)
            if n == 0:
                self.in_flight -= 1
                self.outcome[rid] = "ok" if "result" in m else m["error"]["code"]
            else:
                self.violations.append(f"second final reply for {rid}")
            self.final[rid] = n + 1
            self.lock.notify_all()

    def stats(self):
        with self.lock:
            sid = self.next_stats_id
            self.next_stats_id -= 1
            self.write({"jsonrpc": "2.0", "id": sid, "method": "worker.stats"})
            self.lock.wait_for(lambda: sid in self.stats_waiters, timeout=60)
            return (self.stats_waiters.pop(sid, {}).get("result") or {})

    def sample(self):
        s = self.stats()
        with self.lock:
            answered = len(self.final)
        self.samples.append((answered, rss_bytes(self.proc.pid), s.get("peakRSSBytes", 0)))

    # --- run ---
    def run(self):
        a = self.a
        t = threading.Thread(target=self.reader, daemon=True)
        self.eof = False
        t.start()
        start = time.time()
        self.sample()
        pending_cancels = []
        every = max(1, a.requests // 20)
        for i in range(1, a.requests + 1):
            method, params = self.request_for(i)
            msg = {"jsonrpc": "2.0", "id": i, "method": method}
            if params is not None:
                msg["params"] = params
            with self.lock:
                if not self.lock.wait_for(lambda: self.in_flight < a.in_flight or self.eof, timeout=120):
                    self.violations.append(f"stalled at {i} with {self.in_flight} in flight")
                    break
                if self.eof:
                    self.violations.append("worker closed its output early")
                    break
                self.in_flight += 1
                self.max_seen = max(self.max_seen, self.in_flight)
                self.write(msg)
                self.sent += 1
            if self.rng.random() < a.cancel_rate:
                pending_cancels.append(i)
            # Cancels go out a few requests later, so some hit running jobs and some finished ones.
            while pending_cancels and (self.rng.random() < 0.5 or len(pending_cancels) > 8):
                cid = pending_cancels.pop(0)
                self.write({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": cid}})
                self.cancelled_sent += 1
            if i % every == 0:
                self.sample()
        for cid in pending_cancels:
            self.write({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": cid}})
            self.cancelled_sent += 1
        with self.lock:
            self.lock.wait_for(lambda: len(self.final) >= self.sent or self.eof, timeout=300)
        self.sample()
        elapsed = time.time() - start
        self.write({"jsonrpc": "2.0", "id": 0, "method": "shutdown"})
        with self.lock:
            self.lock.wait_for(lambda: 0 in self.final, timeout=60)
        self.write({"jsonrpc": "2.0", "method": "exit"})
        self.proc.stdin.close()
        try:
            code = self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = "timeout"
        t.join(timeout=10)
        return self.report(elapsed, code)

    def report(self, elapsed, code):
        a = self.a
        missing = [i for i in range(1, self.sent + 1) if self.final.get(i, 0) == 0]
        if missing:
            self.violations.append(f"{len(missing)} requests without a final reply (first {missing[:5]})")
        if code != 0:
            self.violations.append(f"exit code {code}")
        counts = {}
        for v in self.outcome.values():
            counts[str(v)] = counts.get(str(v), 0) + 1
        rss = [s[1] for s in self.samples if s[1]]
        peak = [s[2] for s in self.samples if s[2]]
        # Flatness: the largest RSS in the second half vs the largest in the first quarter (after warm-up).
        q = max(1, len(rss) // 4)
        early = max(rss[1:q + 1] or rss[:1] or [0])
        late = max(rss[len(rss) // 2:] or [0])
        growth = (late / early - 1) if early else 0
        if growth > a.rss_growth:
            self.violations.append(f"RSS grew {growth:.0%} (early {early >> 20} MiB, late {late >> 20} MiB)")
        summary = {
            "requests": self.sent, "cancelsSent": self.cancelled_sent, "inFlightLimit": a.in_flight, "inFlightSeen": self.max_seen,
            "seconds": round(elapsed, 1), "requestsPerSecond": round(self.sent / elapsed) if elapsed else None,
            "outcomes": counts, "rssMiB": [round(x / 2**20, 1) for x in rss],
            "peakRSSMiB": round(max(peak or [0]) / 2**20, 1), "rssGrowth": round(growth, 3),
            "exitCode": code, "violations": self.violations[:20],
        }
        if a.json:
            print(json.dumps(summary))
        else:
            print(f"soak: {self.sent} requests ({self.cancelled_sent} cancels) in {elapsed:.1f} s "
                  f"({summary['requestsPerSecond']}/s), {self.max_seen} in flight at most (limit {a.in_flight})")
            print(f"  outcomes: {counts}")
            print(f"  RSS samples (MiB): {summary['rssMiB']}")
            print(f"  worker.stats peakRSSBytes: {summary['peakRSSMiB']} MiB; RSS growth late/early {growth:+.1%}")
            print(f"  exit code {code}; violations: {len(self.violations)}")
            for v in self.violations[:20]:
                print("   -", v)
        return 0 if not self.violations else 1


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--binary", default=None)
    p.add_argument("--requests", type=int, default=100_000)
    p.add_argument("--in-flight", type=int, default=1000)
    p.add_argument("--cancel-rate", type=float, default=0.10)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--rss-growth", type=float, default=0.5, help="allowed late/early RSS growth (default 0.5 = 50%%)")
    p.add_argument("--json", action="store_true")
    p.add_argument("worker_args", nargs="*", help="extra worker flags (after --)")
    a = p.parse_args()
    a.binary = a.binary or default_binary()
    sys.exit(Soak(a).run())


if __name__ == "__main__":
    main()
