#!/bin/bash
# cmp.sh NEW: JSON statistics (all keys but wall_s, threads, sm_cycles_per_s, team) of NEW on 1, 2
# and auto threads against main on 1 (W4op): kmn/bfs small 120 SMs, bt/sr2 tiny 120 and 15 SMs
W="--set sim.window=4 --set sim.window_overlap=true --set sim.window_partitions=true"
NEW=$(readlink -f $1); E=${E:-/tmp/auto22}; mkdir -p $E/cmp; cd $E/cmp
run() { local n=$1 b=$2 t=$3; shift 3; nice -n 5 $b run "$@" --threads $t --json $n.json >/dev/null 2>&1 || echo "FAIL $n"; }
for case in "bfs small 120" "kmn small 120" "bt tiny 120" "sr2 tiny 120" "bt tiny 15" "sr2 tiny 15"; do
  set -- $case; wl=$1; sz=$2; sm=$3; tag=$wl-$sz-$sm
  run main-$tag $E/wf-main 1 $wl --size $sz --mode timing --set core.num_sms=$sm $W
  for t in 1 2 auto; do run new-$tag-$t $NEW $t $wl --size $sz --mode timing --set core.num_sms=$sm $W; done
  python3 - $tag <<'P'
import json,sys
tag=sys.argv[1]
def load(f):
    j=json.load(open(f))
    for k in ['wall_s','threads','sm_cycles_per_s','team']: j.pop(k,None)
    return j
m=load(f'main-{tag}.json')
res=[load(f'new-{tag}-{t}.json')==m for t in ('1','2','auto')]
a=json.load(open(f'new-{tag}-auto.json'))
t=a.get('team') or {}
print(tag,'cycles',m['cycles'],'equal to main (1, 2, auto):',res,'auto threads',a['threads'],'windows team/alone',t.get('windows_team'),t.get('windows_alone'),'probes',t.get('probes'))
P
done
