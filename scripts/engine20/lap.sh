#!/bin/bash
# lap.sh BIN WL T: per-window laps (ticks) of the instrumented build
W="--set sim.window=4 --set sim.window_overlap=true --set sim.window_partitions=true"
WF_TEAMPROF=1 /work/team/hi.sh $1 run $2 --size small --mode timing --set core.num_sms=120 --threads $3 $W 2>&1 | python3 -c "
import sys,re
d={}; wall=''
for l in sys.stdin:
    m=re.match(r'PROF (\S+)\s+(\d+)',l)
    if m: d[m.group(1)]=int(m.group(2))
    if 'thread(s)' in l: wall=l.split(':')[1].split(',')[0]
n=d.get('s_windows',1)
ks=['s_eject','s_dispatch','s_setup','s_post_upd','s_commit','s_post_rel','s_bottom']
seq=sum(d.get(k,0) for k in ks)
print('$2 T$3', wall, 'per window (ticks):', ' '.join(f'{k[2:]}={d.get(k,0)/n:.0f}' for k in ks), f'SEQ={seq/n:.0f}', f'phase={d.get(\"x21\",0)/n:.0f}', f'c_wait={d.get(\"c_wait\",0)/n:.0f} w_tail={d.get(\"w_tail_idle\",0)/n:.0f} w_seen={d.get(\"w_seen_lat\",0)/n:.0f} c_open={d.get(\"c_open\",0)/n:.0f}')
"
