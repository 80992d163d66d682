#!/usr/bin/env python3
"""Replay a warpforge launch bundle on a real NVIDIA GPU and time every launch.

A bundle is what `warpforge run WORKLOAD --dump-launches DIR` writes: kernel.ptx, launches.toml
and the buffers as .npy files. This script loads the PTX with CuPy's RawModule (the driver JIT
compiles it for the GPU at hand), creates the buffers, then runs the launches in order, copying
in each launch's `inputs` (what the host wrote between launches) first, exactly as
`warpforge ptx run --bundle DIR` does on the simulator.

Timing: the whole program runs once as a warm-up (JIT, caches, clocks), then --reps more times
from the recorded initial memory; each launch is timed with CUDA events and the median over the
repetitions is reported, in milliseconds and in SM cycles at the device's reported SM clock
(`clockRate`; for cycle-exact figures run the script under Nsight Compute and read
`sm__cycles_elapsed.max` instead).

Module `.global` variables that the host wrote (`[[global]]`, `global_inputs`) are copied in
through RawModule.get_global. With --save-outputs DIR, every buffer's final bytes after the first
(warm-up) run are written there as NAME.npy (u8), for comparison (scripts/compare-outputs.py)
with the bundle's recorded final bytes (`final_bN.npy`) or `warpforge ptx run --bundle DIR --out
NAME=PATH`.
--reps 0 runs the program once and times nothing: the mode to run under Nsight Compute, whose
per-kernel figures (`sm__cycles_elapsed.max`, `smsp__inst_executed.sum`) replace the events.

Usage: scripts/replay-bundle.py DIR [--reps N] [--json OUT.json] [--save-outputs DIR]
Needs: python3 with numpy and cupy, an NVIDIA GPU. Pointers stored *inside* buffers are not
relocated (the simulator's addresses differ from the GPU's); warpforge's built-in workloads pass
every pointer as a kernel argument.
"""

import argparse
import json
import pathlib
import statistics
import sys

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

import numpy as np
import cupy as cp

SCALARS = {
    "u32": np.uint32,
    "s32": np.int32,
    "i32": np.int32,
    "u64": np.uint64,
    "s64": np.int64,
    "i64": np.int64,
    "f32": np.float32,
    "f64": np.float64,
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bundle", type=pathlib.Path)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json", type=pathlib.Path)
    ap.add_argument("--save-outputs", type=pathlib.Path)
    a = ap.parse_args()
    d = a.bundle
    script = tomllib.loads((d / "launches.toml").read_text())
    mod = cp.RawModule(path=str(d / script["ptx"]))

    sizes = {}
    initial = {}
    for b in script.get("buffer", []):
        if b["type"] != "u8":
            sys.exit(f"buffer {b['name']}: bundles store bytes (u8), got {b['type']}")
        init = b.get("init", "zeros")
        if init == "zeros":
            data = np.zeros(b["count"], np.uint8)
        elif init.startswith("file:"):
            data = np.load(d / init[5:]).view(np.uint8).reshape(-1)
        else:
            sys.exit(f"buffer {b['name']}: unsupported init {init}")
        if data.size != b["count"]:
            sys.exit(f"buffer {b['name']}: {data.size} bytes, expected {b['count']}")
        sizes[b["name"]] = b["count"]
        initial[b["name"]] = data
    bufs = {n: cp.empty(max(s, 1), cp.uint8) for n, s in sizes.items()}
    inputs = [
        {n: np.load(d / f).view(np.uint8).reshape(-1) for n, f in l.get("inputs", {}).items()}
        for l in script["launch"]
    ]
    # Module `.global` variables the host wrote (cudaMemcpyToSymbol): initial bytes, then
    # per-launch rewrites.
    globals_init = {}
    for g in script.get("global", []):
        if not g["init"].startswith("file:"):
            sys.exit(f"global {g['name']}: unsupported init {g['init']}")
        globals_init[g["name"]] = np.load(d / g["init"][5:]).view(np.uint8).reshape(-1)
    global_inputs = [
        {n: np.load(d / f).view(np.uint8).reshape(-1) for n, f in l.get("global_inputs", {}).items()}
        for l in script["launch"]
    ]

    def write_global(name, data):
        ptr = mod.get_global(name)
        ptr.copy_from_host(np.ascontiguousarray(data).ctypes.data, data.nbytes)

    def arg(text):
        kind, _, v = text.partition(":")
        if kind == "buf":
            name, _, off = v.partition("+")
            return np.uint64(bufs[name].data.ptr + int(off or 0))
        if kind == "bytes":
            sys.exit("by-value struct parameters (bytes:) are not supported by this script")
        t = SCALARS[kind]
        return t(float(v)) if kind.startswith("f") else t(int(v))

    launches = []
    for l in script["launch"]:
        fn = mod.get_function(l["kernel"])
        args = tuple(arg(x) for x in l.get("args", []))
        launches.append((l, fn, args))

    def run_program(times):
        for n, data in initial.items():
            if data.size:
                bufs[n][: data.size].set(data)
        for n, data in globals_init.items():
            write_global(n, data)
        for k, (l, fn, args) in enumerate(launches):
            for n, data in inputs[k].items():
                bufs[n][: data.size].set(data)
            for n, data in global_inputs[k].items():
                write_global(n, data)
            for _ in range(l.get("repeat", 1)):
                start, end = cp.cuda.Event(), cp.cuda.Event()
                start.record()
                fn(tuple(l["grid"]), tuple(l["block"]), args, shared_mem=l.get("shared", 0))
                end.record()
                end.synchronize()
                if times is not None:
                    times.setdefault(k, []).append(cp.cuda.get_elapsed_time(start, end))

    run_program(None)  # warm-up
    cp.cuda.Device().synchronize()
    if a.save_outputs:
        a.save_outputs.mkdir(parents=True, exist_ok=True)
        for n, b in bufs.items():
            np.save(a.save_outputs / f"{n}.npy", cp.asnumpy(b[: sizes[n]]))
    if a.reps == 0:
        return
    reps = [dict() for _ in range(a.reps)]
    for t in reps:
        run_program(t)
    props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
    clock_hz = props["clockRate"] * 1e3
    rows = []
    for k, (l, _, _) in enumerate(launches):
        # Each repetition timed the launch `repeat` times; sum them per repetition.
        per_rep = [sum(t[k]) for t in reps]
        ms = statistics.median(per_rep)
        rows.append({
            "launch": k + 1,
            "kernel": l["kernel"],
            "grid": l["grid"],
            "block": l["block"],
            "repeat": l.get("repeat", 1),
            "ms": ms,
            "cycles": ms * 1e-3 * clock_hz,
        })
        print(f"{k + 1:4} {l['kernel']:32} {ms:10.4f} ms {ms * 1e-3 * clock_hz:14.0f} cycles")
    total_ms = sum(r["ms"] for r in rows)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    print(f"total {total_ms:.4f} ms on {name} at {clock_hz / 1e6:.0f} MHz")
    if a.json:
        a.json.write_text(json.dumps({
            "bundle": str(d),
            "gpu": name,
            "sm_clock_hz": clock_hz,
            "reps": a.reps,
            "total_ms": total_ms,
            "total_cycles": total_ms * 1e-3 * clock_hz,
            "launches": rows,
        }, indent=2) + "\n")


if __name__ == "__main__":
    main()
