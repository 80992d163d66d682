#!/bin/bash
# t.sh BIN WL T [extra args]: /usr/bin/time -v of one 120-SM small run; prints wall, user, sys, ctx
B=$1; WL=$2; T=$3; shift 3
J=${E:-/tmp/engine}/j.$$.json
/usr/bin/time -v -o ${E:-/tmp/engine}/tv.$$ $B run $WL --size small --mode timing --set core.num_sms=120 --threads $T --json $J "$@" >/dev/null 2>&1
python3 - $J ${E:-/tmp/engine}/tv.$$ $WL $T <<'P'
import json,sys,re
j=json.load(open(sys.argv[1])); tv=open(sys.argv[2]).read()
g=lambda k: re.search(re.escape(k)+r':\s*([\d.:]+)',tv).group(1)
def find(d,k):
    if isinstance(d,dict):
        if k in d: return d[k]
        for v in d.values():
            r=find(v,k)
            if r is not None: return r
    return None
u=float(g('User time (seconds)')); s=float(g('System time (seconds)'))
print(f"{sys.argv[3]} t{sys.argv[4]} wall {find(j,'wall_s'):.3f} cpu {u+s:.2f} (u {u:.2f} s {s:.2f}) vcs {g('Voluntary context switches')} ics {g('Involuntary context switches')} cycles {find(j,'cycles')}")
P
rm -f $J ${E:-/tmp/engine}/tv.$$
