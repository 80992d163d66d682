#!/usr/bin/env python3
"""Builds the "Real hardware" tables of docs/VALIDATION.md from a scripts/gpu-validate.sh result
directory and warpforge timing runs of the same workloads.

Usage: scripts/silicon-table.py RESULTS SIMDIR
  RESULTS  gpu-validate.sh's OUTDIR (ncu/W.csv, events/W.json, outputs/W.json)
  SIMDIR   W.json files of `warpforge run W --mode timing --config h100 --size small
           --set core.launch_latency=1800 --set l2.flush_between_launches=true --json
           SIMDIR/W.json`, i.e. scripts/silicon-sim.sh; before 2026-11-26 launch latency 0, no flush

Per workload, the first launches that Nsight Compute profiled (up to 30) are matched one to one,
in launch order, with the simulator's kernels (`stats.kernels`); the table sums their SM cycles
(`sm__cycles_elapsed.max`, against the simulator's `cycles`) and warp instructions (SASS
`smsp__inst_executed.sum` against warpforge's PTX warp instructions)."""
import csv
import json
import math
import pathlib
import sys

res, sim = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])


def ncu(path):
    """Per-launch metric dicts, in launch order."""
    rows = {}
    text = path.read_text().splitlines()
    start = next((i for i, l in enumerate(text) if l.startswith('"ID"')), None)
    if start is None:
        return []
    for r in csv.DictReader(text[start:]):
        v = r["Metric Value"].replace(",", "")
        try:
            rows.setdefault(int(r["ID"]), {"kernel": r["Kernel Name"]})[r["Metric Name"]] = float(v)
        except ValueError:
            pass
    return [rows[k] for k in sorted(rows)]


out, errs, logs = [], [], []
for f in sorted((res / "ncu").glob("*.csv")):
    w = f.stem
    keys = ("sm__cycles_elapsed.max", "smsp__inst_executed.sum")
    hw = [r for r in ncu(f) if all(not math.isnan(r.get(k, math.nan)) for k in keys)]
    sp = sim / f"{w}.json"
    if not hw or not sp.exists():
        print(f"{w}: no Nsight Compute figures or no simulator run", file=sys.stderr)
        continue
    ks = json.loads(sp.read_text())["stats"]["kernels"]
    n = min(len(hw), len(ks))
    names_match = all(hw[i]["kernel"] == ks[i]["kernel"] for i in range(n))
    hc = sum(hw[i]["sm__cycles_elapsed.max"] for i in range(n))
    sc = sum(ks[i]["cycles"] for i in range(n))
    hi = sum(hw[i]["smsp__inst_executed.sum"] for i in range(n))
    si = sum(ks[i]["warp_insts"] for i in range(n))
    err = sc / hc - 1
    o = res / "outputs" / f"{w}.json"
    outs = "—"
    if o.exists():
        b = json.loads(o.read_text())["buffers"]
        if any("error" in x for x in b):
            outs = "not run on the GPU"
        elif all(x["identical"] for x in b):
            outs = f"identical ({len(b)} buffers)"
        else:
            d = [x for x in b if not x["identical"]]
            rel = max((x.get("f32_max_rel_diff") or 0) for x in d)
            nf = sum(x.get("nonfinite_mismatch", 0) for x in d)
            outs = f"{len(d)} of {len(b)} differ, max relative {rel:.1e}" + (f", {nf} non-finite" if nf else "")
    out.append((w, n, len(ks), names_match, hc, sc, err, hi, si, outs))
    errs.append(abs(err))
    logs.append((math.log(hc), math.log(sc)))

print("| workload | launches compared (of) | H200 SM cycles | warpforge `h100` cycles | error | H200 SASS warp insts | warpforge PTX warp insts | PTX/SASS | final buffers vs warpforge |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
for w, n, tot, ok, hc, sc, err, hi, si, outs in out:
    print(f"| {w}{'' if ok else ' (names differ)'} | {n} ({tot}) | {hc:,.0f} | {sc:,} | {100*err:+.0f}% | {hi:,.0f} | {si:,} | {si/hi:.2f} | {outs} |")
errs.sort()
mx = sum(x for x, _ in logs) / len(logs)
my = sum(y for _, y in logs) / len(logs)
cov = sum((x - mx) * (y - my) for x, y in logs)
r = cov / math.sqrt(sum((x - mx) ** 2 for x, _ in logs) * sum((y - my) ** 2 for _, y in logs))
print()
print(f"{len(out)} workloads: mean absolute cycle error {100*sum(errs)/len(errs):.0f}%, median {100*errs[len(errs)//2]:.0f}%, "
      f"within 15%: {sum(e <= 0.15 for e in errs)}, within 50%: {sum(e <= 0.5 for e in errs)}; "
      f"correlation of log cycles {r:.3f}")
