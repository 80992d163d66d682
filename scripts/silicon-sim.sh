#!/usr/bin/env bash
# Simulator side of the "Real hardware" table of docs/VALIDATION.md: runs every workload that
# has Nsight Compute figures in RESULTS/ncu on the `h100` preset at size small, JOBS at a time
# under `nice -n 10`, writing SIMDIR/W.json. As ncu measured: the launch latency is the floor ncu's
# `sm__cycles_elapsed.max` shows for an empty kernel (2,437 cycles fitted, docs/validation/h200/
# launch/fit.py, less our empty kernel's own ~40), not the back-to-back launch cost of the
# preset, and the L2 is flushed before each launch (ncu's default `--cache-control all`; the L1s
# are flushed at every launch anyway).
#
# Usage: scripts/silicon-sim.sh BIN RESULTS SIMDIR [JOBS]
#   BIN      a release warpforge binary (target/release/warpforge)
#   RESULTS  gpu-validate.sh's OUTDIR; the committed H200 results are docs/validation/h200
#   SIMDIR   where the W.json files go (created)
# Then: scripts/silicon-table.py RESULTS SIMDIR
set -euo pipefail
if [ $# -lt 3 ]; then
    echo "usage: $0 BIN RESULTS SIMDIR [JOBS]" >&2
    exit 2
fi
bin=$1 res=$2 sim=$3 jobs=${4:-2}
if [ ! -x "$bin" ] || [ ! -d "$res/ncu" ]; then
    echo "$0: $bin is not an executable or $res/ncu is not a directory" >&2
    exit 2
fi
mkdir -p "$sim"
ls "$res"/ncu/*.csv | xargs -n1 basename | sed 's/\.csv$//' |
    xargs -P "$jobs" -I{} sh -c \
        'nice -n 10 "$0" run {} --mode timing --config h100 --size small --threads 1 \
            --set core.launch_latency=1800 --set l2.flush_between_launches=true --json "$1/{}.json.tmp" >/dev/null 2>"$1/{}.err" \
            && mv "$1/{}.json.tmp" "$1/{}.json" || echo "{}: failed (see $1/{}.err)" >&2' \
        "$bin" "$sim"
