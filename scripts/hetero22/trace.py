#!/usr/bin/env python3
"""Tables of Session 22 (hetero) from the JSON files that trace.sh / seeds18.sh write.

Usage: trace.py OUTDIR. Prints, per model and policy on bs/H and lbm/H, GPU cycles, IM's GPU /
CPU weighted speed-up, the share of GPU L1D misses marked critical, the §3 level-1 bottlenecked
fraction, why misses were non-critical, IM-SCHED's p and capped share, IM-LLC's emergency share,
the all-GPU probe's cycle share and kept windows, and the CPU reads' wait split; then the seed
tables. Missing files are skipped.
"""
import json
import os
import sys
from math import prod

O = sys.argv[1]


def load(n):
    p = os.path.join(O, n + ".json")
    return json.load(open(p)) if os.path.exists(p) else None


def geo(v):
    return prod(v) ** (1 / len(v)) if v else float("nan")


def mix_rows(n):
    d = load(n)
    if d is None:
        return
    for pol, P in d["policies"].items():
        for i, m in enumerate(P["per_mix"]):
            mem, c = m["memory"], m.get("counters", {})
            nr = m.get("gpu_noncritical_reasons", {})
            print(
                f"{n:8s} {pol:11s} {d['mixes'][i]['gpu']:4s} cyc {m['gpu_cycles']:7d} "
                f"gpu {m['gpu_speedup']:.3f} cpu {m['cpu_weighted_speedup']:.3f} "
                f"cpu_w {m['cpu_weighted']:.4f} crit {m['gpu_critical_fraction']:.3f} "
                f"bott {m['gpu_bottlenecked_fraction']:.3f} "
                f"nc(nb/abs/ntop) {nr.get('not_bottlenecked', 0):.3f}/"
                f"{nr.get('absent_high_llc_miss_rate', 0):.3f}/{nr.get('in_table_not_top', 0):.3f} | "
                f"p {c.get('im_sched_mean_probability', 0):.3f} cap {c.get('im_sched_capped_fraction', 0):.2f} "
                f"emg {c.get('im_llc_emergency_fraction', 0):.2f} "
                f"allgpu {c.get('all_gpu_cycle_fraction', 0):.2f} "
                f"kept {c.get('probe_windows_kept', 0):.0f}/{c.get('probes_fired', 0):.0f} | "
                f"cpu llc_hit {mem['cpu_llc_hit_rate']:.3f} reads {mem['cpu_reads']:.0f} "
                f"lat {mem['cpu_read_latency']:.0f} front {mem['cpu_dram_front_wait']:.0f} "
                f"queue {mem['cpu_dram_queue_wait']:.0f} drain {mem['cpu_dram_queue_drain_wait']:.0f} "
                f"ahead_front cg/ng {mem['cpu_ahead_front_cg']:.0f}/{mem['cpu_ahead_front_ng']:.0f} "
                f"passed cg/ng/cpu {mem['cpu_passed_by_cg']:.1f}/{mem['cpu_passed_by_ng']:.1f}/"
                f"{mem['cpu_passed_by_cpu']:.1f} | front_mean {mem['dram_read_overflow_mean']:.0f} "
                f"front_cg_mean {mem.get('dram_front_cg_mean', float('nan')):.1f} "
                f"no_cg {mem.get('dram_front_no_cg_fraction', float('nan')):.3f} "
                f"bus {mem['dram_bus_fraction']:.3f} gpu_rowhit {mem['gpu_dram_row_hit_fraction']:.3f} "
                f"gpu_in_flight {mem['gpu_reads_in_flight']:.0f} gpu_dram_w {mem['gpu_dram_writes']:.0f}"
            )


print("== per model (seed 1) ==")
for n in ["main", "lanes", "fetch", "base", "mainCR", "lanesCR", "bothCR", "lm", "ll",
          "mainN", "lanesN", "baseN"]:
    mix_rows(n)

print("\n== IM's CPU weighted speed-up by policy seed, H mixes ==")
for cfg in ["main", "lanes", "base"]:
    per = {}
    for s in range(1, 5):
        d = load(cfg + ("" if s == 1 else f"_s{s}"))
        if d is None:
            continue
        for i, mx in enumerate(d["mixes"]):
            f = d["policies"]["frfcfs"]["per_mix"][i]
            m = d["policies"]["im"]["per_mix"][i]
            per.setdefault(mx["gpu"], []).append((m["cpu_weighted_speedup"], m["cpu_weighted"], f["cpu_weighted"]))
    for w, v in per.items():
        print(f"{cfg:6s} {w:4s} IM cpu {[round(x[0], 3) for x in v]} geo {geo([x[0] for x in v]):.3f} "
              f"| IM cpu_w geo {geo([x[1] for x in v]):.4f} FR-FCFS cpu_w {v[0][2]:.4f}")

print("\n== bs/H, seeds 1-6: IM and two of its parts ==")
for cfg, name in [("bm", "main 64 lanes"), ("bl", "16 lanes"), ("blN", "16 lanes, new")]:
    per = {}
    for s in range(1, 7):
        d = load(f"{cfg}_s{s}")
        if d is None:
            continue
        for pol in ["frfcfs", "im", "im_no_probe", "im_sched"]:
            m = d["policies"][pol]["per_mix"][0]
            mem = m["memory"]
            per.setdefault(pol, []).append((m["cpu_weighted_speedup"], m["cpu_weighted"],
                                            mem.get("dram_front_no_cg_fraction", float("nan")),
                                            mem["cpu_dram_front_wait"]))
    for pol, v in per.items():
        c = [x[0] for x in v]
        print(f"{name:14s} {pol:11s} cpu {[round(x, 3) for x in c]} geo {geo(c):.3f} "
              f"cpu_w geo {geo([x[1] for x in v]):.4f} | no_cg {[round(x[2], 3) for x in v]} "
              f"| cpu front wait {[round(x[3]) for x in v]}")

print("\n== 18 small mixes, IM over FR-FCFS by policy seed (seeds18.sh) ==")
runs = [(f"full_s{s}", f"seeds18 seed {s}") for s in range(1, 9)]
runs += [(f"fullO_s{s}", f"old rule, seed {s}") for s in range(1, 9)]
runs += [(f"fullN_s{s}", f"new rule, seed {s}") for s in range(1, 9)] + [("full22", "full22 (seed 1)")]
for n, s in runs:
    d = load(n)
    if d is None:
        continue
    im = d["policies"]["im"]
    by = {}
    for i, mx in enumerate(d["mixes"]):
        m = im["per_mix"][i]
        by.setdefault(mx["gpu"], []).append(m["cpu_weighted_speedup"])
    print(f"{s}: GPU {im['gpu_speedup']:.3f} CPU {im['cpu_weighted_speedup']:.3f} EW {im['equal_weight']:.3f} | "
          + " ".join(f"{w} {geo(v):.3f}" for w, v in by.items()))
