#!/bin/bash
# cmp.sh NEW: JSON statistics (all keys but wall_s, threads, sm_cycles_per_s) of NEW on 1, 2, 3 threads against main on 1
W="--set sim.window=4 --set sim.window_overlap=true --set sim.window_partitions=true"
mkdir -p ${E:-/tmp/engine}/cmp; cd ${E:-/tmp/engine}/cmp
run() { # name bin T args...
  local n=$1 b=$2 t=$3; shift 3
  nice -n 5 $b run "$@" --threads $t --json $n.json >/dev/null 2>&1 || echo "FAIL $n"
}
for case in "bfs small 120" "kmn small 120" "bt tiny 120" "sr2 tiny 120" "bt tiny 15" "sr2 tiny 15"; do
  set -- $case; wl=$1; sz=$2; sm=$3; tag=$wl-$sz-$sm
  run main-$tag ${E:-/tmp/engine}/wf-main 1 $wl --size $sz --mode timing --set core.num_sms=$sm $W
  for t in 1 2 3; do run new-$tag-$t $NEWBIN $t $wl --size $sz --mode timing --set core.num_sms=$sm $W; done
  python3 - $tag <<'P'
import json,sys
tag=sys.argv[1]
def load(f):
    j=json.load(open(f))
    for k in ['wall_s','threads','sm_cycles_per_s']: j.pop(k,None)
    return j
m=load(f'main-{tag}.json')
res=[load(f'new-{tag}-{t}.json')==m for t in (1,2,3)]
print(tag, 'cycles', m['cycles'], 'equal to main (1,2,3 threads):', res)
P
done
