#!/usr/bin/env bash
# Every test: core unit tests (plain, then under ASan+UBSan and TSan), the fuzz
# targets, pg_regress (serial, then with forced parallel plans) against a
# throwaway cluster, then the script tests in test/scripts; all on the
# system's PostgreSQL 15. Then the parts that involve PostgreSQL (pg_regress,
# the script tests) again on each major in OTHER_MAJORS (18, built from
# Debian's source package the first time: scripts/pg_from_source.sh); the
# core's tests do not depend on PostgreSQL and run once.
# Ends with "N passed, N failed" over everything, and exits non-zero on any
# failure. SKETCH_TEST_PART=postgres: only the PostgreSQL parts, on PG_MAJOR.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
OTHER_MAJORS=(18)

PASSED=0
FAILED=0
OUT=$(mktemp -d /tmp/sketchshare-test.XXXXXX)
chmod 777 "$OUT"

tally() {  # tally PASSED_COUNT FAILED_COUNT
    PASSED=$((PASSED + $1))
    FAILED=$((FAILED + $2))
}

run_unit_tests() {
    echo "== core unit tests"
    if ! make -C "$SKETCH_ROOT" -s PG_CONFIG="$PG_CONFIG" test/core/unit_tests; then
        echo "unit tests failed to build"; tally 0 1; return
    fi
    "$SKETCH_ROOT/test/core/unit_tests" --gtest_color=no >"$OUT/unit.log" 2>&1 || true
    grep -E '^\[  (FAILED|PASSED) |^\[==========\]' "$OUT/unit.log" || true
    local ok bad
    ok=$(grep -c '^\[       OK \]' "$OUT/unit.log" || true)
    bad=$(grep -cE '^\[  FAILED  \] .* \([0-9]+ ms\)$' "$OUT/unit.log" || true)
    if ! grep -q '^\[==========\] .* ran\.' "$OUT/unit.log"; then
        tail -20 "$OUT/unit.log"; bad=$((bad + 1))  # crashed before finishing
    fi
    [ "$bad" -eq 0 ] || grep -B5 -A20 'Failure' "$OUT/unit.log" | head -100
    tally "$ok" "$bad"
}

# The core benchmarks are not run here (bench/run.sh times them), but they
# must keep compiling against the core they measure.
build_core_benchmarks() {
    echo "== core benchmarks build"
    local b
    b=$(cd "$SKETCH_ROOT" && ls bench/core/*_bench.cpp | sed 's/\.cpp$//')
    # shellcheck disable=SC2086
    if make -C "$SKETCH_ROOT" -s PG_CONFIG="$PG_CONFIG" $b >"$OUT/bench-build.log" 2>&1; then
        echo "ok"; tally 1 0
    else
        grep -m 20 -E 'error' "$OUT/bench-build.log"; echo "FAILED"; tally 0 1
    fi
}

# The core compiled again by clang with sanitizers, into .san/ (see the
# Makefile): make_timed LOG TARGET... builds the targets, saying how long it took.
make_timed() {
    local log=$1 start=$SECONDS
    shift
    make -C "$SKETCH_ROOT" -s -j2 PG_CONFIG="$PG_CONFIG" "$@" >"$OUT/$log" 2>&1 ||
        { grep -m 20 -E 'error' "$OUT/$log"; return 1; }
    echo "built in $((SECONDS - start)) s"
}

# run_sanitized NAME: `make unit-NAME` (asan: every core unit test under
# AddressSanitizer and UBSan; tsan: the lock and shared-file tests under
# ThreadSanitizer), one step.
run_sanitized() {
    local name=$1 start
    echo "== core unit tests under $name"
    if ! make_timed "unit-$name-build.log" ".san/unit_tests_$name"; then
        echo "FAILED to build"; tally 0 1; return
    fi
    start=$SECONDS
    if make -C "$SKETCH_ROOT" -s PG_CONFIG="$PG_CONFIG" "unit-$name" >"$OUT/unit-$name.log" 2>&1; then
        grep -E '^\[  PASSED  \]' "$OUT/unit-$name.log" || true
        echo "ok (ran in $((SECONDS - start)) s)"; tally 1 0
    else
        grep -E -A30 '^\[  FAILED  \]|ERROR: |WARNING: ThreadSanitizer|runtime error' "$OUT/unit-$name.log" | head -80 || true
        echo "FAILED"; tally 0 1
    fi
}

# The fuzz targets (test/fuzz): their regressions, then FUZZ_SECONDS (60 by
# default) of fuzzing in all; each target counts as one test.
run_fuzzers() {
    local start ok bad
    echo "== fuzz targets"
    if ! make_timed fuzz-build.log fuzz-build; then
        echo "FAILED to build"; tally 0 1; return
    fi
    start=$SECONDS
    make -C "$SKETCH_ROOT" -s PG_CONFIG="$PG_CONFIG" fuzz FUZZ_SECONDS="${FUZZ_SECONDS:-60}" >"$OUT/fuzz.log" 2>&1 || true
    grep -v '^make' "$OUT/fuzz.log" || true
    ok=$(grep -c '^fuzz .*: ok' "$OUT/fuzz.log" || true)
    bad=$(grep -c '^fuzz .*: FAILED' "$OUT/fuzz.log" || true)
    [ $((ok + bad)) -gt 0 ] || bad=1  # run.sh itself failed
    echo "ran in $((SECONDS - start)) s"
    tally "$ok" "$bad"
}

# run_regress NAME [PGOPTIONS]: one pg_regress pass over sql/*.sql.
run_regress() {
    local name=$1 options=${2:-}
    local dir="$OUT/regress-$name"
    mkdir -p "$dir"
    chmod 777 "$dir"
    echo "== pg_regress ($name)"
    local tests
    tests=$(cd "$SKETCH_ROOT/sql" && ls *.sql | sed 's/\.sql$//' | sort)
    # from the root, where the tests' \i sql/include/... lines name their files
    (cd "$SKETCH_ROOT" && PGOPTIONS="$options" "$($PG_CONFIG --pkglibdir)/pgxs/src/test/regress/pg_regress" \
        --inputdir="$SKETCH_ROOT" --outputdir="$dir" --bindir="$($PG_CONFIG --bindir)" \
        --dbname="regress_$name" --load-extension=sketchshare $tests) >"$dir/log" 2>&1 || true
    cat "$dir/log"
    local ok bad
    ok=$(grep -cE '\.\.\. ok|^ok [0-9]+ ' "$dir/log" || true)
    bad=$(grep -cE '\.\.\. FAILED|^not ok [0-9]+ ' "$dir/log" || true)
    [ -f "$dir/regression.diffs" ] && [ "$bad" -gt 0 ] && head -200 "$dir/regression.diffs"
    if [ $((ok + bad)) -eq 0 ]; then bad=1; fi  # pg_regress itself failed
    tally "$ok" "$bad"
}

# A script test that hangs (a wait that stopped being cancellable, say)
# fails after 10 minutes instead of holding up the run; a test that builds
# names its own limit in a line "# time limit: SECONDS".
run_script_test() {  # run_script_test PATH
    local t=$1 limit start
    echo "== script test $(basename "$t")"
    limit=$(sed -n 's/^# time limit: \([0-9]*\)$/\1/p' "$t")
    start=$SECONDS
    if timeout --kill-after=10 "${limit:-600}" bash "$t" >"$OUT/$(basename "$t").log" 2>&1; then
        echo "ok ($((SECONDS - start)) s)"; tally 1 0
    else
        tail -40 "$OUT/$(basename "$t").log"; echo "FAILED ($((SECONDS - start)) s)"; tally 0 1
    fi
}

# The Debian package compiles the whole tree: it is built niced, with one
# job, from the start, in the CPU time the other tests leave, and
# debian_package.sh, run last, checks what was built.
DEB_DIR="$OUT/debian-build"
start_debian_build() {
    mkdir -p "$DEB_DIR"
    chmod 755 "$DEB_DIR"
    (DEB_JOBS=1 nice -n 19 bash -c "source '$SKETCH_ROOT/test/scripts/lib/debian_build.sh'; debian_build '$DEB_DIR'"
     echo $? >"$DEB_DIR/status") &
    DEB_PID=$!
}

# The citus_* tests start a Citus cluster of their own, and run only where
# Citus can be had: Citus 13.2 supports PostgreSQL 15 through 17.
run_script_tests() {
    local t citus_missing
    if [ "$PG_MAJOR" -gt 17 ]; then
        citus_missing="Citus 13.2 supports PostgreSQL 15-17, not $PG_MAJOR"
    else
        citus_missing=$(citus_available) || true
    fi
    [ -z "$citus_missing" ] || echo "== Citus tests skipped: $citus_missing"
    for t in "$SKETCH_ROOT"/test/scripts/*.sh; do
        [ -e "$t" ] || continue
        case $(basename "$t") in
            citus_*) [ -z "$citus_missing" ] || continue ;;
            debian_package.sh) continue ;;
            pg_upgrade.sh) [ "$PG_MAJOR" != "$SYSTEM_MAJOR" ] || continue ;;  # from 15 to the major under test
        esac
        run_script_test "$t"
    done
    [ -n "${DEB_PID:-}" ] || return 0
    echo "== waiting for the Debian package build"
    wait "$DEB_PID"
    SKETCH_DEB_BUILT=$DEB_DIR run_script_test "$SKETCH_ROOT/test/scripts/debian_package.sh"
}

# pg_regress twice (serial, then with forced parallel plans), then the script
# tests, on a throwaway cluster of PG_MAJOR.
run_postgres_parts() {
    cluster_start own
    run_regress serial
    local parallel="-c $(force_parallel_guc)=regress -c parallel_setup_cost=0 -c parallel_tuple_cost=0"
    parallel+=" -c min_parallel_table_scan_size=0 -c min_parallel_index_scan_size=0 -c max_parallel_workers_per_gather=2"
    parallel+=" -c sketchshare.partial_state_page_cost=0"
    run_regress parallel "$parallel"
    run_script_tests
    cluster_stop
}

# The other majors' PostgreSQL and extension builds start at once, niced, in
# the CPU time that the tests on 15 leave; each major's tests wait for its build.
declare -A OTHER_BUILD_PID=()
start_other_builds() {
    local major
    for major in "${OTHER_MAJORS[@]}"; do
        (env -u PG_CONFIG PG_MAJOR="$major" nice -n 19 bash -c \
            "source '$SKETCH_ROOT/scripts/lib.sh'; build_postgres && build_and_install" >"$OUT/build-pg$major.log" 2>&1) &
        OTHER_BUILD_PID[$major]=$!
    done
}

# run_other_major MAJOR: this script's PostgreSQL parts on MAJOR, their
# counts added to the tally.
run_other_major() {
    local major=$1 start=$SECONDS counts
    echo "== PostgreSQL $major: waiting for its build (log: $OUT/build-pg$major.log)"
    if ! wait "${OTHER_BUILD_PID[$major]}"; then
        tail -30 "$OUT/build-pg$major.log"; echo "PostgreSQL $major: build FAILED"; tally 0 1; return
    fi
    echo "built in $((SECONDS - BUILDS_STARTED)) s from the start of the run"
    env -u PG_CONFIG -u PGHOST -u PGPORT -u PGUSER -u PGDATABASE PG_MAJOR="$major" SKETCH_TEST_PART=postgres \
        bash "$SKETCH_ROOT/scripts/test.sh" 2>&1 | tee "$OUT/pg$major.log" | sed "s/^/[pg$major] /"
    counts=$(tail -1 "$OUT/pg$major.log")
    if [[ $counts =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
        tally "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
    else
        tally 0 1
    fi
    echo "PostgreSQL $major: $counts in $((SECONDS - start)) s"
}

export SKETCH_ROOT
if [ "${SKETCH_TEST_PART:-}" = postgres ]; then
    export PATH=$PG_BIN:$PATH
    build_postgres
    build_and_install >/dev/null
    run_postgres_parts
    [ "$FAILED" -eq 0 ] && rm -rf "$OUT"
    echo "$PASSED passed, $FAILED failed"
    [ "$FAILED" -eq 0 ]
    exit
fi

install_dependencies
build_and_install
BUILDS_STARTED=$SECONDS
start_other_builds
start_debian_build
run_unit_tests
build_core_benchmarks
run_sanitized asan
run_sanitized tsan
run_fuzzers
START_15=$SECONDS
run_postgres_parts
echo "PostgreSQL $SYSTEM_MAJOR: $PASSED passed, $FAILED failed in $SECONDS s (the PostgreSQL parts: $((SECONDS - START_15)) s)"
for major in "${OTHER_MAJORS[@]}"; do run_other_major "$major"; done
[ "$FAILED" -eq 0 ] && rm -rf "$OUT"
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
