#!/bin/bash
# bench.sh R NEW: R rounds of [pp, NEW 1 thread, NEW --threads 2, NEW --threads auto, main 2] for kmn
# and bfs (120 SMs, small, W4op), each run under /work/team/hi.sh; the order of the three NEW runs rotates
E=${E:-/tmp/auto22}; D=$(dirname $0)
for r in $(seq $1); do
  for wl in kmn bfs; do
    echo "round $r $wl $(date +%T) load $(cut -d' ' -f1 /proc/loadavg) pp $(/work/team/hi.sh $E/pp)"
    case $((r % 3)) in 0) o="1 2 auto";; 1) o="2 auto 1";; 2) o="auto 1 2";; esac
    for t in $o; do echo -n " new  "; /work/team/hi.sh $D/t.sh $2 $wl $t; done
    echo -n " main "; /work/team/hi.sh $D/t.sh $E/wf-main $wl 2
    echo " pp-after $(/work/team/hi.sh $E/pp)"
  done
done
