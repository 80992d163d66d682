#!/usr/bin/env python3
"""Regenerates the suite table of docs/VALIDATION.md: every workload at a size on a preset, under
GTO and LRR, with `warpforge run --mode timing`. Usage:
    scripts/validation-table.py [--bin target/release/warpforge] [--size small] [--config gtx480] [-j 2]
Prints the Markdown table on stdout; a failed run or check is a row saying so."""
import argparse, json, os, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor

ap = argparse.ArgumentParser()
ap.add_argument("--bin", default="target/release/warpforge")
ap.add_argument("--size", default="small")
ap.add_argument("--config", default="gtx480")
ap.add_argument("-j", type=int, default=2)
a = ap.parse_args()

names = subprocess.run([a.bin, "list", "--names"], check=True, capture_output=True, text=True).stdout.split()

def run(job):
    name, sched = job
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "s.json")
        p = subprocess.run([a.bin, "run", name, "--mode", "timing", "--size", a.size, "--config", a.config,
                            "--set", f"core.scheduler={sched}", "--json", out], capture_output=True, text=True)
        if p.returncode != 0:
            return job, None, p.stderr.strip().splitlines()[-1:] or ["failed"]
        return job, json.load(open(out))["stats"]["total"], None

jobs = [(n, s) for n in names for s in ("gto", "lrr")]
res = {}
with ThreadPoolExecutor(a.j) as ex:
    for (job, tot, err) in ex.map(run, jobs):
        res[job] = (tot, err)
        print(f"done {job}", file=sys.stderr)

def cols(t):
    return [f"{t['cycles']:,}", f"{t['ipc']:.1f}", f"{100*t['l1d']['hit_rate']:.1f}%",
            f"{100*t['l2']['hit_rate']:.1f}%", f"{100*t['dram']['bandwidth_utilization']:.1f}%"]

print("| workload | check | GTO cycles | GTO IPC | GTO L1D hit | GTO L2 hit | GTO DRAM util | LRR cycles | LRR IPC | LRR L1D hit | LRR L2 hit | LRR DRAM util | LRR/GTO cycles |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for n in names:
    g, ge = res[(n, "gto")]
    l, le = res[(n, "lrr")]
    if g is None or l is None:
        print(f"| {n} | error: {(ge or le)[0]} |" + " |" * 11)
        continue
    check = g["check"] if g["check"] == l["check"] else f"{g['check']}/{l['check']}"
    print(f"| {n} | {check} | " + " | ".join(cols(g)) + " | " + " | ".join(cols(l)) +
          f" | {l['cycles']/g['cycles']:.2f} |")
