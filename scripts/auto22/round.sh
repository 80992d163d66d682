#!/bin/bash
# round.sh K NEW MAIN: one round for kmn and bfs (120 SMs, small, W4op), each run under
# /work/team/hi.sh: "idle" (NEW on 1, 2 and auto threads, MAIN on auto) between two `pp`
# (pinned ping-pong, one-way ns), then "busy" (the same four runs, each with a shell busy loop
# in its autogroup: the other core busy) between two `pp`; the order of the four rotates with K
E=${E:-/tmp/auto22}; D=$(readlink -f $(dirname $0)); k=$1; NEW=$2; MAIN=$3
case $((k % 4)) in 0) o="n1 n2 na ma";; 1) o="n2 na ma n1";; 2) o="na ma n1 n2";; 3) o="ma n1 n2 na";; esac
one() { # one MODE RUN WL
  local b t who
  case $2 in n1) b=$NEW t=1 who=new;; n2) b=$NEW t=2 who=new;; na) b=$NEW t=auto who=new;; ma) b=$MAIN t=auto who=main;; esac
  printf ' %-4s ' $who
  if [ $1 = busy ]; then
    /work/team/hi.sh bash -c "while :; do :; done & Y=\$!; $D/t.sh $b $3 $t; kill \$Y"
  else
    /work/team/hi.sh $D/t.sh $b $3 $t
  fi
}
for mode in idle busy; do
  for wl in kmn bfs; do
    echo "round $k $wl $mode $(date +%T) load $(cut -d' ' -f1 /proc/loadavg) pp $(/work/team/hi.sh $E/pp)"
    for r in $o; do one $mode $r $wl; done
    echo " pp-after $(/work/team/hi.sh $E/pp)"
  done
done
