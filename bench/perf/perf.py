#!/usr/bin/python3
"""perf.py - ratelab's performance gate: exact per-operation figures from
callgrind, a committed baseline, history across commits, and the check.

  perf.py [GLOBAL] measure [--out FILE] [--entry NAME ...]
  perf.py [GLOBAL] check [--baseline FILE] [--now FILE]   (make perf-check)
  perf.py [GLOBAL] baseline                               (make perf-baseline)
  perf.py [GLOBAL] compare BASE                           (make perf-compare BASE=rev)
  perf.py resolve BASE                                    the commit BASE names, fetched if need be
  perf.py [GLOBAL] thresholds                             the thresholds in force, checked
  perf.py wallclock [--quick FILE]                        (information only)
GLOBAL: --build DIR (default build-perf); --plant (the planted slowdown of
tests/perf); --entries REGEX (only the entries whose name it matches);
--thresholds FILE (default bench/perf/thresholds.csv); --threshold
[ENTRY:]FIGURE=PCT|- (this run only, repeatable); --out-dir DIR (where check
and compare write their formats; default BUILD/gate).

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

Every algorithm of the ops list gets its entries from perf_driver without an
edit here (hot verdict, hot answer, the thread-safe store at 1 key, the
one-thread store at 1K keys); a fork's algorithm included.

The gate: the thresholds file (bench/perf/thresholds.csv), one line per
entry glob and figure with its reason. An entry fails when a gated figure
grows by more than its threshold (percent of the base); improvements beyond
it are reported with a reminder to refresh the baseline.

Provenance: the figures depend on the compiler, its flags, valgrind, the
simulated cache and the library's build options; the baseline records them.
When they differ now, check does not judge against the stored figures: it
measures the baseline's commit and the working tree with this toolchain in
one job (compare) and judges that, or, the commit not being reachable, says
how to get it.

check and compare write, besides their text, into --out-dir: perf-now.json
(the figures), perf-bmf.json (Bencher Metric Format), perf-gab.json
(github-action-benchmark's customSmallerIsBetter), perf-junit.xml (a test
case per entry and figure, failing on a regression) and perf-summary.md (for
a pull-request comment).

Measured once: every measure and check of the working tree keeps its figures in
BUILD/perf-measured.json with a fingerprint of what they are a function of (the
two binaries, this script, the sim entry's scenario, valgrind's version); a check
whose binaries have that fingerprint and whose entries are all there reuses them
and says so (make bench's perf step, then make perf-check in CI: callgrind runs once).

Exit status: 0 pass, 1 regression (or a measurement that failed), 2 usage
or input error, 3 not judged here: the toolchain differs from the
baseline's and its commit is not in this clone, or BASE is not in this
clone and could not be fetched (the message says which command fixes it).
"""
import argparse
import concurrent.futures
import csv
import datetime
import fnmatch
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BASELINE = os.path.join(ROOT, "results", "baseline", "perf.json")
HISTORY = os.path.join(ROOT, "results", "baseline", "history.csv")

THRESHOLDS = os.path.join(ROOT, "bench", "perf", "thresholds.csv")
FIGURES = ["ir", "est_cycles", "d1_miss", "ll_miss", "bmiss"]
# Each figure's unit and its Bencher measure slug.
UNITS = {"ir": "instructions/op", "est_cycles": "estimated cycles/op", "d1_miss": "L1 data misses/op",
         "ll_miss": "last-level misses/op", "bmiss": "branch mispredictions/op"}
BMF_MEASURES = {"ir": "instructions", "est_cycles": "estimated-cycles", "d1_miss": "l1-data-misses",
                "ll_miss": "last-level-misses", "bmiss": "branch-mispredictions"}
# Exit statuses (the module text).
EXIT_PASS, EXIT_REGRESSION, EXIT_USAGE, EXIT_NOT_JUDGED = 0, 1, 2, 3

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
# RATELAB_HASH_SEED fixes the seed replay's key map would draw per run (sim/trace/keymap.h),
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
           "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON", "-DRL_SOURCE_DIR=" + src,
           "-DRL_PERF_PLANT=" + ("ON" if plant else "OFF")]
    for cmd in (cfg, ["cmake", "--build", build, "-j", os.environ.get("JOBS", "2"), "--target", "perf_driver", "ratelab"]):
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            fail("build failed (%s):\n%s" % (" ".join(cmd), r.stdout[-4000:]), 1)


def first_line(argv):
    try:
        r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    except OSError:
        return "not found"
    return (r.stdout.splitlines() or ["?"])[0].strip()


def cmake_cache(build):
    cache = {}
    try:
        with open(os.path.join(build, "CMakeCache.txt")) as f:
            for line in f:
                m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*):[A-Z]+=(.*)$", line.rstrip("\n"))
                if m:
                    cache[m.group(1)] = m.group(2)
    except OSError:
        pass
    return cache


def library_flags(build):
    """The compile flags of the library's sources, without paths (they differ per checkout)."""
    try:
        with open(os.path.join(build, "compile_commands.json")) as f:
            cmds = json.load(f)
    except (OSError, ValueError):
        return "unknown"
    for c in cmds:
        if "/algos/" in c["file"] and c["file"].endswith(".c"):
            argv = shlex.split(c["command"])[1:]
            keep, skip = [], False
            for a in argv:
                if skip:
                    skip = False
                elif a in ("-o", "-c", "-MT", "-MF", "-I", "-isystem"):
                    skip = True
                elif a.startswith(("-I", "-isystem", "/", "-MD", "-DRL_PERF_")) or a == c["file"]:
                    # -DRL_PERF_*: the gate's own build options, as in build_options
                    continue
                else:
                    keep.append(a)
            return " ".join(keep)
    return "unknown"


def provenance(build):
    """What the figures depend on besides the code (the baseline records it)."""
    cache = cmake_cache(build)
    options = sorted("%s=%s" % (k, v) for k, v in cache.items()
                     if k.startswith("RL_") and not k.startswith("RL_PERF_") and k != "RL_SOURCE_DIR")
    return {"compiler": first_line([cache.get("CMAKE_C_COMPILER", "cc"), "--version"]),
            "flags": library_flags(build),
            "build_type": cache.get("CMAKE_BUILD_TYPE", "?"),
            "build_options": " ".join(options),
            "valgrind": first_line(["valgrind", "--version"]),
            "callgrind_options": " ".join(CALLGRIND_OPTS),
            "machine": os.uname().machine}


def baseline_provenance(data):
    """A baseline's provenance; one written before it was recorded has its compiler, valgrind and cache only."""
    if "provenance" in data:
        return data["provenance"]
    return {k: data[k] for k in ("compiler", "valgrind", "callgrind_options") if k in data}


def provenance_diff(base, now):
    return [(k, base[k], now.get(k, "?")) for k in base if base[k] != now.get(k, "?")]


def git(*args, tree=ROOT):
    return subprocess.run(["git", "-C", tree] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def git_commit(tree):
    commit = git("rev-parse", "--short=12", "HEAD", tree=tree).stdout.strip() or "unknown"
    dirty = git("status", "--porcelain", "--untracked-files=no", tree=tree).stdout.strip()
    return commit + ("+dirty" if dirty else "")


def selected(names, regex):
    if regex is None:
        return list(names)
    return [n for n in names if regex.search(n)]


def all_entries(build):
    """The driver's entries and the program entries, by name."""
    return [("driver", e) for e in driver_entries(build)] + [("program", p) for p in PROGRAM_ENTRIES]


def entry_name(work):
    return work[1]["name"] if work[0] == "driver" else work[1][0]


def measure(build, only=None, tree=ROOT, regex=None):
    if shutil.which("valgrind") is None:
        fail("valgrind not found; run: apt-get install -y valgrind (or: make deps)", 1)
    jobs = max(1, int(os.environ.get("JOBS", "2")))
    prov = provenance(build)
    # The binaries run from a copy in a directory whose path has the same length on every
    # run (valgrind puts the client's full path on its stack, CLIENT_ENV).
    with tempfile.TemporaryDirectory(prefix="ratelab_perf_", dir="/tmp") as tmp:
        for exe in ("perf_driver", "ratelab"):
            shutil.copy2(os.path.join(build, exe), os.path.join(tmp, exe))
        work = all_entries(tmp)
        names = [entry_name(w) for w in work]
        if only:
            unknown = [n for n in only if n not in names]
            if unknown:
                fail("unknown entry: %s (entries: %s)" % (", ".join(unknown), ", ".join(sorted(names))))
            work = [w for w in work if entry_name(w) in only]
        if regex is not None:
            work = [w for w in work if regex.search(entry_name(w))]
            if not work:
                fail("--entries %s matches none of the %d entries (%s)" % (regex.pattern, len(names), ", ".join(names)))
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            futs = [pool.submit(measure_driver if kind == "driver" else measure_program, tmp, item, tmp)
                    for kind, item in work]
            entries = [f.result() for f in futs]
    return {"commit": git_commit(tree), "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "compiler": prov["compiler"], "valgrind": prov["valgrind"], "callgrind_options": prov["callgrind_options"],
            "provenance": prov,
            "est_cycles_formula": "L1 hits + 5 x LL hits + 35 x RAM hits (iai-callgrind)",
            "entries": entries}


# -- measured once: make bench's perf step and make perf-check (CI runs both, one after the other)
# share the figures. callgrind's counts are a function of the two binaries, this script (the
# options, the simulated cache, the entries' inputs), the scenario the sim entry reads and
# valgrind: with all of them unchanged a second measure would give the same file but for its
# date (tests/perf determinism), so a check reuses what a measure of the same BUILD wrote.
MEASURED = "perf-measured.json"


def fingerprint(build):
    """sha256 over what the figures are a function of, and valgrind's version."""
    h = hashlib.sha256()
    for path in (os.path.join(build, "perf_driver"), os.path.join(build, "ratelab"), os.path.abspath(__file__),
                 os.path.join(ROOT, "sim", "scenarios", "poisson.ini")):
        with open(path, "rb") as f:
            h.update(hashlib.sha256(f.read()).digest())
    h.update(first_line(["valgrind", "--version"]).encode())
    return h.hexdigest()


def remember(build, data):
    """Adds data's entries to BUILD/perf-measured.json (replaced when its fingerprint is another's)."""
    fp = fingerprint(build)
    path = os.path.join(build, MEASURED)
    try:
        with open(path) as f:
            old = json.load(f)
        if old.get("fingerprint") != fp:
            old = None
    except (OSError, ValueError):
        old = None
    entries = {e["name"]: e for e in (old["data"]["entries"] if old else [])}
    entries.update({e["name"]: e for e in data["entries"]})
    kept = dict(data, entries=list(entries.values()))
    tmp = path + ".tmp.%d" % os.getpid()
    write_json(tmp, {"fingerprint": fp, "data": kept})
    os.replace(tmp, path)


def recall(build, regex=None):
    """The figures of every entry (those regex matches) measured before for these very binaries, or None."""
    path = os.path.join(build, MEASURED)
    try:
        with open(path) as f:
            old = json.load(f)
        if old.get("fingerprint") != fingerprint(build):
            return None
        data = old["data"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    with tempfile.TemporaryDirectory(prefix="ratelab_perf_list_") as tmp:
        shutil.copy2(os.path.join(build, "perf_driver"), os.path.join(tmp, "perf_driver"))
        names = selected([entry_name(w) for w in all_entries(tmp)], regex)
    have = {e["name"]: e for e in data["entries"]}
    if not names or any(n not in have for n in names):
        return None
    print("perf: the figures measured %s for these very binaries (%s, fingerprint %s): not measured again"
          % (data.get("date", "?"), os.path.relpath(path, ROOT), old["fingerprint"][:12]))
    return dict(data, commit=git_commit(ROOT), entries=[have[n] for n in names])


def load(path):
    try:
        with open(path) as f:
            data = json.load(f)
        return {e["name"]: e for e in data["entries"]}, data
    except (OSError, ValueError, KeyError, TypeError) as ex:
        fail("%s: cannot read the figures: %s" % (path, ex))


# -- thresholds: the committed file, then this run's --threshold overrides; the last match wins.

def parse_threshold(text, where):
    text = text.strip()
    if text == "-":
        return None
    try:
        v = float(text)
    except ValueError:
        v = float("nan")
    if not (v >= 0 and v != float("inf")):
        fail("%s: threshold %r is not a non-negative percentage or -" % (where, text))
    return v


def load_thresholds(path, overrides):
    rules = []
    try:
        f = open(path, newline="")
    except OSError as ex:
        fail("%s: cannot read the thresholds: %s" % (path, ex.strerror))
    with f:
        header = None
        for lineno, row in enumerate(csv.reader(f), 1):
            where = "%s:%d" % (path, lineno)
            if not row or not "".join(row).strip() or row[0].lstrip().startswith("#"):
                continue
            if header is None:
                if [c.strip() for c in row] != ["entry", "figure", "threshold", "reason"]:
                    fail("%s: the header must be entry,figure,threshold,reason (got %s)" % (where, ",".join(row)))
                header = row
                continue
            if len(row) != 4:
                fail("%s: expected 4 fields (entry,figure,threshold,reason), got %d: %s" % (where, len(row), ",".join(row)))
            entry, figure, value, reason = (c.strip() for c in row)
            if not entry:
                fail("%s: the entry is empty" % where)
            if figure not in FIGURES:
                fail("%s: unknown figure %r (figures: %s)" % (where, figure, ", ".join(FIGURES)))
            if not reason:
                fail("%s: the reason is missing (say why this threshold)" % where)
            rules.append({"where": where, "entry": entry, "figure": figure,
                          "threshold": parse_threshold(value, where), "reason": reason})
        if header is None:
            fail("%s: no header line (entry,figure,threshold,reason)" % path)
    for spec in overrides or []:
        m = re.match(r"^(?:(.+):)?([a-z_0-9]+)=(.+)$", spec)
        where = "--threshold %s" % spec
        if not m:
            fail("%s: expected [ENTRY:]FIGURE=PERCENT or [ENTRY:]FIGURE=-" % where)
        if m.group(2) not in FIGURES:
            fail("%s: unknown figure %r (figures: %s)" % (where, m.group(2), ", ".join(FIGURES)))
        rules.append({"where": where, "entry": m.group(1) or "*", "figure": m.group(2),
                      "threshold": parse_threshold(m.group(3), where), "reason": "set for this run (--threshold)"})
    return rules


def check_thresholds(rules, names):
    """Every line must name some entry: a typo would otherwise gate nothing, silently."""
    for r in rules:
        if not any(fnmatch.fnmatchcase(n, r["entry"]) for n in names):
            fail("%s: unknown entry %r: it matches none of the %d entries (perf.py --build DIR thresholds lists them)"
                 % (r["where"], r["entry"], len(names)))


def threshold_for(rules, name, figure):
    """(threshold percent or None, the line that set it)."""
    hit = None
    for r in rules:
        if r["figure"] == figure and fnmatch.fnmatchcase(name, r["entry"]):
            hit = r
    return (hit["threshold"], hit) if hit else (None, None)


def pct(base, now):
    if base == 0:
        return None if now == 0 else float("inf")
    return (now - base) / base * 100.0


def compare(base_data, now_data, rules, base_label="baseline"):
    """Prints the table; returns the rows (one per entry and figure)."""
    base = {e["name"]: e for e in base_data["entries"]}
    now = {e["name"]: e for e in now_data["entries"]}
    print("perf: %s %s (%s; %s) against now %s" % (base_label, base_data.get("commit", "?"),
          base_data.get("compiler", "?"), base_data.get("valgrind", "?"), now_data.get("commit", "?")))
    print("perf: per operation; thresholds from %s" % os.path.relpath(rules[0]["where"].rsplit(":", 1)[0], ROOT)
          if rules and ":" in rules[0]["where"] else "perf: per operation")
    head = "%-30s %-10s %12s %12s %8s %9s" % ("entry", "figure", base_label[:12], "now", "change", "threshold")
    print(head)
    print("-" * len(head))
    rows = []
    for name in list(base) + [n for n in now if n not in base]:
        if name not in now:
            print("%-30s (in the %s, not measured now)" % (name, base_label))
            rows.append({"entry": name, "figure": None, "status": "gone"})
            continue
        if name not in base:
            print("%-30s (new: not in the %s)" % (name, base_label))
            rows.append({"entry": name, "figure": None, "status": "new", "now": now[name]})
            continue
        for fig in FIGURES:
            b, n = base[name][fig], now[name][fig]
            c = pct(b, n)
            limit, _ = threshold_for(rules, name, fig)
            status = "shown" if limit is None else "ok"
            if limit is not None and c is not None and c > limit:
                status = "regression"
            elif limit is not None and c is not None and c < -limit:
                status = "improved"
            cs = "-" if c is None else ("new" if c == float("inf") else "%+.2f%%" % c)
            ls = "-" if limit is None else "+%g%%" % limit
            mark = {"regression": "  REGRESSION", "improved": "  improved"}.get(status, "")
            print("%-30s %-10s %12.3f %12.3f %8s %9s%s" % (name if fig == FIGURES[0] else "", fig, b, n, cs, ls, mark))
            rows.append({"entry": name, "figure": fig, "base": b, "now": n, "change": c, "threshold": limit,
                         "status": status})
    return rows


def verdict(rows, refresh_hint):
    regressed = list(dict.fromkeys(r["entry"] for r in rows if r["status"] == "regression"))
    improved = [e for e in dict.fromkeys(r["entry"] for r in rows if r["status"] == "improved") if e not in regressed]
    for name in improved:
        print("perf: improved beyond the threshold: %s" % name)
    if improved:
        print("perf: %s" % refresh_hint)
    for name in regressed:
        print("perf: REGRESSION: %s" % name)
    if regressed:
        print("perf: FAIL: %d entr%s over the threshold" % (len(regressed), "y" if len(regressed) == 1 else "ies"))
        return EXIT_REGRESSION
    print("perf: PASS")
    return EXIT_PASS


def write_json(path, data):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(data, f, indent=1, sort_keys=False)
        f.write("\n")


# -- the formats CI tools read

def fmt_change(c):
    return "-" if c is None else ("new" if c == float("inf") else "%+.2f%%" % c)


def write_formats(outdir, rows, base_data, now_data, base_label, status):
    os.makedirs(outdir, exist_ok=True)
    write_json(os.path.join(outdir, "perf-now.json"), now_data)
    figs = [r for r in rows if r["figure"]]
    now_entries = {e["name"]: e for e in now_data["entries"]}
    # Bencher Metric Format: benchmark -> measure slug -> {value}.
    bmf = {e["name"]: {BMF_MEASURES[f]: {"value": e[f]} for f in FIGURES} for e in now_data["entries"]}
    write_json(os.path.join(outdir, "perf-bmf.json"), bmf)
    # github-action-benchmark, customSmallerIsBetter: one series per entry and figure.
    gab = []
    for e in now_data["entries"]:
        for f in FIGURES:
            row = next((r for r in figs if r["entry"] == e["name"] and r["figure"] == f), None)
            extra = "%s %s: %s" % (base_label, base_data.get("commit", "?"),
                                   "%.3f, change %s, threshold %s" % (row["base"], fmt_change(row["change"]),
                                   "-" if row["threshold"] is None else "+%g%%" % row["threshold"]) if row else "not measured")
            gab.append({"name": "%s %s" % (e["name"], f), "unit": UNITS[f], "value": e[f], "extra": extra})
    write_json(os.path.join(outdir, "perf-gab.json"), gab)
    # JUnit XML: a test case per entry and figure, failing on a regression.
    suite = ET.Element("testsuite", name="ratelab perf gate", tests=str(len(figs) + len(FIGURES) * sum(
                       r["status"] == "new" for r in rows)),
                       failures=str(sum(r["status"] == "regression" for r in figs)), errors="0", skipped="0",
                       timestamp=now_data.get("date", "").rstrip("Z"), hostname=os.uname().nodename)
    props = ET.SubElement(suite, "properties")
    for k, v in (("base", "%s %s" % (base_label, base_data.get("commit", "?"))), ("head", now_data.get("commit", "?")),
                 ("compiler", now_data.get("compiler", "?")), ("valgrind", now_data.get("valgrind", "?"))):
        ET.SubElement(props, "property", name=k, value=v)
    new_entries = [r["now"] for r in rows if r["status"] == "new"]
    for e in new_entries:
        for f in FIGURES:
            case = ET.SubElement(suite, "testcase", classname=e["name"], name=f, time="0")
            ET.SubElement(case, "system-out").text = "%s %s: now %.3f; new, not in the %s: not judged" % (
                e["name"], f, e[f], base_label)
    for r in figs:
        case = ET.SubElement(suite, "testcase", classname=r["entry"], name=r["figure"], time="0")
        text = "%s %s: %s %.3f -> now %.3f (%s); threshold %s" % (r["entry"], r["figure"], base_label, r["base"], r["now"],
               fmt_change(r["change"]), "- (shown, not gated)" if r["threshold"] is None else "+%g%%" % r["threshold"])
        if r["status"] == "regression":
            fl = ET.SubElement(case, "failure", message="%s grew %s, over its threshold +%g%%" %
                               (r["figure"], fmt_change(r["change"]), r["threshold"]), type="regression")
            fl.text = text
        else:
            ET.SubElement(case, "system-out").text = text
    root = ET.Element("testsuites", name="ratelab perf gate", tests=suite.get("tests"), failures=suite.get("failures"),
                      errors="0")
    root.append(suite)
    ET.indent(root)
    ET.ElementTree(root).write(os.path.join(outdir, "perf-junit.xml"), encoding="UTF-8", xml_declaration=True)
    # Markdown for a pull-request comment: what moved, before and after, the threshold.
    bad = list(dict.fromkeys(r["entry"] for r in figs if r["status"] == "regression"))
    word = {EXIT_PASS: "PASS", EXIT_REGRESSION: "FAIL"}.get(status, "NOT JUDGED")
    md = ["## ratelab performance gate: %s" % word, ""]
    if bad:
        md.append("%d entr%s over the threshold: %s." % (len(bad), "y" if len(bad) == 1 else "ies",
                                                        ", ".join("`%s`" % b for b in bad)))
        md.append("")
    md.append("Per operation, from callgrind (exact counts, a simulated cache): %s `%s` against head `%s`, "
              "both built by `%s`." % (base_label, base_data.get("commit", "?"), now_data.get("commit", "?"),
                                       now_data.get("compiler", "?")))
    md.append("")

    def table(rs):
        out = ["| entry | figure | %s | head | change | threshold | |" % base_label, "|---|---|---:|---:|---:|---:|---|"]
        for r in rs:
            out.append("| `%s` | %s | %.3f | %.3f | %s | %s | %s |" % (
                r["entry"], r["figure"], r["base"], r["now"], fmt_change(r["change"]),
                "-" if r["threshold"] is None else "+%g%%" % r["threshold"],
                {"regression": "**regression**", "improved": "improved"}.get(r["status"], "")))
        return out
    moved = [r for r in figs if r["status"] in ("regression", "improved") or
             (r["threshold"] is not None and r["change"] is not None and abs(r["change"]) >= 0.5)]
    if moved:
        md.append("### Moved (0.5% or more on a gated figure, or beyond a threshold)")
        md.append("")
        md += table(moved)
    else:
        md.append("No gated figure moved by 0.5% or more.")
    new = [r["entry"] for r in rows if r["status"] == "new"]
    if new:
        md += ["", "New entries (not in the %s, not judged): %s." % (base_label, ", ".join("`%s`" % n for n in new))]
    gone = [r["entry"] for r in rows if r["status"] == "gone"]
    if gone:
        md += ["", "In the %s, not measured now: %s." % (base_label, ", ".join("`%s`" % n for n in gone))]
    md += ["", "<details><summary>All %d entries and figures</summary>" % len({r["entry"] for r in figs}), ""]
    md += table(figs)
    md += ["", "</details>", ""]
    with open(os.path.join(outdir, "perf-summary.md"), "w") as f:
        f.write("\n".join(md))
    print("perf: wrote perf-now.json, perf-bmf.json, perf-gab.json, perf-junit.xml, perf-summary.md -> %s" % outdir)


# -- a base revision, in a full or a shallow clone

def resolve_base(base):
    """The full commit BASE names; fetched from a remote when this clone lacks it. Exits 3 with the fix."""
    def lookup():
        return git("rev-parse", "--verify", "--quiet", base + "^{commit}").stdout.strip()
    rev = lookup()
    if rev:
        return rev
    remotes = git("remote").stdout.split()
    remote = "origin" if "origin" in remotes else (remotes[0] if remotes else None)
    shallow = git("rev-parse", "--is-shallow-repository").stdout.strip() == "true"
    m = re.match(r"^(?:HEAD|@)~(\d+)$", base) or re.match(r"^(?:HEAD|@)(\^+)$", base)
    if m:
        depth = int(m.group(1)) if m.group(1).isdigit() else len(m.group(1))
        fetch = ["fetch", "--quiet", "--deepen=%d" % depth, remote or "origin"]
    elif re.match(r"^[0-9a-fA-F]{40}$", base):
        fetch = ["fetch", "--quiet", "--depth=1", remote or "origin", base]
    else:
        name = base[len(remote) + 1:] if remote and base.startswith(remote + "/") else base
        fetch = ["fetch", "--quiet", "--depth=1", remote or "origin", "%s:refs/remotes/%s/%s" % (name, remote or "origin", name)]
    if remote:
        print("perf: BASE=%s is not in this %sclone; fetching: git %s" % (base, "shallow " if shallow else "", " ".join(fetch)))
        r = git(*fetch)
        rev = lookup() or (git("rev-parse", "--verify", "--quiet", "FETCH_HEAD^{commit}").stdout.strip()
                           if r.returncode == 0 and not m else "")
        if rev:
            return rev
        why = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "the fetch did not bring it"
    else:
        why = "this clone has no remote"
    hint = "git fetch --unshallow origin" if shallow else "git fetch origin"
    if not remote:
        hint = "git remote add origin URL && " + hint
    if not m:
        hint = "git %s" % " ".join(a for a in fetch if a != "--quiet") if remote else \
               "git remote add origin URL && git fetch --depth=1 origin %s" % base
        if re.match(r"^[0-9a-fA-F]{4,39}$", base):
            hint += "  (a shortened hash cannot be fetched: give the full 40-digit commit)"
    print("perf: BASE=%s is not in this clone (%s); run: %s, then again" % (base, why, hint), file=sys.stderr)
    sys.exit(EXIT_NOT_JUDGED)


def compare_revs(a, base, rules, regex):
    """Measures BASE and the working tree with this toolchain in one job; returns (base, now)."""
    rev = resolve_base(base)
    tmp = tempfile.mkdtemp(prefix="ratelab_perf_base_")
    src = os.path.join(tmp, "src")
    try:
        subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", "--quiet", src, rev], check=True)
        print("perf: building %s (%s) in %s" % (base, rev[:12], src))
        build_tree(src, os.path.join(tmp, "build"))
        base_data = measure(os.path.join(tmp, "build"), tree=src, regex=regex)
        print("perf: building the working tree in %s" % a.build)
        build_tree(ROOT, a.build, a.plant)
        now = measure(a.build, regex=regex)
    finally:
        subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", src], stderr=subprocess.DEVNULL)
        shutil.rmtree(tmp, ignore_errors=True)
    return base_data, now


def gate_rules(a):
    """The thresholds in force, each line checked against the entries of the built tree."""
    rules = load_thresholds(a.thresholds, a.threshold)
    with tempfile.TemporaryDirectory(prefix="ratelab_perf_list_") as tmp:
        shutil.copy2(os.path.join(a.build, "perf_driver"), os.path.join(tmp, "perf_driver"))
        names = [entry_name(w) for w in all_entries(tmp)]
    check_thresholds(rules, names)
    return rules


def cmd_measure(a):
    build_tree(ROOT, a.build, a.plant)
    # --reuse (make bench's perf step): the figures of these very binaries, when a measure or
    # check of them is on record with every entry, are the figures a new measure would give
    data = recall(a.build, a.entries) if a.reuse and not a.entry else None
    if data is None:
        data = measure(a.build, a.entry, regex=a.entries)
        remember(a.build, data)
    data["thresholds"] = [{k: r[k] for k in ("entry", "figure", "threshold", "reason")} for r in gate_rules(a)]
    if a.out:
        write_json(a.out, data)
    else:
        json.dump(data, sys.stdout, indent=1)
        print()
    return 0


def cmd_thresholds(a):
    build_tree(ROOT, a.build, a.plant)
    rules = gate_rules(a)
    print("perf: thresholds in force (the last matching line wins):")
    for r in rules:
        print("  %-28s %-10s %6s  %s  (%s)" % (r["entry"], r["figure"], "-" if r["threshold"] is None else
              "+%g%%" % r["threshold"], r["reason"], os.path.relpath(r["where"], ROOT) if ":" in r["where"] else r["where"]))
    return 0


def cmd_check(a):
    _, base = load(a.baseline)
    if a.now:
        rules = load_thresholds(a.thresholds, a.threshold)
        _, now = load(a.now)
        check_thresholds(rules, [e["name"] for e in now["entries"]])
    else:
        build_tree(ROOT, a.build, a.plant)
        rules = gate_rules(a)
        diff = provenance_diff(baseline_provenance(base), provenance(a.build))
        if diff:
            for k, was, is_ in diff:
                print("perf: provenance: the baseline's %s is %r, this toolchain's %r" % (k, was, is_))
            commit = base.get("commit", "unknown")
            print("perf: the baseline's figures are not judged against another toolchain's")
            if commit.endswith("+dirty") or commit == "unknown":
                print("perf: the baseline was measured on an uncommitted tree (%s): refresh it on this toolchain: "
                      "make perf-baseline, or judge a pull request by make perf-compare BASE=<its base>" % commit,
                      file=sys.stderr)
                return EXIT_NOT_JUDGED
            print("perf: measuring the baseline's commit %s and the working tree with this toolchain (perf-compare)"
                  % commit)
            base, now = compare_revs(a, commit, rules, a.entries)
            rows = compare(base, now, rules, base_label=commit)
            status = verdict(rows, "(the working tree is cheaper than %s there)" % commit)
            write_formats(a.out_dir, rows, base, now, commit, status)
            return status
        now = recall(a.build, a.entries)
        if now is None:
            now = measure(a.build, regex=a.entries)
            remember(a.build, now)
        write_json(os.path.join(a.build, "perf-now.json"), now)
    if a.entries is not None:
        base = dict(base, entries=[e for e in base["entries"] if a.entries.search(e["name"])])
    rows = compare(base, now, rules)
    status = verdict(rows, "refresh the baseline deliberately: make perf-baseline")
    write_formats(a.out_dir, rows, base, now, "baseline", status)
    return status


def cmd_baseline(a):
    if a.entries is not None:
        fail("a baseline holds every entry: --entries is not for perf.py baseline")
    build_tree(ROOT, a.build)
    gate_rules(a)
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
    resolve_base(a.base)
    build_tree(ROOT, a.build, a.plant)
    rules = gate_rules(a)
    base, now = compare_revs(a, a.base, rules, a.entries)
    rows = compare(base, now, rules, base_label=a.base)
    status = verdict(rows, "(the working tree is cheaper than %s there)" % a.base)
    write_formats(a.out_dir, rows, base, now, a.base, status)
    return status


def cmd_resolve(a):
    print(resolve_base(a.base))
    return 0


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
    p.add_argument("--entries", metavar="REGEX", help="only the entries whose name matches REGEX (re.search)")
    p.add_argument("--thresholds", default=THRESHOLDS, help="the thresholds file (default bench/perf/thresholds.csv)")
    p.add_argument("--threshold", action="append", metavar="[ENTRY:]FIGURE=PCT",
                   help="a threshold for this run only, after the file's (repeatable; PCT - : not gated)")
    p.add_argument("--out-dir", help="where check and compare write their formats (default BUILD/gate)")
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("measure")
    m.add_argument("--out")
    m.add_argument("--entry", action="append", help="measure only this entry (repeatable)")
    m.add_argument("--reuse", action="store_true",
                   help="the figures on record for these very binaries (BUILD/%s), when it has every entry" % MEASURED)
    c = sub.add_parser("check")
    c.add_argument("--baseline", default=BASELINE)
    c.add_argument("--now", help="figures measured before (perf.py measure --out), instead of measuring")
    sub.add_parser("baseline")
    cp = sub.add_parser("compare")
    cp.add_argument("base")
    rs = sub.add_parser("resolve")
    rs.add_argument("base")
    sub.add_parser("thresholds")
    w = sub.add_parser("wallclock")
    w.add_argument("--quick", default=os.path.join(ROOT, "results", "bench", "bench.json"),
                   help="the quick run's JSON (default results/bench/bench.json)")
    a = p.parse_args()
    a.build = os.path.abspath(a.build)
    a.out_dir = os.path.abspath(a.out_dir or os.path.join(a.build, "gate"))
    if a.entries is not None:
        try:
            a.entries = re.compile(a.entries)
        except re.error as ex:
            fail("--entries %r is not a regular expression: %s" % (a.entries, ex))
    return {"measure": cmd_measure, "check": cmd_check, "baseline": cmd_baseline, "compare": cmd_compare,
            "resolve": cmd_resolve, "thresholds": cmd_thresholds, "wallclock": cmd_wallclock}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
