#!/usr/bin/env bash
# fleet/run.sh BUILD RESULTS - the local-plus-global grid (ratelab fleet:
# k = 2, 4, 16 x S = 1 ms .. 1 s x random/sticky routing, skew, outage),
# simulated, no Redis needed: RESULTS/sim/fleet.csv for the report.
set -euo pipefail
echo "  local plus global: $1/ratelab fleet --out $2/sim/fleet.csv"
"$1/ratelab" fleet --out "$2/sim/fleet.csv"
