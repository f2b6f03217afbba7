#!/usr/bin/env bash
# Transactional adds against a unique index, side by side in one run on a
# throwaway cluster (tables unlogged, so that WAL does not hide the difference):
#  1. pgbench at 2 and 8 clients, T seconds per run (default 5), R rounds
#     (default 3) interleaved, one key per transaction, :k random in 1..10^9:
#       INSERT INTO tgt SELECT :k WHERE shared_cbf_add('seen', :k)          (transactional)
#       INSERT INTO tgt SELECT :k WHERE shared_cbf_add('seen', :k, false)   (immediate)
#       INSERT INTO tgt_pk VALUES (:k) ON CONFLICT DO NOTHING               (primary key)
#     tgt has no index.
#  2. N new keys (default 10M, the x of t as bench/run.sh loads it) in one
#     INSERT ... SELECT through shared_cbf_add, transactional and immediate,
#     against the same load through ON CONFLICT DO NOTHING into a fresh table
#     with a primary key, and count(x) (serial): wall-clock ms. Two floors
#     beside them: the same insert with no filter, and the transactional adds
#     with no insert (count(*) ... WHERE shared_cbf_add). The transactional
#     load and adds again into an object of the block layout (one cache line
#     an item where classic touches k).
#   bash bench/transactional_bench.sh [--rows N] [--seconds T] [--rounds R] [--mode M]
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ROWS=10000000
SECS=5
ROUNDS=3
MODE=prepared
bench_options "$@"

pgbench_cluster
q "CREATE UNLOGGED TABLE tgt (k bigint); CREATE UNLOGGED TABLE tgt_pk (k bigint PRIMARY KEY)" >/dev/null
hold_mapped seen

printf "\\\\set k random(1, 1000000000)\nINSERT INTO tgt SELECT :k WHERE shared_cbf_add('seen', :k);\n" >"$WORK/txn.sql"
printf "\\\\set k random(1, 1000000000)\nINSERT INTO tgt SELECT :k WHERE shared_cbf_add('seen', :k, false);\n" >"$WORK/immediate.sql"
printf '\\set k random(1, 1000000000)\nINSERT INTO tgt_pk VALUES (:k) ON CONFLICT DO NOTHING;\n' >"$WORK/pk.sql"

declare -A TPS
for r in $(seq 1 "$ROUNDS"); do
    for c in 2 8; do
        for s in txn immediate pk; do TPS[$s.$c]+="$(tps $s "$c") "; done
    done
done
echo "== pgbench ($MODE protocol, ${SECS}s runs, medians of $ROUNDS rounds)"
echo "clients | transactional tps | immediate tps | primary key tps | transactional / primary key | transactional / immediate"
for c in 2 8; do
    t=$(median <<<"${TPS[txn.$c]}"); i=$(median <<<"${TPS[immediate.$c]}"); p=$(median <<<"${TPS[pk.$c]}")
    echo "$c | $t | $i | $p | $(awk "BEGIN {printf \"%.2fx\", $t / $p}") | $(awk "BEGIN {printf \"%.2fx\", $t / $i}")"
    echo "   runs: transactional ${TPS[txn.$c]}/ immediate ${TPS[immediate.$c]}/ primary key ${TPS[pk.$c]}"
done

[ "$ROWS" -gt 0 ] || exit 0
q "SELECT setseed(0.42); CREATE TABLE t AS SELECT (random() * 9e18)::bigint AS x FROM generate_series(1, $ROWS)" >/dev/null
q "VACUUM ANALYZE t" >/dev/null
ms() {  # ms SQL...: wall-clock ms of the statements, in one session
    local start
    start=$(date +%s%N)
    psql -X -q -v ON_ERROR_STOP=1 -c "SET max_parallel_workers_per_gather = 0" "${@/#/-c}" >/dev/null
    echo $(( ($(date +%s%N) - start) / 1000000 ))
}
fresh() {  # an empty object sized for the rows (layout $1, default classic), empty tables
    q "SELECT shared_drop('bulk', true)" >/dev/null
    q "SELECT shared_cbf_create('bulk', $ROWS, 0.01, layout => ${1:-NULL})" >/dev/null
    q "TRUNCATE tgt, tgt_pk" >/dev/null
}
fresh
count=$(ms "SELECT count(x) FROM t")
fresh
txn=$(ms "INSERT INTO tgt SELECT x FROM t WHERE shared_cbf_add('bulk', x)")
check=$(q "SELECT count(*) FROM tgt")
fresh
imm=$(ms "INSERT INTO tgt SELECT x FROM t WHERE shared_cbf_add('bulk', x, false)")
# The floors: the insert with no filter, and the filter with no insert.
fresh
plain=$(ms "INSERT INTO tgt SELECT x FROM t")
fresh
alone=$(ms "SELECT count(*) FROM t WHERE shared_cbf_add('bulk', x)")
fresh "'block'"
block_txn=$(ms "INSERT INTO tgt SELECT x FROM t WHERE shared_cbf_add('bulk', x)")
fresh "'block'"
block_alone=$(ms "SELECT count(*) FROM t WHERE shared_cbf_add('bulk', x)")
fresh
pk=$(ms "INSERT INTO tgt_pk SELECT x FROM t ON CONFLICT DO NOTHING")
echo "== $ROWS new keys in one INSERT ... SELECT (serial plans); the transactional load inserted $check rows"
echo "count(x): $count ms"
echo "transactional shared_cbf_add: $txn ms ($(awk "BEGIN {printf \"%.2fx\", $txn / $count}") count(x), primary key / it $(awk "BEGIN {printf \"%.1fx\", $pk / $txn}"))"
echo "immediate shared_cbf_add: $imm ms ($(awk "BEGIN {printf \"%.2fx\", $imm / $count}") count(x))"
echo "the insert alone, no filter: $plain ms ($(awk "BEGIN {printf \"%.2fx\", $plain / $count}") count(x))"
echo "transactional shared_cbf_add alone, no insert (count(*) WHERE): $alone ms ($(awk "BEGIN {printf \"%.2fx\", $alone / $count}") count(x))"
echo "transactional shared_cbf_add, block layout: $block_txn ms ($(awk "BEGIN {printf \"%.2fx\", $block_txn / $count}") count(x), primary key / it $(awk "BEGIN {printf \"%.1fx\", $pk / $block_txn}"))"
echo "transactional shared_cbf_add alone, block layout: $block_alone ms ($(awk "BEGIN {printf \"%.2fx\", $block_alone / $count}") count(x))"
echo "ON CONFLICT DO NOTHING into a primary key: $pk ms ($(awk "BEGIN {printf \"%.2fx\", $pk / $count}") count(x))"
