#!/usr/bin/env bash
# Shared objects under concurrent load: 8 pgbench clients add 1M distinct ids
# in total to one shared cbf (and one shared bloom when that kind exists);
# then every id is contained, ops is exact and the count estimate is within
# 5% of 1M. Then 8 clients add the SAME ids at once: each id is reported new
# at most once (item stripes), and at least by one client unless it was a
# false positive before anyone added it.
set -euo pipefail
: "${SKETCH_ROOT:?}" "${PGHOST:?}" "${PGPORT:?}"
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
start_test sketchshare_shared_concurrency

HAVE_BLOOM=$(q "SELECT count(*) FROM pg_proc WHERE proname = 'shared_bloom_create'")
q "SELECT shared_cbf_create('seen', 1000000, 0.01)"
q "CREATE TABLE results (batch bigint, new_cbf bigint, new_bloom bigint)"
if [ "$HAVE_BLOOM" -gt 0 ]; then
    q "SELECT shared_bloom_create('seen_bloom', 1000000, 0.01)"
    BLOOM_ADD="count(*) FILTER (WHERE shared_bloom_add('seen_bloom', g))"
else
    BLOOM_ADD="0"
fi

# 1000 batches of 1000 distinct ids: 125 per client.
echo "== 8 clients, 1M distinct ids"
load_batches 8 1000 1000 "count(*) FILTER (WHERE shared_cbf_add('seen', g)), $BLOOM_ADD"
check "every id is contained" \
    "SELECT count(*) = 0 FROM generate_series(0, 999999) g WHERE NOT shared_cbf_contains('seen', g)"
check "ops is exact" "SELECT (shared_cbf_stats('seen')->>'ops')::bigint = 1000000"
q "SELECT 'count estimate: ' || shared_cbf_count('seen') || ', reported new: ' || sum(new_cbf) FROM results"
check "count within 5% of 1M" "SELECT abs(shared_cbf_count('seen') - 1000000) < 50000"
# A distinct id is reported as already present only when it is a false
# positive at that moment: at most the 1% target, averaged over the fill.
check "reported new >= 99% of adds" "SELECT sum(new_cbf) >= 990000 FROM results"
check "lock free after the load" "SELECT shared_cbf_remove('seen', 0)"
if [ "$HAVE_BLOOM" -gt 0 ]; then
    check "bloom: every id is contained" \
        "SELECT count(*) = 0 FROM generate_series(0, 999999) g WHERE NOT shared_bloom_contains('seen_bloom', g)"
    check "bloom: ops is exact" "SELECT (shared_bloom_stats('seen_bloom')->>'ops')::bigint = 1000000"
    check "bloom: reported new >= 99% of adds" "SELECT sum(new_bloom) >= 990000 FROM results"
fi

echo "== 8 clients adding the same 20000 ids at once"
q "SELECT shared_cbf_create('dup', 20000, 0.01)"
q "CREATE UNLOGGED TABLE dup_results (id int, fresh bool)"
cat >"$WORK/dup.sql" <<'SQL'
INSERT INTO dup_results SELECT g, shared_cbf_add('dup', g) FROM generate_series(1, 20000) g;
SQL
run_pgbench -c 8 -j 8 -t 1 -f "$WORK/dup.sql"
check "160000 adds" "SELECT count(*) = 160000 FROM dup_results"
check "no id reported new twice" \
    "SELECT count(*) = 0 FROM (SELECT id FROM dup_results WHERE fresh GROUP BY id HAVING count(*) > 1) x"
q "SELECT 'ids reported new by one client: ' || count(DISTINCT id) FROM dup_results WHERE fresh"
check "all but false positives reported new once" \
    "SELECT count(DISTINCT id) >= 19800 FROM dup_results WHERE fresh"
check "every counter of an id counted 8 adds" \
    "SELECT count(*) = 0 FROM generate_series(1, 20000) g WHERE shared_cbf_count_of('dup', g) < 8"
echo "all concurrency checks passed"
