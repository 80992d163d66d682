#!/usr/bin/env python3
"""same.py A.json B.json: exit 1 if the two `experiment hetero` JSON files differ anywhere
except wall/task seconds and the keys new in B (session 22's front-CG counters)."""
import json
import sys

SKIP = {"wall_seconds", "task_seconds"}


def diff(a, b, path, out):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in a:
            if k in SKIP:
                continue
            if k not in b:
                out.append(f"{path}.{k} missing in B")
            else:
                diff(a[k], b[k], f"{path}.{k}", out)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f"{path} length {len(a)} != {len(b)}")
        for i, (x, y) in enumerate(zip(a, b)):
            diff(x, y, f"{path}[{i}]", out)
    elif a != b:
        out.append(f"{path}: {a} != {b}")


out = []
diff(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), "", out)
print("\n".join(out[:20]) if out else "identical")
sys.exit(1 if out else 0)
