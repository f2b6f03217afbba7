#!/usr/bin/env bash
# The aggregates on a Citus cluster (a coordinator and two workers on this
# machine) against count(x), beside the same ratios on one node, in one run.
#   bash bench/citus_bench.sh [--rows N] [--runs R]
# Loads t_local (a plain table on the coordinator), t (distributed by x, 8
# shards) and t2 (2 shards, one per worker) with the same N rows (default 10M)
# as bench/run.sh loads its t, and fs (one stored filter per shard of t),
# then times
# bench/citus/aggregates.sql with bench/bench.py.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ROWS=10000000
RUNS=5
bench_options "$@"
install_dependencies
build_and_install
citus_available >/dev/null || { echo "Citus is needed: $(citus_available)"; exit 1; }
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
source "$SKETCH_ROOT/test/scripts/lib/citus.sh"
citus_start
psql -X -q -v ON_ERROR_STOP=1 >/dev/null <<SQL
SELECT setseed(0.42);
CREATE TABLE t_local AS
SELECT x, md5(x::text) AS s, (abs(x) % 1000)::int AS g
FROM (SELECT (random() * 9.2e18 * 2 - 9.2e18)::bigint AS x FROM generate_series(1, $ROWS)) r;
CREATE TABLE t (x bigint, s text, g int);
SELECT create_distributed_table('t', 'x');
INSERT INTO t SELECT * FROM t_local;
CREATE TABLE t2 (x bigint, s text, g int);
SELECT create_distributed_table('t2', 'x', shard_count => 2);
INSERT INTO t2 SELECT * FROM t_local;
-- fs: one filter per shard of t, each of the rows of one eighth of t_local,
-- stored out of line uncompressed (as a state travels)
CREATE TABLE fs (k bigint, b bloom);
ALTER TABLE fs ALTER COLUMN b SET STORAGE EXTERNAL;
SELECT create_distributed_table('fs', 'k', colocate_with => 't');
INSERT INTO fs
SELECT k.k, (SELECT bloom_agg(x, 10000000, 0.01) FROM t_local WHERE abs(hashint8(x)) % 8 = k.i)
FROM (SELECT k, row_number() OVER (ORDER BY k) - 1 AS i
      FROM (SELECT DISTINCT ON (get_shard_id_for_distribution_column('t', k)) k
            FROM generate_series(1::bigint, 1000) k
            ORDER BY get_shard_id_for_distribution_column('t', k), k) d) k;
VACUUM ANALYZE t_local;
VACUUM ANALYZE t;
VACUUM ANALYZE t2;
SQL
echo "== t and t_local: $ROWS rows, $RUNS runs per statement (median shown); $(nproc) cores"
python3 "$SKETCH_ROOT/bench/bench.py" --runs "$RUNS" "$SKETCH_ROOT/bench/citus/aggregates.sql"
