#!/usr/bin/env python3
"""Launch floor and CTA dispatch rate of the H200 from empty-ncu-all.csv (empty.py --ncu, ncu
--cache-control all): least-squares fit of sm__cycles_elapsed.max = floor + gap x CTAs over the
`empty` kernel's launches (both block sizes), and the one-store kernel's (`touch`) extra cycles.

Usage: fit.py [empty-ncu-all.csv]
"""
import csv
import statistics
import sys
from pathlib import Path

path = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).with_name("empty-ncu-all.csv"))
pts = {}
for r in csv.reader(path.open()):
    if len(r) < 15 or r[0] == "ID" or r[12] != "sm__cycles_elapsed.max":
        continue
    grid = int(r[8].strip("()").split(",")[0])
    pts.setdefault((r[4], grid), []).append(int(r[14].replace(",", "")))
for kernel in ("empty", "touch"):
    xs, ys = [], []
    for (k, g), v in sorted(pts.items()):
        if k == kernel:
            xs += [g] * len(v)
            ys += v
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    gap = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    floor = my - gap * mx
    print(f"{kernel}: {len(xs)} launches, floor {floor:.0f} cycles + {gap:.3f} cycles/CTA "
          f"({1 / gap:.2f} CTAs/cycle)")
    for g in sorted({g for (k, g) in pts if k == kernel}):
        v = pts[(kernel, g)]
        print(f"  {g:>6} CTAs: {min(v)}-{max(v)} measured, fit {floor + gap * g:.0f}")
