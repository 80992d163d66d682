#!/usr/bin/env bash
# Thread scaling of the window engine on a many-core machine (issue 20; docs/PERFORMANCE.md).
#
# Usage: scripts/device-scaling.sh BIN OUTDIR [SECONDS]
#   BIN      a warpforge release binary (a lent device machine has no Rust: carry one built here,
#            e.g. `strip -o target/dev/warpforge target/release/warpforge`)
#   OUTDIR   results: host.txt, one JSON / .out / .time (GNU time -v) per step, steps.txt
#   SECONDS  wall-clock budget; a step that would start past it is skipped (default 420, so that
#            one device call of 600 s holds the whole script)
#
# Steps, most important first (each is one command; every JSON carries the statistics, which must
# be identical for every thread count of a step):
#   1. `bench --what scaling` on 120 and 15 SMs with the engine settings of docs/PERFORMANCE.md
#      (W = 4, overlap, partitions): wall time and speed-up for 1, 2, 4, ... threads up to the
#      core count (issue 20's ">= 6x at 16 threads on 120 SMs");
#   2. `run kmn|bfs` on 120 SMs with `--threads 1` and `--threads auto` on the idle host, then
#      again with half the cores kept busy by spinners at the runs' own priority (another user's
#      load: "never slower than one thread with --threads auto");
#   3. the same scaling on 120 SMs with W = 16 (how much of the loss is per-window
#      synchronisation: a model change, so compare speed-ups, not cycles, with step 1);
#   4. `bench --what timing` (single-thread warp instructions/s on this host).
set -u
BIN=$(realpath "$1")
OUT=$(realpath -m "$2")
BUDGET=${3:-420}
START=$SECONDS
mkdir -p "$OUT"
W4=(--set sim.window=4 --set sim.window_overlap=true --set sim.window_partitions=true)
W16=(--set sim.window=16 --set sim.window_overlap=true --set sim.window_partitions=true)
{
  echo "cores: $(nproc)"
  lscpu 2>/dev/null | grep -E "Model name|Socket|Core|Thread|NUMA node\(s\)"
  echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
  "$BIN" --version 2>/dev/null
} > "$OUT/host.txt"

# step NAME CMD...: runs CMD under GNU time unless the budget is spent.
step() {
  local name=$1
  shift
  if (( SECONDS - START > BUDGET )); then
    echo "$name: skipped, budget spent at $((SECONDS - START)) s" | tee -a "$OUT/steps.txt"
    return
  fi
  local t0=$SECONDS
  /usr/bin/time -v "$@" > "$OUT/$name.out" 2> "$OUT/$name.time"
  echo "$name: rc=$? in $((SECONDS - t0)) s (at $((SECONDS - START)) s)" | tee -a "$OUT/steps.txt"
}

# runs TAG: kmn and bfs on 120 SMs with one thread and with `--threads auto`.
runs() {
  local t wl
  for t in 1 auto; do
    for wl in kmn bfs; do
      step "run-$wl-$t-$1" "$BIN" run "$wl" --size small --mode timing --set core.num_sms=120 \
        "${W4[@]}" --threads "$t" --json "$OUT/run-$wl-$t-$1.json"
    done
  done
}

step scaling-w4 "$BIN" bench --what scaling "${W4[@]}" --sms 120,15 --json "$OUT/scaling-w4.json"
runs idle
SPIN=()
for _ in $(seq 1 $(( $(nproc) / 2 ))); do
  sh -c 'while :; do :; done' &
  SPIN+=($!)
done
runs busy
kill "${SPIN[@]}" 2>/dev/null
wait 2>/dev/null
step scaling-w16 "$BIN" bench --what scaling "${W16[@]}" --sms 120 --json "$OUT/scaling-w16.json"
step timing "$BIN" bench --what timing --json "$OUT/timing.json"
echo "done at $((SECONDS - START)) s" | tee -a "$OUT/steps.txt"
