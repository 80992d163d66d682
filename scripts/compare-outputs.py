#!/usr/bin/env python3
"""Compare a program's final buffers from two runs, buffer by buffer: warpforge's functional
executor (`warpforge ptx run --bundle B --out NAME=SIM/NAME.npy`) and a real GPU
(`scripts/replay-bundle.py B --save-outputs GPU`). Buffers are bytes; a buffer whose bytes differ
is also read as 32-bit floats and as 32-bit integers, to tell rounding (approximate
transcendentals, fused multiply-adds chosen by the GPU's compiler) from wrong results.

Usage: scripts/compare-outputs.py SIM GPU [--json OUT.json] [--name WORKLOAD]
Prints one line per buffer; exits 0 whatever it finds (the JSON is the result)."""
import argparse
import json
import pathlib

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("sim", type=pathlib.Path)
ap.add_argument("gpu", type=pathlib.Path)
ap.add_argument("--json", type=pathlib.Path)
ap.add_argument("--name", default="")
a = ap.parse_args()

rows = []
for f in sorted(a.sim.glob("*.npy")):
    g = a.gpu / f.name
    row = {"buffer": f.stem}
    if not g.exists():
        row["error"] = "no GPU output"
        rows.append(row)
        continue
    s = np.load(f).view(np.uint8).reshape(-1)
    d = np.load(g).view(np.uint8).reshape(-1)
    n = min(s.size, d.size)
    row["bytes"] = int(s.size)
    row["identical"] = bool(s.size == d.size and np.array_equal(s, d))
    if not row["identical"] and n % 4 == 0 and n > 0:
        sf, df = s[:n].view(np.float32), d[:n].view(np.float32)
        si, di = s[:n].view(np.int32), d[:n].view(np.int32)
        diff = si != di
        row["words_differing"] = int(diff.sum())
        row["words"] = int(n // 4)
        with np.errstate(all="ignore"):
            both = np.isfinite(sf) & np.isfinite(df) & diff
            rel = np.abs(sf[both] - df[both]) / np.maximum(np.abs(sf[both]), 1e-30)
            ulp = np.abs(si[both].astype(np.int64) - di[both].astype(np.int64))
        row["f32_max_rel_diff"] = float(rel.max()) if rel.size else None
        row["f32_max_ulp"] = int(ulp.max()) if ulp.size else None
        row["nonfinite_mismatch"] = int((diff & ~both).sum())
    rows.append(row)
    print(a.name, json.dumps(row))
if a.json:
    a.json.write_text(json.dumps({"workload": a.name, "buffers": rows}, indent=1) + "\n")
