#!/bin/bash
# bench2.sh R NEW: R rounds of [pp, WL t1 main, t2 main, t2 NEW] for kmn and bfs (W4op, 120 SMs, small, hi.sh)
W="--set sim.window=4 --set sim.window_overlap=true --set sim.window_partitions=true"
for r in $(seq $1); do
  for wl in kmn bfs; do
    echo "round $r $wl $(date +%T) load $(cut -d' ' -f1 /proc/loadavg) pp $(/work/team/hi.sh ${E:-/tmp/engine}/pp)"
    echo -n " main "; /work/team/hi.sh ${E:-/tmp/engine}/t.sh ${E:-/tmp/engine}/wf-main $wl 1 $W
    echo -n " main "; /work/team/hi.sh ${E:-/tmp/engine}/t.sh ${E:-/tmp/engine}/wf-main $wl 2 $W
    echo -n " new  "; /work/team/hi.sh ${E:-/tmp/engine}/t.sh $2 $wl 2 $W
  done
done
echo "end $(date +%T) load $(cut -d' ' -f1 /proc/loadavg) pp $(/work/team/hi.sh ${E:-/tmp/engine}/pp)"
