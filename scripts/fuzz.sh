#!/usr/bin/env bash
# Fuzz one parser of warpforge for SECONDS: scripts/fuzz.sh TARGET SECONDS [wf-fuzz options]
# Targets: ptx, trace, config, gpgpusim (`wf-fuzz --list`). Seeds: the repository's own files,
# plus ../shared/reference when it exists. Kept inputs go to target/fuzz/corpus/TARGET, crashes
# to target/fuzz/crashes/TARGET (copy a fixed one to crates/fuzz/regressions/TARGET/ to keep it
# as a regression test). A hang or an oversized allocation ends the fuzzer (exit 3) after saving
# the input; the script then restarts it with a new seed for the time left.
set -uo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
    echo "usage: scripts/fuzz.sh TARGET SECONDS [wf-fuzz options]" >&2
    exit 2
fi
target=$1; secs=$2; shift 2
cargo build --release -q -p warpforge-fuzz || exit 2
corpus=(--corpus .)
[ -d ../shared/reference ] && corpus+=(--corpus ../shared/reference)
end=$(( $(date +%s) + secs ))
seed=1
status=0
while :; do
    left=$(( end - $(date +%s) ))
    [ "$left" -le 0 ] && break
    nice -n 19 target/release/wf-fuzz "$target" --seconds "$left" --seed "$seed" "${corpus[@]}" "$@"
    rc=$?
    case $rc in
        0) break ;;
        1) status=1; break ;;
        3) status=1; seed=$((seed + 1)) ;;   # hang / allocation: saved, go on
        *) exit "$rc" ;;
    esac
done
ls target/fuzz/crashes/"$target" 2>/dev/null | sed 's/^/crash: /'
exit $status
