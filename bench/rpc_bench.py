#!/usr/bin/env python3
"""Protocol benchmarks for the worker core (issue #2).

  python3 bench/rpc_bench.py [--bin .build/release/photoworker] [--pings 200000] [--cancels 200]

Prints pipelined ping throughput, ping round-trip latency p50/p99 (one request in flight), and cancel
latency (cancel written -> -32800 read) for a running diagnostics.spin. Peer figure for context: the MCP
Python SDK's stdio server answers about 900 pings/s on this 2-core machine.
"""
import argparse, json, os, subprocess, sys, threading, time

def spawn(binary, *args):
    # --diagnostics: the probes (diagnostics.sleep/spin) this benchmark drives.
    return subprocess.Popen([binary, "--diagnostics", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, bufsize=0)

def percentile(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]

def pipelined_pings(binary, n):
    p = spawn(binary)
    payload = b"".join(b'{"jsonrpc":"2.0","id":%d,"method":"ping"}\n' % i for i in range(n))
    start = time.perf_counter()
    writer = threading.Thread(target=lambda: (p.stdin.write(payload), p.stdin.flush()))
    writer.start()
    # Count newlines in big reads: a per-line Python loop would be the bottleneck, not the worker.
    got = 0
    fd = p.stdout.fileno()
    while got < n:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            break
        got += chunk.count(b"\n")
    elapsed = time.perf_counter() - start
    writer.join()
    p.stdin.close(); p.wait()
    return n / elapsed

def ping_latency(binary, n):
    p = spawn(binary)
    lat = []
    for i in range(n):
        t = time.perf_counter()
        p.stdin.write(b'{"jsonrpc":"2.0","id":%d,"method":"ping"}\n' % i)
        p.stdout.readline()
        lat.append((time.perf_counter() - t) * 1000)
    p.stdin.close(); p.wait()
    return percentile(lat, 50), percentile(lat, 99)

def cancel_latency(binary, n):
    p = spawn(binary)
    lat = []
    for i in range(n):
        rid = 2 * i
        p.stdin.write(b'{"jsonrpc":"2.0","id":%d,"method":"diagnostics.spin","params":{"ms":60000}}\n' % rid)
        # Wait until it is running (jobs.list shows it) so we measure cancelling real work.
        while True:
            p.stdin.write(b'{"jsonrpc":"2.0","id":%d,"method":"jobs.list"}\n' % (rid + 1))
            msg = json.loads(p.stdout.readline())
            if msg.get("result", {}).get("jobs"):
                break
        t = time.perf_counter()
        p.stdin.write(b'{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":%d}}\n' % rid)
        msg = json.loads(p.stdout.readline())
        lat.append((time.perf_counter() - t) * 1000)
        assert msg["id"] == rid and msg["error"]["code"] == -32800, msg
    p.stdin.close(); p.wait()
    return percentile(lat, 50), percentile(lat, 99)

def main():
    ap = argparse.ArgumentParser()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--bin", default=os.path.join(root, ".build/release/photoworker"))
    ap.add_argument("--pings", type=int, default=200_000)
    ap.add_argument("--latency", type=int, default=5_000)
    ap.add_argument("--cancels", type=int, default=200)
    a = ap.parse_args()
    if not os.access(a.bin, os.X_OK):
        sys.exit(f"build first: swift build -c release ({a.bin} not found)")
    rate = pipelined_pings(a.bin, a.pings)
    print(f"pipelined ping:   {rate:,.0f} /s  (goal 100,000/s; MCP Python SDK ~900/s: {rate/900:,.0f}x)")
    p50, p99 = ping_latency(a.bin, a.latency)
    print(f"ping round trip:  p50 {p50:.3f} ms  p99 {p99:.3f} ms")
    c50, c99 = cancel_latency(a.bin, a.cancels)
    print(f"cancel latency:   p50 {c50:.3f} ms  p99 {c99:.3f} ms  (goal p99 < 5 ms)")

if __name__ == "__main__":
    main()
