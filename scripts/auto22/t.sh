#!/bin/bash
# t.sh BIN WL T [extra args]: /usr/bin/time -v of one 120-SM small W4op run; prints wall, CPU-s,
# context switches, cycles and (auto) the team report: windows team/alone, probes, median one-way ns,
# and (session 22) suspect probes, judged/absent phases, absent/present periods
B=$1; WL=$2; T=$3; shift 3
E=${E:-/tmp/auto22}; J=$E/j.$$.json
W="--set sim.window=4 --set sim.window_overlap=true --set sim.window_partitions=true"
/usr/bin/time -v -o $E/tv.$$ $B run $WL --size small --mode timing --set core.num_sms=120 $W --threads $T --json $J "$@" >/dev/null 2>&1
python3 - $J $E/tv.$$ $WL $T <<'P'
import json,sys,re
j=json.load(open(sys.argv[1])); tv=open(sys.argv[2]).read()
g=lambda k: re.search(re.escape(k)+r':\s*([\d.:]+)',tv).group(1)
u=float(g('User time (seconds)')); s=float(g('System time (seconds)'))
t=j.get('team')
team='' if not t else f" team {t['windows_team']} alone {t['windows_alone']} sw {t['switches']} probes {t['probes']} near {t['probes_near']} far {t['probes_far']} unans {t['probes_unanswered']} stalled {t['probes_stalled']} ow {t['one_way_ns_min']}/{t['one_way_ns_median']}/{t['one_way_ns_max']} moves {t['worker_moves']} probe_ms {t['probe_ns']/1e6:.3f} suspect {t.get('probes_suspect','-')} judged {t.get('phases_judged','-')} absent {t.get('phases_absent','-')} per_abs {t.get('periods_absent','-')} starved {t.get('periods_starved','-')} per_pres {t.get('periods_present','-')} share {t.get('cpu_share_median_permille','-')}"
print(f"{sys.argv[3]} t{sys.argv[4]} wall {j['wall_s']:.3f} cpu {u+s:.2f} vcs {g('Voluntary context switches')} ics {g('Involuntary context switches')} threads {j['threads']} cycles {j['cycles']}{team}")
P
rm -f $J $E/tv.$$
