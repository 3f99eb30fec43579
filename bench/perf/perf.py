#!/usr/bin/python3
"""perf.py - ratelab's performance gate: exact per-operation figures from
callgrind, a committed baseline, history across commits, and the check.

  perf.py [--build DIR] [--plant] measure [--out FILE] [--entry NAME ...]
  perf.py [--build DIR] [--plant] check [--baseline FILE] [--now FILE]   (make perf-check)
  perf.py [--build DIR] baseline                                         (make perf-baseline)
  perf.py [--build DIR] compare BASE                                     (make perf-compare BASE=rev)
  perf.py wallclock [--quick FILE]                                       (information only)
--build defaults to build-perf; --plant compiles the planted slowdown (tests/perf).

Each entry runs in its own process under callgrind with a fixed simulated
cache (CALLGRIND_OPTS: the host's own caches are not asked, so the figures
do not depend on the machine's cpuid) and yields per operation:
  ir          instructions executed (Ir)
  d1_miss     L1 data misses (D1mr + D1mw)
  ll_miss     last-level misses, instruction and data (ILmr + DLmr + DLmw)
  bmiss       branch mispredictions, conditional and indirect (Bcm + Bim)
  est_cycles  L1 hits + 5 x LL hits + 35 x RAM hits (iai-callgrind's estimate), with
              accesses = Ir + Dr + Dw, RAM hits = ll_miss, LL hits = I1mr + D1mr + D1mw - RAM hits
              and L1 hits = accesses - LL hits - RAM hits.
The in-process entries are perf_driver's table (bench/perf/perf_driver.c): its
set-up runs uninstrumented, and a warm-up precedes the counted loop. The
program entries (PROGRAM_ENTRIES below) run the real `ratelab` twice, on a
short and a long input, and divide the difference by the difference in work:
start-up, set-up and output are the same in both and cancel.

The gate: THRESHOLDS, the one place where the limits are set. An entry fails
when a gated figure grows by more than its threshold (percent of the
baseline); improvements beyond it are reported with a reminder to refresh
the baseline. Exit status: 0 pass, 1 regression, 2 usage or input error.
"""
import argparse
import concurrent.futures
import csv
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BASELINE = os.path.join(ROOT, "results", "baseline", "perf.json")
HISTORY = os.path.join(ROOT, "results", "baseline", "history.csv")

# Percent growth over the baseline that fails the gate, per figure; None: shown, never gating.
THRESHOLDS = {"ir": 3.0, "est_cycles": 3.0, "d1_miss": None, "ll_miss": None, "bmiss": None}
FIGURES = ["ir", "est_cycles", "d1_miss", "ll_miss", "bmiss"]

# A fixed cache model: 32 KiB 8-way L1s and an 8 MiB 16-way LL, 64-byte lines.
CALLGRIND_OPTS = ["--tool=callgrind", "--cache-sim=yes", "--branch-sim=yes",
                  "--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64", "-q"]
EVENTS = ["Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw", "Bc", "Bcm", "Bi", "Bim"]


def replay_input(lines):
    """`T KEY` lines: 100 keys in turn, 1 ms apart (each key at 10/s against 100/s)."""
    return "".join("%d k%d\n" % (1000000000 + i * 1000000, i % 100) for i in range(lines))


def sim_scenario(duration_s):
    """The default poisson scenario with its duration replaced."""
    with open(os.path.join(ROOT, "sim", "scenarios", "poisson.ini")) as f:
        text = f.read()
    text, n = re.subn(r"(?m)^duration\s*=.*$", "duration = %ds" % duration_s, text)
    if n != 1:
        raise SystemExit("perf: sim/scenarios/poisson.ini has no single duration line")
    return text


def sim_requests(outdir):
    with open(os.path.join(outdir, "summary.csv")) as f:
        return sum(int(row["requests"]) for row in csv.DictReader(l for l in f if not l.startswith("#")))


# name, bench name, what, argv after `ratelab`, (kind, short, long) of the input.
PROGRAM_ENTRIES = [
    ("replay/gcra/line", None, "ratelab replay, per input line (parser and output included)",
     ["replay", "--algo", "gcra", "--limit", "100", "--window", "1s"], ("replay", 1000, 11000)),
    ("sim/poisson/request", None, "ratelab sim, per simulated request (default poisson scenario, 6 algorithms)",
     ["sim", "--no-timing", "--quiet", "--seed", "1"], ("sim", 2, 6)),
]


def fail(msg, status=2):
    print("perf: " + msg, file=sys.stderr)
    sys.exit(status)


def read_totals(path):
    events = totals = None
    with open(path) as f:
        for line in f:
            if line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("totals:"):
                totals = [int(x) for x in line.split()[1:]]
    if events is None or totals is None:
        fail("%s: no events/totals line" % path, 1)
    got = dict(zip(events, totals))
    return {e: got.get(e, 0) for e in EVENTS}


# The client's environment and path shift its stack, and so which cache sets it
# touches: every run gets this environment and runs the binary as ./NAME from a
# directory of fixed path length (measure()), whatever the checkout's path.
# RATELAB_HASH_SEED fixes the seed replay's key map would draw per run (sim/keymap.h),
# so its probe sequences, and the counts, repeat.
CLIENT_ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "RATELAB_HASH_SEED": "1"}


def callgrind(argv, tmp, tag, stdin_path=None, instr_at_start=True):
    out = os.path.join(tmp, "callgrind.%s.out" % tag)
    cwd = os.path.dirname(argv[0])
    argv = ["./" + os.path.basename(argv[0])] + argv[1:]
    cmd = [shutil.which("valgrind")] + CALLGRIND_OPTS + ["--instr-atstart=" + ("yes" if instr_at_start else "no"),
                                           "--callgrind-out-file=" + out] + argv
    stdin = open(stdin_path) if stdin_path else subprocess.DEVNULL
    try:
        r = subprocess.run(cmd, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd,
                           env=CLIENT_ENV)
    finally:
        if stdin_path:
            stdin.close()
    if r.returncode != 0:
        fail("%s exited %d:\n%s" % (" ".join(argv), r.returncode, r.stderr[-2000:]), 1)
    return read_totals(out), r.stdout


def figures(totals, ops):
    t = totals
    accesses = t["Ir"] + t["Dr"] + t["Dw"]
    ram = t["ILmr"] + t["DLmr"] + t["DLmw"]
    ll_hits = t["I1mr"] + t["D1mr"] + t["D1mw"] - ram
    l1_hits = accesses - ll_hits - ram
    per = lambda v: round(v / ops, 3)
    return {"ir": per(t["Ir"]), "est_cycles": per(l1_hits + 5 * ll_hits + 35 * ram),
            "d1_miss": per(t["D1mr"] + t["D1mw"]), "ll_miss": per(ram), "bmiss": per(t["Bcm"] + t["Bim"])}


def driver_entries(build):
    r = subprocess.run([os.path.join(build, "perf_driver"), "--list"], stdout=subprocess.PIPE, text=True, check=True)
    rows = []
    for line in r.stdout.splitlines():
        name, ops, bench, what = line.split("\t")
        rows.append({"name": name, "ops": int(ops), "bench": None if bench == "-" else bench, "what": what})
    return rows


def measure_driver(build, e, tmp):
    totals, out = callgrind([os.path.join(build, "perf_driver"), e["name"]], tmp, e["name"].replace("/", "_"),
                            instr_at_start=False)
    if out.strip() != "ops=%d" % e["ops"]:
        fail("%s: perf_driver said %r" % (e["name"], out.strip()), 1)
    return dict(e, totals=totals, **figures(totals, e["ops"]))


def measure_program(build, spec, tmp):
    name, bench, what, argv, (kind, short, long_) = spec
    runs = []
    for size in (short, long_):
        tag = "%s_%d" % (name.replace("/", "_"), size)
        args = list(argv)
        stdin_path = None
        if kind == "replay":
            stdin_path = os.path.join(tmp, tag + ".in")
            with open(stdin_path, "w") as f:
                f.write(replay_input(size))
            work = size
        else:
            scen = os.path.join(tmp, "poisson.ini")
            outdir = os.path.join(tmp, tag)
            with open(scen, "w") as f:
                f.write(sim_scenario(size))
            args += ["--out", outdir, scen]
        totals, _ = callgrind([os.path.join(build, "ratelab")] + args, tmp, tag, stdin_path=stdin_path)
        if kind == "sim":
            work = sim_requests(outdir)
        runs.append((totals, work))
    (t0, w0), (t1, w1) = runs
    ops = w1 - w0
    if ops <= 0:
        fail("%s: the long run did no more work than the short one" % name, 1)
    totals = {k: t1[k] - t0[k] for k in EVENTS}
    return {"name": name, "ops": ops, "bench": bench, "what": what, "totals": totals, **figures(totals, ops)}


def build_tree(src, build, plant=False):
    cfg = ["cmake", "-S", os.path.join(ROOT, "bench", "perf"), "-B", build, "-DCMAKE_BUILD_TYPE=Release",
           "-DRL_SOURCE_DIR=" + src, "-DRL_PERF_PLANT=" + ("ON" if plant else "OFF")]
    for cmd in (cfg, ["cmake", "--build", build, "-j", os.environ.get("JOBS", "2"), "--target", "perf_driver", "ratelab"]):
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            fail("build failed (%s):\n%s" % (" ".join(cmd), r.stdout[-4000:]), 1)


def tool_versions():
    cc = subprocess.run(["cc", "--version"], stdout=subprocess.PIPE, text=True).stdout.splitlines()[0]
    vg = subprocess.run(["valgrind", "--version"], stdout=subprocess.PIPE, text=True).stdout.strip()
    return cc, vg


def git_commit(tree):
    r = subprocess.run(["git", "-C", tree, "rev-parse", "--short=12", "HEAD"], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    commit = r.stdout.strip() or "unknown"
    dirty = subprocess.run(["git", "-C", tree, "status", "--porcelain", "--untracked-files=no"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout.strip()
    return commit + ("+dirty" if dirty else "")


def measure(build, only=None, tree=ROOT):
    if shutil.which("valgrind") is None:
        fail("valgrind not found; run: apt-get install -y valgrind (or: make deps)", 1)
    jobs = max(1, int(os.environ.get("JOBS", "2")))
    # The binaries run from a copy in a directory whose path has the same length on every
    # run (valgrind puts the client's full path on its stack, CLIENT_ENV).
    with tempfile.TemporaryDirectory(prefix="ratelab_perf_", dir="/tmp") as tmp:
        for exe in ("perf_driver", "ratelab"):
            shutil.copy2(os.path.join(build, exe), os.path.join(tmp, exe))
        build = tmp
        work = [("driver", e) for e in driver_entries(build)] + [("program", p) for p in PROGRAM_ENTRIES]
        if only:
            names = {w[1]["name"] if w[0] == "driver" else w[1][0] for w in work}
            unknown = [n for n in only if n not in names]
            if unknown:
                fail("unknown entry: %s (entries: %s)" % (", ".join(unknown), ", ".join(sorted(names))))
            work = [w for w in work if (w[1]["name"] if w[0] == "driver" else w[1][0]) in only]
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            futs = [pool.submit(measure_driver if kind == "driver" else measure_program, build, item, tmp)
                    for kind, item in work]
            entries = [f.result() for f in futs]
    cc, vg = tool_versions()
    return {"commit": git_commit(tree), "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "compiler": cc, "valgrind": vg, "callgrind_options": " ".join(CALLGRIND_OPTS),
            "est_cycles_formula": "L1 hits + 5 x LL hits + 35 x RAM hits (iai-callgrind)",
            "entries": entries}


def load(path):
    try:
        with open(path) as f:
            data = json.load(f)
        return {e["name"]: e for e in data["entries"]}, data
    except (OSError, ValueError, KeyError, TypeError) as ex:
        fail("%s: cannot read the figures: %s" % (path, ex))


def pct(base, now):
    if base == 0:
        return None if now == 0 else float("inf")
    return (now - base) / base * 100.0


def compare(base_path_or_data, now_data, base_label="baseline"):
    """Prints the table; returns (regressed entries, improved entries)."""
    base = {e["name"]: e for e in base_path_or_data["entries"]}
    now = {e["name"]: e for e in now_data["entries"]}
    print("perf: %s %s (%s; %s) against now %s" % (base_label, base_path_or_data.get("commit", "?"),
          base_path_or_data.get("compiler", "?"), base_path_or_data.get("valgrind", "?"), now_data.get("commit", "?")))
    gated = ", ".join("%s +%.0f%%" % (k, v) for k, v in THRESHOLDS.items() if v is not None)
    print("perf: per operation; the gate fails on %s" % gated)
    head = "%-28s %-10s %12s %12s %8s" % ("entry", "figure", base_label, "now", "change")
    print(head)
    print("-" * len(head))
    regressed, improved = [], []
    for name in list(base) + [n for n in now if n not in base]:
        if name not in now:
            print("%-28s (in the %s, not measured now)" % (name, base_label))
            continue
        if name not in base:
            print("%-28s (new: not in the %s)" % (name, base_label))
            continue
        for fig in FIGURES:
            b, n = base[name][fig], now[name][fig]
            c = pct(b, n)
            limit = THRESHOLDS[fig]
            mark = ""
            if limit is not None and c is not None and c > limit:
                mark = "  REGRESSION"
                if name not in regressed:
                    regressed.append(name)
            elif limit is not None and c is not None and c < -limit:
                mark = "  improved"
                if name not in improved:
                    improved.append(name)
            cs = "-" if c is None else ("new" if c == float("inf") else "%+.2f%%" % c)
            print("%-28s %-10s %12.3f %12.3f %8s%s" % (name if fig == FIGURES[0] else "", fig, b, n, cs, mark))
    return regressed, improved


def verdict(regressed, improved, refresh_hint):
    for name in improved:
        print("perf: improved beyond the threshold: %s" % name)
    if improved:
        print("perf: %s" % refresh_hint)
    for name in regressed:
        print("perf: REGRESSION: %s" % name)
    if regressed:
        print("perf: FAIL: %d entr%s over the threshold" % (len(regressed), "y" if len(regressed) == 1 else "ies"))
        return 1
    print("perf: PASS")
    return 0


def write_json(path, data):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(data, f, indent=1, sort_keys=False)
        f.write("\n")


def cmd_measure(a):
    build_tree(ROOT, a.build, a.plant)
    data = measure(a.build, a.entry)
    if a.out:
        write_json(a.out, data)
    else:
        json.dump(data, sys.stdout, indent=1)
        print()
    return 0


def cmd_check(a):
    _, base = load(a.baseline)
    if a.now:
        _, now = load(a.now)
    else:
        build_tree(ROOT, a.build, a.plant)
        now = measure(a.build)
        write_json(os.path.join(a.build, "perf-now.json"), now)
    regressed, improved = compare(base, now)
    return verdict(regressed, improved, "refresh the baseline deliberately: make perf-baseline")


def cmd_baseline(a):
    build_tree(ROOT, a.build)
    data = measure(a.build)
    write_json(BASELINE, data)
    new = not os.path.exists(HISTORY)
    with open(HISTORY, "a", newline="") as f:
        w = csv.writer(f)
        if new:
            w.writerow(["commit", "date", "entry"] + FIGURES)
        for e in data["entries"]:
            w.writerow([data["commit"], data["date"], e["name"]] + [e[k] for k in FIGURES])
    print("perf: baseline %s (%d entries) -> %s; history -> %s" % (data["commit"], len(data["entries"]),
          os.path.relpath(BASELINE, ROOT), os.path.relpath(HISTORY, ROOT)))
    return 0


def cmd_compare(a):
    rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "--verify", "--quiet", a.base + "^{commit}"],
                         stdout=subprocess.PIPE, text=True).stdout.strip()
    if not rev:
        fail("BASE=%s: not a commit of this repository" % a.base)
    tmp = tempfile.mkdtemp(prefix="ratelab_perf_base_")
    src = os.path.join(tmp, "src")
    try:
        subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", "--quiet", src, rev], check=True)
        print("perf: building %s (%s) in %s" % (a.base, rev[:12], src))
        build_tree(src, os.path.join(tmp, "build"))
        base = measure(os.path.join(tmp, "build"), tree=src)
        print("perf: building the working tree in %s" % a.build)
        build_tree(ROOT, a.build)
        now = measure(a.build)
    finally:
        subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", src], stderr=subprocess.DEVNULL)
        shutil.rmtree(tmp, ignore_errors=True)
    regressed, improved = compare(base, now, base_label=a.base)
    return verdict(regressed, improved, "(the working tree is cheaper than %s there)" % a.base)


def cmd_wallclock(a):
    """compare.py: the committed full run's medians against the working tree's quick run. Never gating."""
    script = "/usr/share/benchmark/compare.py"
    quick = a.quick
    if not os.path.exists(script):
        print("perf: wall clock: %s missing (apt-get install -y libbenchmark-tools python3-scipy)" % script)
        return 0
    full = subprocess.run(["git", "-C", ROOT, "show", "HEAD:results/bench/bench.json"], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True)
    if full.returncode != 0 or not os.path.exists(quick):
        print("perf: wall clock: no committed full run or no run in the working tree; skipped")
        return 0
    full_data = json.loads(full.stdout)
    with open(quick) as f:
        quick_data = json.load(f)
    if quick_data == full_data:
        print("perf: wall clock: results/bench/bench.json is the committed run (run make bench QUICK=1 first); skipped")
        return 0
    # compare.py matches runs by name: each side keeps its plain repetitions; a run that kept
    # aggregates only gives its medians, renamed as plain runs.
    def runs(data):
        plain = [b for b in data["benchmarks"] if b.get("run_type", "iteration") == "iteration"]
        if plain:
            return plain
        return [dict({k: v for k, v in b.items() if k != "aggregate_name"}, name=b["run_name"], run_type="iteration")
                for b in data["benchmarks"] if b.get("aggregate_name") == "median"]
    full_data["benchmarks"] = runs(full_data)
    quick_data["benchmarks"] = runs(quick_data)
    with tempfile.TemporaryDirectory(prefix="ratelab_wall_") as tmp:
        base, new = os.path.join(tmp, "committed_full_run.json"), os.path.join(tmp, "this_quick_run.json")
        for path, data in ((base, full_data), (new, quick_data)):
            with open(path, "w") as f:
                json.dump(data, f)
        print("perf: wall clock (information only, never gating): compare.py, the committed full run -> this quick run")
        r = subprocess.run(["/usr/bin/python3", script, "--no-color", "benchmarks", base, new], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        print(r.stdout.rstrip())
    return 0


def main():
    p = argparse.ArgumentParser(prog="perf.py", description="ratelab's performance gate (see the module text)")
    p.add_argument("--build", default=os.path.join(ROOT, "build-perf"), help="build directory (default build-perf)")
    p.add_argument("--plant", action="store_true", help="build with the planted slowdown (the gate's failure test)")
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("measure")
    m.add_argument("--out")
    m.add_argument("--entry", action="append", help="measure only this entry (repeatable)")
    c = sub.add_parser("check")
    c.add_argument("--baseline", default=BASELINE)
    c.add_argument("--now", help="figures measured before (perf.py measure --out), instead of measuring")
    sub.add_parser("baseline")
    cp = sub.add_parser("compare")
    cp.add_argument("base")
    w = sub.add_parser("wallclock")
    w.add_argument("--quick", default=os.path.join(ROOT, "results", "bench", "bench.json"),
                   help="the quick run's JSON (default results/bench/bench.json)")
    a = p.parse_args()
    a.build = os.path.abspath(a.build)
    return {"measure": cmd_measure, "check": cmd_check, "baseline": cmd_baseline, "compare": cmd_compare,
            "wallclock": cmd_wallclock}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
