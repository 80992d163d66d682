#!/usr/bin/env bash
# Ground truth on a real NVIDIA GPU for every built-in workload (docs/VALIDATION.md, "Real hardware").
#
# Usage: scripts/gpu-validate.sh BIN OUTDIR [SIZE] [SECONDS]
#   BIN      a warpforge release binary (the GPU machine needs no Rust)
#   OUTDIR   results: gpu.csv, events/W.json, outputs/W.json, ncu/W.csv
#   SIZE     workload size (default small)
#   SECONDS  wall-clock budget; the Nsight Compute pass stops starting workloads past it (default 360)
#
# Per workload: dump its launch bundle (`warpforge run W --dump-launches`), replay the bundle on
# warpforge's functional executor and on the GPU (scripts/replay-bundle.py: CuPy RawModule, CUDA
# events), compare every final buffer (scripts/compare-outputs.py), then, in a second pass, profile
# the first launches under Nsight Compute (SM cycles, SASS warp instructions, cache hit rates, DRAM
# bytes). Needs python3 with numpy and cupy, ncu on the PATH for the second pass.
set -u
BIN=$(realpath "$1"); OUT=$(realpath -m "$2"); SIZE=${3:-small}; BUDGET=${4:-360}
HERE=$(cd "$(dirname "$0")" && pwd)
START=$SECONDS
W=$(mktemp -d)
mkdir -p "$OUT/events" "$OUT/outputs" "$OUT/ncu"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,memory.total --format=csv > "$OUT/gpu.csv" 2>&1
NAMES=$("$BIN" list --names)
for w in $NAMES; do
  B=$W/bundle/$w
  if ! "$BIN" run "$w" --size "$SIZE" --mode functional --dump-launches "$B" > /dev/null 2> "$W/$w.err"; then
    echo "$w: dump failed: $(tail -1 "$W/$w.err")"; continue
  fi
  mkdir -p "$W/sim/$w"
  outs=()
  for n in $(grep '^name' "$B/launches.toml" | cut -d'"' -f2); do outs+=(--out "$n=$W/sim/$w/$n.npy"); done
  "$BIN" ptx run --bundle "$B" "${outs[@]}" > /dev/null 2>> "$W/$w.err" || echo "$w: simulator replay failed"
  timeout 60 python3 "$HERE/replay-bundle.py" "$B" --reps 5 --json "$OUT/events/$w.json" \
    --save-outputs "$W/gpu/$w" > "$W/$w.log" 2>&1 || echo "$w: GPU replay failed: $(tail -1 "$W/$w.log")"
  python3 "$HERE/compare-outputs.py" "$W/sim/$w" "$W/gpu/$w" --name "$w" --json "$OUT/outputs/$w.json" > /dev/null
  echo "$w: replayed at $((SECONDS - START)) s"
done
if command -v ncu > /dev/null; then
  for w in $NAMES; do
    if (( SECONDS - START > BUDGET )); then echo "ncu pass: budget spent before $w"; break; fi
    B=$W/bundle/$w
    [ -f "$B/launches.toml" ] || continue
    timeout 40 ncu --csv --print-units base --launch-count 30 --log-file "$OUT/ncu/$w.csv" \
      --metrics gpu__time_duration.sum,sm__cycles_elapsed.max,smsp__inst_executed.sum,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active \
      python3 "$HERE/replay-bundle.py" "$B" --reps 0 > /dev/null 2>&1 || echo "$w: ncu failed"
    echo "$w: profiled at $((SECONDS - START)) s"
  done
fi
echo "done in $((SECONDS - START)) s"
