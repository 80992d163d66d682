#!/bin/bash
# Session 22 (hetero): why Table 1's 16 SP lanes cost IM's CPU weighted speed-up on lbm/H and bs/H
# (docs/history/EXPERIMENTS-004.md, GPGPU, "Session 22 (hetero)"; docs/PERFORMANCE.md, "Session 22: hetero").
# Usage: scripts/hetero22/trace.sh BIN OUTDIR
# Runs, at --size small on the H mixes, every model of the Session 21 attribution (main's 64 lanes
# without store fetch, 16 lanes alone, fetch alone, both) under FR-FCFS and IM with session 21's
# level-1 rule (OLD, `policy.crit_busy_unit_waits=true`), the crit_closest_reason ablation,
# policy seeds 1-6 on bs/H (IM and two of its parts) and 1-4 on lbm/H, IM's parts on lbm/H, and
# main / 16 lanes / both under session 22's default rule (names ending in N); then prints the
# tables with trace.py. On the old binary (e6d403b) drop OLD: the key does not exist there.
set -euo pipefail
W=$1; O=$2; mkdir -p "$O"
L64="--gpu-set core.sp_units=2 --gpu-set core.initiation.int_alu=1 --gpu-set core.initiation.int_mul=2
 --gpu-set core.initiation.int_div=8 --gpu-set core.initiation.fp_alu=1 --gpu-set core.initiation.fp_div=4
 --gpu-set core.initiation.branch=1 --gpu-set core.initiation.collective=4"
NF="--set llc.gpgpu_store_fetch=false"
CR="--set policy.crit_closest_reason=true"
OLD="--set policy.crit_busy_unit_waits=true"
run() { # NAME WORKLOADS POLICIES ARGS...
  local n=$1 w=$2 p=$3; shift 3
  /usr/bin/time -f "$n %U %S %e" -a -o "$O/times.txt" nice -n 10 "$W" experiment hetero --size small \
    --workloads "$w" --mixes H --policy "$p" --no-interference --no-beyond-llc --jobs 2 --seeds 1 \
    --json "$O/$n.json" "$@" > "$O/$n.log" 2>&1
}
# shellcheck disable=SC2086
{
for s in 1 2 3 4; do
  sx=""; [ "$s" = 1 ] || sx="_s$s"
  run main$sx bs,lbm frfcfs,im $L64 $NF $OLD --set policy.seed=$s
  run lanes$sx bs,lbm frfcfs,im $NF $OLD --set policy.seed=$s
  run base$sx bs,lbm frfcfs,im $OLD --set policy.seed=$s
done
run fetch bs,lbm frfcfs,im $L64 $OLD
run mainCR bs,lbm frfcfs,im $L64 $NF $CR
run lanesCR bs,lbm frfcfs,im $NF $CR
run bothCR bs,lbm frfcfs,im $CR
for s in 1 2 3 4 5 6; do
  run bm_s$s bs frfcfs,im,im_no_probe,im_sched $L64 $NF $OLD --set policy.seed=$s
  run bl_s$s bs frfcfs,im,im_no_probe,im_sched $NF $OLD --set policy.seed=$s
  run blN_s$s bs frfcfs,im,im_no_probe,im_sched $NF --set policy.seed=$s
done
run lm lbm frfcfs,im_no_probe,im_sched,im_bypass $L64 $NF $OLD
run ll lbm frfcfs,im_no_probe,im_sched,im_bypass $NF $OLD
run mainN bs,lbm frfcfs,im $L64 $NF
run lanesN bs,lbm frfcfs,im $NF
run baseN bs,lbm frfcfs,im
}
python3 "$(dirname "$0")/trace.py" "$O"
