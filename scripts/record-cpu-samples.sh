#!/bin/sh
# Re-records the in-tree CPU trace samples (crates/hetero/traces/*.wft.xz) with
# scripts/record-cpu-trace.sh: a compressor (gzip -6 of 4 MB of binaries), a sort (sort -n of
# 200k shuffled numbers) and a compiler run (cc1 -O2 of a preprocessed C file). Each keeps 1M
# records after skipping 5M instructions of start-up. Needs valgrind, gzip, sort, gcc.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
out="$here/crates/hetero/traces"
rec="$here/scripts/record-cpu-trace.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
cat /usr/bin/valgrind* /usr/bin/x* 2>/dev/null | head -c 4000000 > "$work/in.bin"
seq 1 200000 | shuf --random-source="$work/in.bin" > "$work/nums.txt"
cat > "$work/prog.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
struct node { int key; struct node *l, *r; };
static struct node *ins(struct node *t, int k) {
    if (!t) { t = calloc(1, sizeof *t); t->key = k; return t; }
    if (k < t->key) t->l = ins(t->l, k); else t->r = ins(t->r, k);
    return t;
}
static int sum(const struct node *t) { return t ? t->key + sum(t->l) + sum(t->r) : 0; }
int main(int argc, char **argv) {
    struct node *t = 0; char buf[256];
    for (int i = 0; i < argc * 1000; i++) { t = ins(t, (i * 7919) % 10007); }
    snprintf(buf, sizeof buf, "%d", sum(t)); puts(buf); return (int)strlen(buf);
}
C
gcc -E "$work/prog.c" -o "$work/prog.i"
cc1=$(gcc -print-prog-name=cc1)
"$rec" "$out/gzip.wft.xz" 5000000 1000000 -- gzip -6 -c "$work/in.bin"
"$rec" "$out/sort.wft.xz" 5000000 1000000 -- sort -n "$work/nums.txt"
"$rec" "$out/cc1.wft.xz" 5000000 1000000 -- "$cc1" -quiet -O2 "$work/prog.i" -o "$work/prog.s"
ls -l "$out"
