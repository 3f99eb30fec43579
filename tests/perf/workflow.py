#!/usr/bin/python3
"""workflow.py SRC - .github/workflows/perf.yml runs only what ratelab's own CI
exercises: every `run:` step is `make TARGET ...` with TARGET one that `make test`
(tests/perf/gate.sh) or .ci/run runs here, the checkout sets fetch-depth, the
gate's outputs are uploaded and the Markdown summary posted."""
import os
import re
import shlex
import sys

import yaml

src = sys.argv[1]
wf = yaml.safe_load(open(os.path.join(src, ".github", "workflows", "perf.yml")))
steps = wf["jobs"]["perf-compare"]["steps"]
ci = open(os.path.join(src, ".ci", "run")).read()
gate = open(os.path.join(src, "tests", "perf", "gate.sh")).read()
# make targets ratelab's own CI runs: in .ci/run, or in the gate's tests (make test).
exercised = set(re.findall(r"^make (\S+)", ci, re.M)) | set(re.findall(r"make -s -C \"\$\S+\" (\S+)", gate))
# The container's own set-up before make exists there: installing git and make, git's safe directory.
setup = {"apt-get update && apt-get install -y --no-install-recommends git make ca-certificates",
         'git config --global --add safe.directory "$GITHUB_WORKSPACE"'}
errors = []
for st in steps:
    if "run" not in st:
        continue
    cmd = st["run"].strip()
    if cmd in setup:
        continue
    argv = shlex.split(cmd.split(">>")[0])
    if argv[0] != "make" or len(argv) < 2:
        errors.append("step %r runs %r, not a make target" % (st.get("name"), cmd))
    elif argv[1] not in exercised:
        errors.append("step %r runs make %s, which neither .ci/run nor the gate's tests run (%s)"
                      % (st.get("name"), argv[1], ", ".join(sorted(exercised))))
checkout = [st for st in steps if st.get("uses", "").startswith("actions/checkout@")]
if not checkout or "fetch-depth" not in (checkout[0].get("with") or {}):
    errors.append("the checkout does not set fetch-depth")
uses = [st.get("uses", "") for st in steps]
if not any(u.startswith("actions/upload-artifact@") and "perf-out" in str(st.get("with")) for u, st in zip(uses, steps)):
    errors.append("the gate's outputs (perf-out/) are not uploaded")
if not any("perf-summary.md" in str(st.get("with")) for st in steps):
    errors.append("the Markdown summary is not posted")
if not any("perf-compare BASE=${{ github.event.pull_request.base.sha }}" in st.get("run", "") for st in steps):
    errors.append("no step runs perf-compare against the pull request's base")
if errors:
    sys.exit("FAIL: " + "\n".join(errors))
print("perf.yml: %d steps; make targets all exercised here: %s" % (
    len(steps), ", ".join(sorted({shlex.split(st["run"])[1] for st in steps if st.get("run", "").startswith("make")}))))
