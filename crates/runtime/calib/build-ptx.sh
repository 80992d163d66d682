#!/usr/bin/env bash
# Regenerates the LAX calibration kernels' PTX (crates/runtime/calib/NAME.ptx from NAME.cu) with
# clang-16 and exactly the flags of workloads/build-ptx.sh (tests/calib_ptx.rs checks that the
# FLAGS lines agree and that the committed PTX is what this script produces).
# Usage: crates/runtime/calib/build-ptx.sh [NAME...]   (default: every *.cu here)
# With PTX_OUT_DIR set, writes NAME.ptx there instead of beside the source.
set -euo pipefail
cd "$(dirname "$0")"
INC=../../../workloads/include
CLANG=${CLANG:-clang-16}
FLAGS=(-x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_70 -O2 -S
       -Xclang -target-feature -Xclang +ptx70 -I include -g0)
if [ $# -eq 0 ]; then set -- $(ls *.cu | sed 's/\.cu$//'); fi
for k in "$@"; do
  if [ -n "${PTX_OUT_DIR:-}" ]; then out="$PTX_OUT_DIR/$k.ptx"; else out="$k.ptx"; fi
  "$CLANG" "${FLAGS[@]}" -I "$INC" "$k.cu" -o "$out"
done
