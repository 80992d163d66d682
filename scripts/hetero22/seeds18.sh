#!/bin/bash
# Session 22 (hetero): IM over FR-FCFS on the 18 small mixes for policy seeds 1-4 (the merged
# defaults; seed 1 is the preset's). Usage: scripts/hetero22/seeds18.sh BIN OUTDIR
# (run it under /work/team/lo.sh on the shared host); then trace.py OUTDIR. `--seeds 1`
# (session 23): one seed per run, as written (the default, 3 seeds, would average s..s+2).
set -euo pipefail
W=$1; O=$2; mkdir -p "$O"
for s in 1 2 3 4; do
  /usr/bin/time -f "full_s$s %U %S %e" -a -o "$O/full-times.txt" "$W" experiment hetero --size small \
    --no-beyond-llc --no-interference --policy frfcfs,im --jobs 2 --seeds 1 --set policy.seed=$s \
    --json "$O/full_s$s.json" > "$O/full_s$s.log" 2>&1
done
