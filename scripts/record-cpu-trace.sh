#!/bin/sh
# Records a CPU memory-access trace of a real program with valgrind lackey and converts it to the
# in-tree `wftrace` format (crates/hetero/src/cpu/trace.rs), xz-compressed.
#
#   scripts/record-cpu-trace.sh OUT.wft.xz SKIP MAX -- program args...
#
# SKIP: instructions to skip first (start-up: dynamic loader, libc init); MAX: records to keep.
# Lackey prints "I addr,size" per instruction and " L"/" S"/" M" per data access (M = load +
# store). Consecutive accesses of one kind to one 64 B block fold into one record; the gap counts
# every instruction since the previous record. The output is written to a temporary file and
# renamed, so a failed run leaves no half-written trace.
set -eu
if [ $# -lt 5 ] || [ "$4" != "--" ]; then
    echo "usage: $0 OUT.wft.xz SKIP MAX -- program args..." >&2
    exit 2
fi
out=$1; skip=$2; max=$3; shift 4
command -v valgrind >/dev/null || { echo "$0: valgrind not found" >&2; exit 2; }
tmp="$out.tmp.$$"
trap 'rm -f "$tmp"' EXIT INT TERM
desc=$(printf '%s ' "$@" | tr -s ' ' | cut -c1-120)
valgrind --tool=lackey --trace-mem=yes --log-fd=3 "$@" 3>&1 >/dev/null 2>/dev/null </dev/null |
awk -v skip="$skip" -v max="$max" -v desc="$desc" '
function hexval(s,   i, c, v) {
    v = 0
    for (i = 1; i <= length(s); i++) {
        c = index("0123456789abcdef", substr(s, i, 1))
        if (c == 0) return -1
        v = v * 16 + c - 1
    }
    return v
}
function emit(kind, blk) {
    if (kind == pk && blk == pb && n > 0) { folded += gap; gap = 0; return }
    if (pk != "") { print (pg + folded) " " pk " " pb; n++; if (n >= max) { done = 1; exit } }
    pk = kind; pb = blk; pg = gap; gap = 0; folded = 0
}
BEGIN { print "wftrace 1 " desc; n = 0; insts = 0; gap = 0; pk = ""; folded = 0; done = 0 }
/^==/ { next }
{
    t = $1
    if (t == "I") { insts++; if (insts > skip) gap++; next }
    if (insts <= skip) next
    split($2, a, ",")
    addr = a[1]
    # block number = addr / 64, in hex: drop the last digit and halve... use arithmetic on the
    # value (addresses fit a double exactly below 2^53).
    v = hexval(tolower(addr))
    if (v < 0) next
    blk = sprintf("%x", int(v / 64))
    if (gap == 0) gap = 1
    if (t == "L") emit("r", blk)
    else if (t == "S") emit("w", blk)
    else if (t == "M") { emit("r", blk); gap = 1; emit("w", blk) }
}
END {
    if (pk != "" && !done) { print (pg + folded) " " pk " " pb; n++ }
    print "end " n
}' | xz -6 > "$tmp"
mv "$tmp" "$out"
trap - EXIT
echo "$out: $(xz -dc "$out" | tail -1)" >&2
