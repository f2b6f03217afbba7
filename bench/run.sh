#!/usr/bin/env bash
# Benchmarks SQL statements side by side in one run on a throwaway cluster.
#   bash bench/run.sh [--rows N] [--runs R] [suite ...]
# Loads t(x bigint, s text, g int) with N rows (default 10M) of random bigint,
# 32-char text and 1000 groups, then runs each suite in bench/suites (all by
# default) and prints every statement's median and its ratio to its baseline.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ROWS=10000000
RUNS=5
bench_options "$@"
SUITES=()
for s in "${BENCH_ARGS[@]}"; do SUITES+=("$SKETCH_ROOT/bench/suites/$s.sql"); done
[ ${#SUITES[@]} -gt 0 ] || SUITES=("$SKETCH_ROOT"/bench/suites/*.sql)

install_dependencies
build_and_install
cluster_start own
psql -X -q -v ON_ERROR_STOP=1 <<SQL
CREATE EXTENSION sketchshare;
CREATE EXTENSION IF NOT EXISTS hll;
SELECT setseed(0.42);
CREATE TABLE t AS
SELECT x, md5(x::text) AS s, (abs(x) % 1000)::int AS g
FROM (SELECT (random() * 9.2e18 * 2 - 9.2e18)::bigint AS x FROM generate_series(1, $ROWS)) r;
VACUUM ANALYZE t;
SQL
echo "== t: $ROWS rows, $RUNS runs per statement (median shown)"
for suite in "${SUITES[@]}"; do
    python3 "$SKETCH_ROOT/bench/bench.py" --runs "$RUNS" "$suite"
done
