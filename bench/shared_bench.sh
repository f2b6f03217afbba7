#!/usr/bin/env bash
# Shared objects, measured side by side in one run on a throwaway cluster:
#  1. pgbench, 1/2/4/8 clients (--clients), T seconds per run (default 5), R rounds (default 3)
#     interleaved:
#       SELECT 1                                              (the round-trip ceiling)
#       SELECT abs(:id)                                       (any function call: parse, plan, call)
#       SELECT shared_cbf_add('seen', :id)                    (classic layout)
#       SELECT shared_cbf_add('seen_block', :id)              (layout block)
#       SELECT shared_cbf_add('seen_block', :id, false)       (layout block, immediate)
#       SELECT pg_advisory_xact_lock(:id)                     (the one lock a transactional add of a
#                                                              new item takes per item: its floor)
#       INSERT INTO seen_ids VALUES (:id) ON CONFLICT DO NOTHING   (unlogged, primary key)
#     with :id random in 1..10^9.
#  2. In SQL over N rows of t (default 10M): count(x) against
#     count(*) WHERE shared_cbf_add(...) (classic and block objects) and INSERT ... SELECT x ...
#     ON CONFLICT DO NOTHING, with the memory each needs (object file vs table + index).
#   bash bench/shared_bench.sh [--rows N] [--seconds T] [--rounds R] [--runs R] [--mode M] [--clients "2 8"]
#   (--runs: the SQL part; --mode: pgbench's query mode, simple (default), extended or prepared;
#    --rows 0 skips the SQL part)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ROWS=10000000
SECS=5
ROUNDS=3
RUNS=3
MODE=simple
CLIENTS="1 2 4 8"
bench_options "$@"

pgbench_cluster
q "SELECT shared_cbf_create('seen_block', 10000000, 0.01, layout => 'block')" >/dev/null
q "CREATE UNLOGGED TABLE seen_ids (id bigint PRIMARY KEY)" >/dev/null
hold_mapped seen seen_block

printf '\\set id random(1, 1000000000)\nSELECT 1;\n' >"$WORK/select1.sql"
printf '\\set id random(1, 1000000000)\nSELECT abs(:id);\n' >"$WORK/abs.sql"
printf "\\\\set id random(1, 1000000000)\nSELECT shared_cbf_add('seen', :id);\n" >"$WORK/cbf.sql"
printf "\\\\set id random(1, 1000000000)\nSELECT shared_cbf_add('seen_block', :id);\n" >"$WORK/cbf_block.sql"
printf '\\set id random(1, 1000000000)\nINSERT INTO seen_ids VALUES (:id) ON CONFLICT DO NOTHING;\n' >"$WORK/insert.sql"
printf "\\\\set id random(1, 1000000000)\nSELECT shared_cbf_add('seen_block', :id, false);\n" >"$WORK/block_immediate.sql"
printf '\\set id random(1, 1000000000)\nSELECT pg_advisory_xact_lock(:id);\n' >"$WORK/lock.sql"

# Every (statement, clients) run once per round, rounds interleaved so that
# drift in the machine's load hits all statements alike; medians reported.
declare -A TPS
for r in $(seq 1 "$ROUNDS"); do
    for c in $CLIENTS; do
        for s in select1 abs cbf cbf_block block_immediate lock insert; do TPS[$s.$c]+="$(tps $s "$c") "; done
    done
done
echo "== pgbench -M $MODE, median of $ROUNDS interleaved runs of $SECS s, $(nproc) cores"
echo "| clients | SELECT 1 tps | abs(:id) tps | abs / SELECT 1 | shared_cbf_add tps | ratio to SELECT 1 | block: shared_cbf_add tps | ratio to SELECT 1 | block, immediate / SELECT 1 | advisory lock / SELECT 1 | INSERT ON CONFLICT tps | shared_cbf_add / INSERT |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for c in $CLIENTS; do
    s1=$(median <<<"${TPS[select1.$c]}")
    ab=$(median <<<"${TPS[abs.$c]}")
    cb=$(median <<<"${TPS[cbf.$c]}")
    bl=$(median <<<"${TPS[cbf_block.$c]}")
    ins=$(median <<<"${TPS[insert.$c]}")
    bi=$(median <<<"${TPS[block_immediate.$c]}")
    lk=$(median <<<"${TPS[lock.$c]}")
    echo "| $c | $s1 | $ab | $(awk "BEGIN {printf \"%.2fx\", $ab / $s1}") | $cb | $(awk "BEGIN {printf \"%.2fx\", $cb / $s1}") | $bl | $(awk "BEGIN {printf \"%.2fx\", $bl / $s1}") | $(awk "BEGIN {printf \"%.2fx\", $bi / $s1}") | $(awk "BEGIN {printf \"%.2fx\", $lk / $s1}") | $ins | $(awk "BEGIN {printf \"%.2fx\", $cb / $ins}") |"
done
echo "(all runs: $(for k in "${!TPS[@]}"; do printf '%s=[%s] ' "$k" "${TPS[$k]% }"; done))"
q "SELECT 'shared_cbf_add calls: ' || (shared_cbf_stats('seen')->>'ops') || ', lock recoveries: ' || (shared_cbf_stats('seen')->>'lock_recoveries')"

[ "$ROWS" -gt 0 ] || exit 0
echo "== in SQL over $ROWS rows"
psql -X -q -v ON_ERROR_STOP=1 <<SQL
SELECT setseed(0.42);
CREATE TABLE t AS
SELECT x, md5(x::text) AS s, (abs(x) % 1000)::int AS g
FROM (SELECT (random() * 9.2e18 * 2 - 9.2e18)::bigint AS x FROM generate_series(1, $ROWS)) r;
VACUUM ANALYZE t;
SQL
ms() {  # ms SQL: wall milliseconds of one statement
    local start end
    start=$(date +%s%N)
    q "$1" >/dev/null
    end=$(date +%s%N)
    echo $(((end - start) / 1000000))
}
# sized by --rows: past 106M rows its 2^31 counters (1 GiB and the header)
# outgrow the default 1GB limit on one object, lifted here by a superuser
q "SET sketchshare.max_shared_object_size = -1; SELECT shared_cbf_create('seen_sql', $ROWS, 0.01)" >/dev/null
q "SET sketchshare.max_shared_object_size = -1; SELECT shared_cbf_create('seen_sql_block', $ROWS, 0.01, layout => 'block')" >/dev/null
base=() par=() cbf=() blk=() ins=()
for r in $(seq 1 "$RUNS"); do
    par+=("$(ms "SELECT count(x) FROM t")")
    base+=("$(PGOPTIONS="-c max_parallel_workers_per_gather=0" ms "SELECT count(x) FROM t")")
    q "SELECT shared_cbf_clear('seen_sql')" >/dev/null
    cbf+=("$(ms "SELECT count(*) FROM t WHERE shared_cbf_add('seen_sql', x)")")
    q "SELECT shared_cbf_clear('seen_sql_block')" >/dev/null
    blk+=("$(ms "SELECT count(*) FROM t WHERE shared_cbf_add('seen_sql_block', x)")")
    q "DROP TABLE IF EXISTS seen_sql_ids; CREATE UNLOGGED TABLE seen_sql_ids (id bigint PRIMARY KEY)" >/dev/null
    ins+=("$(ms "INSERT INTO seen_sql_ids SELECT x FROM t ON CONFLICT DO NOTHING")")
done
b=$(printf '%s\n' "${base[@]}" | median)
p=$(printf '%s\n' "${par[@]}" | median)
c=$(printf '%s\n' "${cbf[@]}" | median)
k=$(printf '%s\n' "${blk[@]}" | median)
i=$(printf '%s\n' "${ins[@]}" | median)
file_bytes=$(q "SELECT bytes FROM shared_objects WHERE name = 'seen_sql'")
block_bytes=$(q "SELECT bytes FROM shared_objects WHERE name = 'seen_sql_block'")
table_bytes=$(q "SELECT pg_total_relation_size('seen_sql_ids')")
echo "| statement | median ms ($RUNS runs) | ratio to count(x) | memory |"
echo "| --- | --- | --- | --- |"
echo "| \`SELECT count(x) FROM t\` (serial, like the statements below) | $b | baseline | |"
echo "| \`SELECT count(x) FROM t\` (2 parallel workers) | $p | $(awk "BEGIN {printf \"%.2fx\", $p / $b}") | |"
echo "| \`SELECT count(*) FROM t WHERE shared_cbf_add('seen_sql', x)\` | $c | $(awk "BEGIN {printf \"%.2fx\", $c / $b}") | $((file_bytes / 1048576)) MiB object file |"
echo "| \`SELECT count(*) FROM t WHERE shared_cbf_add('seen_sql_block', x)\` (layout block) | $k | $(awk "BEGIN {printf \"%.2fx\", $k / $b}") | $((block_bytes / 1048576)) MiB object file |"
echo "| \`INSERT INTO seen_sql_ids SELECT x FROM t ON CONFLICT DO NOTHING\` | $i | $(awk "BEGIN {printf \"%.2fx\", $i / $b}") | $((table_bytes / 1048576)) MiB table + index |"
rm -rf "$WORK"
