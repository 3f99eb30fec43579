#!/usr/bin/env python3
"""nginx limit_req against ratelab's leaky_bucket, decision by decision.

A real nginx (nginx-core) on a free 127.0.0.1 port, with a temporary prefix
and configuration (limit_req_zone keyed by the query argument k, rate R r/s,
burst B, nodelay, status 429), is driven at real time by a real HTTP client
(Python's http.client on one keep-alive connection) following a planned
schedule of arrivals on a few keys. Each request's send time is recorded
(CLOCK_MONOTONIC, ns from the start), and the recorded times and keys are
replayed through `ratelab replay --algo leaky_bucket --limit R --window 1s
--burst B`; the report is the share of requests on which nginx's answer
(200 admitted, 429 rejected) and ratelab's agree.

Coarse on purpose: nginx keeps milliseconds, and the client's scheduling
jitter is a few ms. The schedule is planned on the exact model so that no
decision lies within MARGIN_MS of its boundary (a queue delay equal to
B / R s): a delay moves by at most twice the jitter, so jitter cannot change
a decision, and any disagreement is a difference of semantics. That holds
when each request's round trip (nginx decides within it) plus nginx's 1 ms
is below the recorded schedule's closest margin; a run where it does not (a
machine too loaded to send on time) is void and run again, at most ATTEMPTS
times, then the script fails rather than report a disagreement jitter made.

Usage: agree.py RATELAB REQUESTS OUT.json
"""
import http.client
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

RATE = 10         # r/s: one request served per 100 ms
BURST = 2         # at most 2 waiting behind the one in service
KEYS = 2
MARGIN_MS = 20
ATTEMPTS = 3      # a run whose round trips could have moved a decision is void and run again
SERVICE_MS = 1000 // RATE


def plan(n, seed=12):
    """Arrival times (ms) and keys, each decision at least MARGIN_MS from its boundary."""
    rng = random.Random(seed)
    served = {}       # key -> when its last admitted request is served, ms
    out, t = [], 200
    limit = BURST * SERVICE_MS
    while len(out) < n:
        t += rng.choice([0, 0, 0, 10, 20, 30, 50, 100, 250])
        key = rng.randrange(KEYS)
        for bump in range(0, 200, 5):
            at = t + bump
            s = max(at, served.get(key, -10**9) + SERVICE_MS)
            if abs((s - at) - limit) >= MARGIN_MS:
                break
        else:
            continue
        t = at
        if s - at <= limit:
            served[key] = s
        out.append((t, "k%d" % key))
    return out


def min_margin_ms(times_ns, keys):
    """The exact model on the sent times: the closest any decision came to its boundary, ms."""
    served, best = {}, float("inf")
    limit = BURST * SERVICE_MS * 1000000
    for t, k in zip(times_ns, keys):
        s = max(t, served.get(k, -10**18) + SERVICE_MS * 1000000)
        best = min(best, abs((s - t) - limit))
        if s - t <= limit:
            served[k] = s
    return best / 1e6


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


CONF = """
daemon off;
master_process off;
worker_processes 1;
pid {p}/nginx.pid;
error_log {p}/error.log warn;
events {{ worker_connections 16; }}
http {{
    access_log off;
    client_body_temp_path {p}/body;
    proxy_temp_path {p}/proxy;
    fastcgi_temp_path {p}/fastcgi;
    uwsgi_temp_path {p}/uwsgi;
    scgi_temp_path {p}/scgi;
    keepalive_requests 100000;
    keepalive_timeout 600s;
    limit_req_zone $arg_k zone=peers:1m rate={rate}r/s;
    limit_req_status 429;
    server {{
        listen 127.0.0.1:{port};
        location / {{
            limit_req zone=peers burst={burst} nodelay;
            root {p}/www;
        }}
    }}
}}
"""


def drive(conn, schedule):
    """Sends the schedule at real time on conn: send times (ns from the start), answers (1/0), round trips (ns)."""
    sent, answers, rtt = [], [], []
    t0 = time.monotonic_ns()
    for at_ms, key in schedule:
        wait = t0 + at_ms * 1000000 - time.monotonic_ns()
        if wait > 0:
            time.sleep(wait / 1e9)
        t = time.monotonic_ns()
        sent.append(t - t0)
        conn.request("GET", "/ok.txt?k=" + key)
        r = conn.getresponse()
        r.read()
        rtt.append(time.monotonic_ns() - t)
        if r.status not in (200, 429):
            sys.exit("nginx answered %d" % r.status)
        answers.append(1 if r.status == 200 else 0)
    return sent, answers, rtt


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: agree.py RATELAB REQUESTS OUT.json")
    ratelab, n, out_path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    prefix = tempfile.mkdtemp(prefix="ratelab-nginx-")
    port = free_port()
    os.mkdir(os.path.join(prefix, "www"))
    with open(os.path.join(prefix, "www", "ok.txt"), "w") as f:
        f.write("ok\n")  # a static file: `return` would answer in the rewrite phase, before limit_req
    with open(os.path.join(prefix, "nginx.conf"), "w") as f:
        f.write(CONF.format(p=prefix, port=port, rate=RATE, burst=BURST))
    proc = subprocess.Popen([nginx, "-p", prefix, "-c", os.path.join(prefix, "nginx.conf")],
                            stderr=subprocess.PIPE)
    try:
        conn = None
        for _ in range(200):  # up to 2 s for nginx to listen
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                conn.connect()
                break
            except OSError:
                conn = None
                if proc.poll() is not None:
                    sys.exit("nginx exited: " + proc.stderr.read().decode(errors="replace"))
                time.sleep(0.01)
        if conn is None:
            sys.exit("nginx did not listen on 127.0.0.1:%d" % port)
        schedule = plan(n)
        for attempt in range(1, ATTEMPTS + 1):
            sent, answers, rtt = drive(conn, schedule)
            # valid when no decision can have moved: nginx decided each request between its
            # send and its answer, ratelab at the send; within 1 ms (nginx keeps ms) plus that
            # round trip of the send, every decision must stay on its side of its boundary
            margin = min_margin_ms(sent, [k for _, k in schedule])
            if max(rtt) / 1e6 + 1 < margin:
                break
            print("nginx: attempt %d void: a round trip of %.1f ms against a closest decision %.1f ms from its "
                  "boundary (a loaded machine); again" % (attempt, max(rtt) / 1e6, margin), file=sys.stderr)
            if attempt == ATTEMPTS:
                sys.exit("nginx: %d attempts void: the machine is too loaded for a real-time agreement" % ATTEMPTS)
            time.sleep(BURST / RATE + 1)  # every key's queue empty again before the next attempt
        conn.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(prefix, ignore_errors=True)
    trace = "".join("%d %s\n" % (t, k) for t, (_, k) in zip(sent, schedule))
    rl = subprocess.run([ratelab, "replay", "--algo", "leaky_bucket", "--limit", str(RATE), "--window", "1s",
                         "--burst", str(BURST)], input=trace.encode(), stdout=subprocess.PIPE, check=True)
    ours = [int(x) for x in rl.stdout.split()]
    if len(ours) != len(answers):
        sys.exit("ratelab replay answered %d lines for %d requests" % (len(ours), len(answers)))
    agree = sum(a == b for a, b in zip(answers, ours))
    late = max(s - at * 1000000 for s, (at, _) in zip(sent, schedule))
    result = {"requests": len(answers), "agree": agree, "agree_pct": 100.0 * agree / len(answers),
              "admitted_nginx": sum(answers), "admitted_ratelab": sum(ours),
              "rate_per_s": RATE, "burst": BURST, "keys": KEYS, "margin_ms": MARGIN_MS,
              "max_send_lateness_ms": late / 1e6, "max_round_trip_ms": max(rtt) / 1e6, "attempts": attempt,
              "min_margin_ms": min_margin_ms(sent, [k for _, k in schedule])}
    with open(out_path, "w") as f:
        json.dump(result, f, indent=1)
    print("nginx limit_req vs ratelab leaky_bucket: %d/%d decisions agree (%.2f%%), admitted %d vs %d, "
          "sends at most %.1f ms late, closest decision %.1f ms from its boundary"
          % (agree, len(answers), result["agree_pct"], sum(answers), sum(ours), late / 1e6,
             result["min_margin_ms"]))


if __name__ == "__main__":
    main()
