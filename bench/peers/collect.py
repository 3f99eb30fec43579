#!/usr/bin/env python3
"""Collects the peers' figures into peers.json (format: the report's contract).

Usage: collect.py DIR OUT.json. DIR holds, per peer, NAME.txt with lines
"FIGURE VALUE" (hot_ns, keys_1k_ns, keys_1m_ns once per repetition;
bytes_per_key once) and nginx.json (agree.py). A peer without its file is
left out; a figure without values is absent (the report shows "-").
"""
import datetime
import json
import os
import socket
import statistics
import subprocess
import sys

PEERS = [
    ("go_x_time_rate", "token_bucket", "golang-golang-x-time-dev",
     "golang.org/x/time/rate Limiter (float64 tokens), go test -bench; hot: AllowN(now, 1), time passed in; "
     "keys: map[string]*rate.Limiter, uniform; bytes: runtime.MemStats HeapAlloc after GC, map + limiters"),
    ("go_juju_ratelimit", "token_bucket", "golang-github-juju-ratelimit-dev",
     "github.com/juju/ratelimit Bucket (quantum 1, fillInterval W/N), go test -bench; hot: TakeAvailable(1), "
     "time from a simulated Clock (the API's fake-time hook); keys: map[string]*ratelimit.Bucket, uniform; "
     "bytes: runtime.MemStats HeapAlloc after GC"),
    ("guava", "token_bucket", "libguava-java",
     "Guava RateLimiter (SmoothBursty, maxBurstSeconds 1), warmed-up Java loop, System.nanoTime; hot: "
     "tryAcquire(), time from a simulated SleepingStopwatch via Guava's package-private testing factory "
     "(no reflection; us resolution); keys: HashMap<String, RateLimiter>, uniform; bytes: heap used after "
     "System.gc()"),
    ("node_rlf", "fixed_window", "rate-limiter-flexible (npm)",
     "rate-limiter-flexible RateLimiterMemory (points 100, duration 1 s), Node loop, process.hrtime.bigint; "
     "hot: await consume(key) with Date faked to the simulated ms; keys: the limiter's own store, uniform; "
     "bytes: heapUsed after gc() (records and their expiry timers)"),
]
FIGURES = ("hot_ns", "keys_1k_ns", "keys_1m_ns")


def version(pkg):
    if pkg.endswith("(npm)"):
        path = os.path.join(os.path.dirname(__file__), "node", "node_modules", "rate-limiter-flexible",
                            "package.json")
        try:
            with open(path) as f:
                return "rate-limiter-flexible " + json.load(f)["version"] + " (npm)"
        except OSError:
            return None
    r = subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    return "%s %s (Debian)" % (pkg, r.stdout) if r.returncode == 0 else None


def read_figures(path):
    vals = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            parts = line.split()
            if len(parts) != 2:
                sys.exit("%s:%d: '%s': expected 'FIGURE VALUE'" % (path, n, line.rstrip("\n")))
            try:
                vals.setdefault(parts[0], []).append(float(parts[1]))
            except ValueError:
                sys.exit("%s:%d: '%s' is not a number" % (path, n, parts[1]))
    return vals


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: collect.py DIR OUT.json")
    d, out = sys.argv[1], sys.argv[2]
    peers = []
    for name, nearest, pkg, note in PEERS:
        path = os.path.join(d, name + ".txt")
        if not os.path.exists(path):
            continue
        vals = read_figures(path)
        p = {"name": name, "nearest": nearest, "version": version(pkg)}
        for fig in FIGURES:
            v = vals.get(fig)
            if v:
                p[fig] = {"median": statistics.median(v), "min": min(v), "max": max(v), "reps": len(v)}
        if vals.get("bytes_per_key"):
            p["bytes_per_key"] = vals["bytes_per_key"][-1]
        p["note"] = note
        peers.append(p)
    nginx = os.path.join(d, "nginx.json")
    if os.path.exists(nginx):
        with open(nginx) as f:
            agreement = json.load(f)
        r = subprocess.run(["nginx", "-v"], stderr=subprocess.PIPE, text=True)
        peers.append({"name": "nginx_limit_req", "nearest": "leaky_bucket",
                      "version": r.stderr.strip().replace("nginx version: ", ""),
                      "agreement": agreement,
                      "note": "a real nginx (limit_req rate=%dr/s burst=%d nodelay) on a loopback port, driven at "
                              "real time by an HTTP client; each answer compared with ratelab replay --algo "
                              "leaky_bucket on the sent times; no ns/op (an HTTP round trip)"
                              % (agreement["rate_per_s"], agreement["burst"])})
    ctx = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "host": socket.gethostname()}
    with open(out, "w") as f:
        json.dump({"context": ctx, "peers": peers}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
