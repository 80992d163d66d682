#!/usr/bin/env python3
"""Writes a large Accel-Sim trace for memory and speed checks of the streaming reader: the real
matrixmul trace (../shared/reference/accelsim-traces/matrixmul-32-32-trace, one 1024-thread block,
179 KB) repeated as N thread blocks of one kernel (N = 6000 gives 1.07 GB).
Usage: scripts/big-trace.py N OUTDIR   (then `xz -0 -T2 OUTDIR/kernel-1.traceg` for the .xz form)"""
import os, sys

here = os.path.dirname(os.path.abspath(__file__))
ref = os.path.join(here, "..", "..", "shared", "reference", "accelsim-traces", "matrixmul-32-32-trace")
n, out = int(sys.argv[1]), sys.argv[2]
src = open(os.path.join(ref, "kernel-1.traceg")).read()
cut = src.index("#BEGIN_TB")
header = src[:cut].replace("-grid dim = (1,1,1)", f"-grid dim = ({n},1,1)")
block = src[cut:]
assert "thread block = 0,0,0" in block and "-grid dim = (1,1,1)" in src[:cut]
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "kernel-1.traceg"), "w") as f:
    f.write(header)
    for b in range(n):
        f.write(block.replace("thread block = 0,0,0", f"thread block = {b},0,0"))
with open(os.path.join(ref, "kernelslist.g")) as src_list, open(os.path.join(out, "kernelslist.g"), "w") as dst:
    dst.write(src_list.read())
