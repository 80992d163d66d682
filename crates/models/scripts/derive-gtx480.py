#!/usr/bin/env python3
"""Re-derives the probe-measured numbers of crates/models/params/gtx480.toml from the timing model,
the way the thesis fitted Table 5 with micro-benchmarks on the hardware.

Usage: derive-gtx480.py [WARPFORGE_BINARY] [--config gtx480]
  (default binary: target/release/warpforge under $CARGO_TARGET_DIR or the repository)

* l1_latency, l2_latency, mem_ld: per-hop cycles of the pointer-chase probes micro_lat_l1 /
  micro_lat_l2 / micro_lat_dram, from the difference of their two measured launches (2n - n hops),
  so launch and cold-start costs cancel.
* smem_pass_cycles: micro_smem runs the same kernel with word stride 1 (conflict free) and 32
  (32-way bank conflicts); the cycle difference divided by the extra bank-conflict passes per SM
  (the analyser's smem_extra_passes per warp x warps per SM, from `warpforge predict`).
Prints each derived value next to the one in the parameter file.
"""
import json, os, subprocess, sys, tempfile, tomllib

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def binary():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if args:
        return args[0]
    tgt = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    return os.path.join(tgt, "release", "warpforge")


def config():
    if "--config" in sys.argv:
        return sys.argv[sys.argv.index("--config") + 1]
    return "gtx480"


def sim(wf, w, tmp):
    out = os.path.join(tmp, f"t_{w}.json")
    subprocess.run([wf, "run", w, "--mode", "timing", "--config", config(), "--size", "small",
                    "--json", out], check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    return [k["cycles"] for k in json.load(open(out))["stats"]["kernels"]]


def main():
    wf = binary()
    params = tomllib.load(open(os.path.join(ROOT, "crates/models/params/gtx480.toml"), "rb"))
    mem = params["memory"]
    with tempfile.TemporaryDirectory() as tmp:
        rows = []
        for w, key in [("micro_lat_l1", "l1_latency"), ("micro_lat_l2", "l2_latency"),
                       ("micro_lat_dram", "mem_ld")]:
            c = sim(wf, w, tmp)
            # The last two launches chase n and 2n hops (n = 512 at `small`).
            hops = 512
            rows.append((key, (c[-1] - c[-2]) / hops, mem.get(key)))
        c = sim(wf, "micro_smem", tmp)
        pj = os.path.join(tmp, "p.json")
        subprocess.run([wf, "predict", "micro_smem", "--gpu", "gtx480", "--size", "small",
                        "--json", pj], check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
        p = json.load(open(pj))
        p = p[0] if isinstance(p, list) else p
        l1, l2 = p["launches"][0], p["launches"][1]
        extra = (l2["inputs"]["smem_extra_passes"] - l1["inputs"]["smem_extra_passes"]) \
            * l2["model"]["n"]
        rows.append(("smem_pass_cycles", (c[1] - c[0]) / extra, mem.get("smem_pass_cycles")))
    for key, got, have in rows:
        print(f"{key:18} derived {got:8.2f}   params/gtx480.toml {have}")


main()
