#!/usr/bin/env python3
"""summary.py FULL.json: the row-16 figures of a whole `experiment hetero` run (policies over
FR-FCFS, IM per workload, IM's counters, the §3 level-1 and critical shares per workload under
FR-FCFS and IM, claims 17, 18 and 20)."""
import json
import sys
from math import prod

d = json.load(open(sys.argv[1]))


def geo(v):
    return prod(v) ** (1 / len(v)) if v else float("nan")


P = d["policies"]
for name, p in P.items():
    print(f"{name:13s} GPU {p['gpu_speedup']:.3f} CPU {p['cpu_weighted_speedup']:.3f} EW {p['equal_weight']:.3f}")
wl = []
for mx in d["mixes"]:
    if mx["gpu"] not in wl:
        wl.append(mx["gpu"])
for pol in ["im", "gpu_favoring", "helm", "sms_09", "sms_0"]:
    if pol not in P:
        continue
    row = []
    for w in wl:
        idx = [i for i, mx in enumerate(d["mixes"]) if mx["gpu"] == w]
        g = geo([P[pol]["per_mix"][i]["gpu_speedup"] for i in idx])
        c = geo([P[pol]["per_mix"][i]["cpu_weighted_speedup"] for i in idx])
        row.append(f"{w} {g:.3f} / {c:.3f}")
    print(f"{pol}: " + ", ".join(row))
im = P["im"]
c = im.get("counters", {})
print("IM counters:", {k: round(v, 3) for k, v in c.items()})
for pol in ["frfcfs", "im"]:
    row = []
    for w in wl:
        idx = [i for i, mx in enumerate(d["mixes"]) if mx["gpu"] == w]
        b = sum(P[pol]["per_mix"][i]["gpu_bottlenecked_fraction"] for i in idx) / len(idx)
        cr = sum(P[pol]["per_mix"][i]["gpu_critical_fraction"] for i in idx) / len(idx)
        cyc = [P[pol]["per_mix"][i]["gpu_cycles"] for i in idx]
        row.append(f"{w} bott {b:.2f} crit {cr:.2f} cyc {cyc}")
    print(f"{pol}: " + "; ".join(row))
print("per-workload IM counters:")
for w in wl:
    idx = [i for i, mx in enumerate(d["mixes"]) if mx["gpu"] == w]
    cs = [im["per_mix"][i].get("counters", {}) for i in idx]
    print(f"  {w}: p {[round(x.get('im_sched_mean_probability', 0), 3) for x in cs]} "
          f"capped {[round(x.get('im_sched_capped_fraction', 0), 2) for x in cs]} "
          f"emergency {[round(x.get('im_llc_emergency_fraction', 0), 2) for x in cs]} "
          f"all-GPU {[round(x.get('all_gpu_cycle_fraction', 0), 2) for x in cs]}")
print("claim 17:", d.get("stall_table_coverage"))
print("claim 18:", d.get("hardware_bytes"))
it = d.get("interference")
if it:
    pts = it.get("points", [])
    print("claim 20 (cores, GPU cycles change):",
          [(p["cpu_cores"], round(p["gpu_cycles_change"], 3)) for p in pts])
