#!/usr/bin/env python3
"""Writes the 1M-element vecAdd Accel-Sim trace of issue 14 (item 5) from the real vectoradd trace
(../shared/reference/accelsim-traces/vectoradd-100-32-trace, N = 100, one 1024-thread block):
warp 0's listing (the full path: two LDG.E.CG, FADD, STG.E) re-addressed for N = 1,048,576 elements,
256 threads per CTA, 4,096 CTAs, float arrays a, b, c at base, base + 4N, base + 8N (base = the
trace's own a). Each warp's loads and store use compression mode 1 (first lane's address, stride 4).
Usage: scripts/vecadd-1m-trace.py OUTDIR [N] [THREADS_PER_CTA]   (about 33 MB for the defaults)"""
import os, sys

here = os.path.dirname(os.path.abspath(__file__))
ref = os.path.join(here, "..", "..", "shared", "reference", "accelsim-traces", "vectoradd-100-32-trace")
out = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 1 << 20
tpb = int(sys.argv[3]) if len(sys.argv) > 3 else 256
assert tpb % 32 == 0 and n % tpb == 0, "N must be a multiple of the CTA size, a multiple of 32"
ctas, warps = n // tpb, tpb // 32

src = open(os.path.join(ref, "kernel-1.traceg")).read()
cut = src.index("#BEGIN_TB")
header = src[:cut]
for old, new in (("-grid dim = (1,1,1)", f"-grid dim = ({ctas},1,1)"),
                 ("-block dim = (1024,1,1)", f"-block dim = ({tpb},1,1)")):
    assert old in header, old
    header = header.replace(old, new)
# warp 0's instructions: from the line after "insts = 23" up to the blank line before "warp = 1"
body = src[cut:]
w0 = body.index("warp = 0\n")
lines = body[w0:].split("\n")
assert lines[1] == "insts = 23", lines[1]
insts = lines[2:25]
assert insts[-1].endswith("EXIT 0 0 ") and "STG.E" in insts[-3]
base = None
mem = []  # (index, prefix, array) for the three memory instructions
for k, line in enumerate(insts):
    if "LDG" in line or "STG" in line:
        tok = line.split()
        addr = int(tok[-2], 16)
        assert tok[-3] == "1" and tok[-1] == "4", line  # mode 1, stride 4
        if base is None:
            base = addr
        arr = (addr - base) // 0x200  # the trace's arrays are 0x200 bytes apart
        mem.append((k, " ".join(tok[:-2]), arr))
assert [m[2] for m in mem] == [0, 1, 2], mem

os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "kernel-1.traceg"), "w") as f:
    f.write(header)
    for c in range(ctas):
        f.write(f"#BEGIN_TB\n\nthread block = {c},0,0\n\n")
        for w in range(warps):
            first = c * tpb + w * 32
            cur = list(insts)
            for k, prefix, arr in mem:
                cur[k] = f"{prefix} {base + arr * 4 * n + 4 * first:#x} 4 "
            f.write(f"warp = {w}\ninsts = {len(cur)}\n" + "\n".join(cur) + "\n\n")
        f.write("#END_TB\n\n")
with open(os.path.join(out, "kernelslist.g"), "w") as f:
    for arr in range(3):
        f.write(f"MemcpyHtoD,{base + arr * 4 * n:#018x},{4 * n}\n")
    f.write("kernel-1.traceg\n")
