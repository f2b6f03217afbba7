#!/usr/bin/env bash
# run.sh SECONDS FUZZER...: runs each libFuzzer binary (built as
# .san/fuzz/fuzz_NAME by `make fuzz`) over the inputs of
# test/fuzz/regressions/NAME/ once each, then fuzzes it for its share of
# SECONDS from the seeds of test/fuzz/corpus/NAME/ (with the words of
# test/fuzz/NAME.dict, if there is one). What it finds goes to a
# working corpus beside the binary (kept between runs, so longer runs build
# on shorter ones); a crash is written to crashes/NAME/ there, and fails
# the run.
# Prints "fuzz NAME: ok" or "fuzz NAME: FAILED" per target; exits non-zero
# if any failed.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
total=$1
shift
share=$(( total / $# ))
[ "$share" -ge 1 ] || share=1
failed=0

for bin in "$@"; do
    name=$(basename "$bin")
    name=${name#fuzz_}
    work=$(dirname "$bin")/work/$name
    crashes=$(dirname "$bin")/crashes/$name
    log=$(dirname "$bin")/$name.log
    mkdir -p "$work" "$crashes"
    ok=1
    regressions=("$here/regressions/$name"/*)
    if [ -e "${regressions[0]}" ]; then
        "$bin" "${regressions[@]}" >"$log" 2>&1 || ok=0
    fi
    seeds=()
    [ -d "$here/corpus/$name" ] && seeds=("$here/corpus/$name")
    dict=()
    [ -f "$here/$name.dict" ] && dict=(-dict="$here/$name.dict")
    if [ "$ok" -eq 1 ]; then
        "$bin" -max_total_time="$share" -timeout=10 -rss_limit_mb=1024 -print_final_stats=1 \
            -artifact_prefix="$crashes/" "${dict[@]}" "$work" "${seeds[@]}" >>"$log" 2>&1 || ok=0
    fi
    if [ "$ok" -eq 1 ]; then
        runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
        echo "fuzz $name: ok (${runs:-0} inputs in ${share}s, $(ls "${regressions[@]}" 2>/dev/null | wc -l) regressions)"
    else
        failed=1
        echo "fuzz $name: FAILED"
        grep -m 40 -E 'ERROR|runtime error|property broken|SUMMARY|artifact_prefix|Test unit written|^    #' "$log"
        echo "  To keep a crash as a test case: minimize it with"
        echo "    $bin -minimize_crash=1 -runs=10000 CRASH_FILE"
        echo "  and copy the smallest into test/fuzz/regressions/$name/ (replayed on every run)."
    fi
done
exit "$failed"
