#!/usr/bin/env bash
# Regenerates every workload's PTX from its CUDA source with clang-16 (no CUDA toolkit needed).
# Usage: workloads/build-ptx.sh [NAME...]   (default: every workloads/*/kernel.cu)
# With PTX_OUT_DIR set, writes NAME.ptx there instead of over the committed NAME/kernel.ptx (the
# PTX-matches-source test uses this).
# The flags are part of the contract with the PTX-matches-source test: change them here only.
set -euo pipefail
cd "$(dirname "$0")"
CLANG=${CLANG:-clang-16}
FLAGS=(-x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_70 -O2 -S
       -Xclang -target-feature -Xclang +ptx70 -I include -g0)
if [ $# -eq 0 ]; then set -- $(ls -d */ | tr -d / | grep -v -e include -e src -e tests); fi
for w in "$@"; do
  [ -f "$w/kernel.cu" ] || continue
  if [ -n "${PTX_OUT_DIR:-}" ]; then out="$PTX_OUT_DIR/$w.ptx"; else out="$w/kernel.ptx"; fi
  "$CLANG" "${FLAGS[@]}" "$w/kernel.cu" -o "$out"
done
