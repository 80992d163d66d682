#!/usr/bin/env bash
# Profile-guided release build of `warpforge` (issue 20 item 5; docs/PERFORMANCE.md, "Session 23:
# single"). The simulator's code is unchanged: the compiler lays out the same program by the
# branch and call counts of a training run, so statistics are identical to the plain release
# build's (checked there on 13 runs); only its speed differs.
#
# Usage: scripts/pgo-build.sh [WORKDIR]
#   WORKDIR  scratch space for the two target directories and the profiles (default
#            target/pgo); the optimised binary ends up in WORKDIR/warpforge.
#
# Needs the `llvm-profdata` that matches rustc's LLVM: `rustup component add llvm-tools`.
# Cost: two release builds of the workspace in their own target directories (about 12 and 5
# minutes on the 2-core dev VM; later runs are incremental) and a training run of under a
# minute. Training set: `bench --what timing` (the seven bench workloads at `small`, one and two
# threads), `kmn` and `bfs` at `small`, and a tiny `experiment hetero` (the CPU-GPU path).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(realpath -m "${1:-$ROOT/target/pgo}")
SYSROOT=$(rustc --print sysroot)
HOST=$(rustc -vV | sed -n 's/^host: //p')
PROFDATA="$SYSROOT/lib/rustlib/$HOST/bin/llvm-profdata"
if [ ! -x "$PROFDATA" ]; then
    echo "pgo-build: $PROFDATA not found; run: rustup component add llvm-tools" >&2
    exit 2
fi
# The same CPU level as .cargo/config.toml (RUSTFLAGS replaces its rustflags).
BASE="-C target-cpu=x86-64-v2"
RAW="$WORK/raw"
mkdir -p "$WORK/train"
rm -rf "$RAW"
cd "$ROOT"

echo "pgo-build: 1/3 instrumented build" >&2
RUSTFLAGS="$BASE -Cprofile-generate=$RAW" \
    cargo build --release -p warpforge --target-dir "$WORK/gen"
GEN="$WORK/gen/release/warpforge"

echo "pgo-build: 2/3 training run" >&2
T="$WORK/train"
"$GEN" bench --what timing --json "$T/bench.json" >/dev/null
"$GEN" run kmn --size small --mode timing --json "$T/kmn.json" >/dev/null
"$GEN" run bfs --size small --mode timing --json "$T/bfs.json" >/dev/null
"$GEN" experiment hetero --size tiny --workloads bfs --mixes H --policy frfcfs,im --jobs 1 \
    --json "$T/hetero.json" >/dev/null
"$PROFDATA" merge -o "$WORK/merged.profdata" "$RAW"

echo "pgo-build: 3/3 optimised build" >&2
RUSTFLAGS="$BASE -Cprofile-use=$WORK/merged.profdata" \
    cargo build --release -p warpforge --target-dir "$WORK/use"
cp "$WORK/use/release/warpforge" "$WORK/warpforge"
echo "pgo-build: $WORK/warpforge" >&2
