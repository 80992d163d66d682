#!/bin/bash
# busy.sh R NEW: R rounds of NEW on 1, 2 and auto threads (kmn and bfs, 120 SMs small W4op) while one
# busy loop competes in the same autogroup (all under /work/team/hi.sh): "the other core is busy"
E=${E:-/tmp/auto22}; D=$(readlink -f $(dirname $0))
for r in $(seq $1); do
  for wl in kmn bfs; do
    echo "round $r $wl $(date +%T) load $(cut -d' ' -f1 /proc/loadavg)"
    for t in 1 2 auto; do
      echo -n " busy "
      /work/team/hi.sh bash -c "while :; do :; done & Y=\$!; $D/t.sh $2 $wl $t; kill \$Y"
    done
  done
done
