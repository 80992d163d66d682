#!/usr/bin/env python3
"""Cross-validation of the MWP-CWP model (gtx480 parameter set) against the timing model.

Usage: crossval.py PREDICT_JSON TIMING_DIR [--markdown]
  PREDICT_JSON  output of `warpforge predict --all --gpu gtx480 --size small --json FILE`
  TIMING_DIR    holds t_<workload>.json from `warpforge run W --mode timing --config gtx480
                --size small --json TIMING_DIR/t_W.json` and wall_<workload>.txt (seconds)
Prints per-workload predicted and simulated cycles, MAPE, Pearson correlation (linear and log)
and the speed ratio (simulation wall time / model evaluation time).
"""
import json, math, os, sys

def corr(x, y):
    mx, my = sum(x) / len(x), sum(y) / len(y)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    return sxy / math.sqrt(sum((a - mx) ** 2 for a in x) * sum((b - my) ** 2 for b in y))

def main():
    pred = json.load(open(sys.argv[1]))
    tdir = sys.argv[2]
    md = "--markdown" in sys.argv
    rows = []
    for r in pred:
        w = r["workload"]
        path = os.path.join(tdir, f"t_{w}.json")
        if not os.path.exists(path):
            continue
        t = json.load(open(path))
        sim = t["stats"]["total"]["cycles"]
        wall_path = os.path.join(tdir, f"wall_{w}.txt")
        wall = float(open(wall_path).read()) if os.path.exists(wall_path) else float("nan")
        rows.append((w, r["cycles"], sim, r["case"], r["model_s"], r["analyser_s"], wall))
    if md:
        print("| workload | predicted cycles | simulated cycles | pred/sim | case | model ms | sim s |")
        print("|---|---:|---:|---:|---|---:|---:|")
    for w, p, s, c, ms, an, wall in rows:
        if md:
            print(f"| {w} | {p:,.0f} | {s:,.0f} | {p/s:.2f} | {c} | {ms*1e3:.2f} | {wall:.2f} |")
        else:
            print(f"{w:16} pred {p:12.0f} sim {s:10.0f} ratio {p/s:5.2f} {c:12} model {ms*1e3:7.2f} ms sim {wall:6.2f} s")
    errs = [abs(p - s) / s for _, p, s, *_ in rows]
    xs = [p for _, p, *_ in rows]
    ys = [s for _, _, s, *_ in rows]
    speed = [wall / ms for *_, ms, _, wall in rows if ms > 0 and wall == wall]
    speed_an = [wall / an for *_, an, wall in rows if an > 0 and wall == wall]
    geo = lambda v: math.exp(sum(math.log(x) for x in v) / len(v))
    print(f"\nworkloads {len(rows)}  MAPE {100*sum(errs)/len(errs):.1f}%  median APE {100*sorted(errs)[len(errs)//2]:.1f}%"
          f"  Pearson r {corr(xs, ys):.3f}  r(log) {corr([math.log(v) for v in xs], [math.log(v) for v in ys]):.3f}")
    suite = [e for (w, *_), e in zip(rows, errs) if not w.startswith("micro_")]
    if suite and len(suite) < len(errs):
        sx = [p for (w, p, *_) in rows if not w.startswith("micro_")]
        sy = [s for (w, _, s, *_) in rows if not w.startswith("micro_")]
        print(f"suite only (no micro_*): workloads {len(suite)}  MAPE {100*sum(suite)/len(suite):.1f}%"
              f"  median APE {100*sorted(suite)[len(suite)//2]:.1f}%  Pearson r {corr(sx, sy):.3f}"
              f"  r(log) {corr([math.log(v) for v in sx], [math.log(v) for v in sy]):.3f}")
    if speed:
        print(f"speed: simulation / model evaluation geomean {geo(speed):,.0f}x (min {min(speed):,.0f}x);"
              f" simulation / (analyser functional run) geomean {geo(speed_an):.1f}x")

main()
