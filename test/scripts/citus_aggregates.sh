#!/usr/bin/env bash
# Every aggregate of the extension on a Citus cluster (a coordinator and two
# workers) over a distributed table gives what it gives over a local copy of
# the table: with citus.coordinator_aggregation_strategy 'disabled' (the
# aggregate split into worker_partial_agg and coord_combine_agg, which the
# plan must show) and with the default, with no GROUP BY, grouped by the
# distribution column (the whole aggregate on each shard) and by another
# column (split). Filters must be bit-identical; samples must be drawn from
# the right rows (every item in its group, the right size, no repeats), and a
# sample of k at least the group's size must be the whole group.
set -euo pipefail
: "${SKETCH_ROOT:?}"
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
source "$SKETCH_ROOT/test/scripts/lib/citus.sh"
citus_start

q "CREATE TABLE ev (k int, g int, x bigint, s text, w float8)" >/dev/null
q "INSERT INTO ev SELECT i % 50, i % 7, i, 'item ' || i, 1 + i % 5 FROM generate_series(1, 20000) i" >/dev/null
q "CREATE TABLE ev_local AS SELECT * FROM ev" >/dev/null
q "SELECT create_distributed_table('ev', 'k')" >/dev/null
# stored values, one per row of ev's distribution, for the union aggregates
# (r2: samples of different k, which a union merges into the smallest)
q "CREATE TABLE filters (k int, g int, b bloom, c cbf, r reservoir, r2 reservoir)" >/dev/null
q "INSERT INTO filters SELECT k, g, bloom_agg(x, 1000, 0.01), cbf_agg(x, 1000), reservoir_agg(x, 5),
          reservoir_agg(x, 3 + (k + g) % 4)
   FROM ev_local GROUP BY k, g" >/dev/null
q "CREATE TABLE filters_local AS SELECT * FROM filters" >/dev/null
q "CREATE FUNCTION sorted(a anyarray) RETURNS anyarray LANGUAGE sql IMMUTABLE
   AS \$\$SELECT array_agg(v ORDER BY v) FROM unnest(a) v\$\$" >/dev/null
q "SELECT create_distributed_table('filters', 'k')" >/dev/null

# same LABEL SELECT-LIST [GROUP-COLUMN]: the list over ev (grouped by
# GROUP-COLUMN when given) equals the list over ev_local, row for row.
same() {
    local label=$1 list=$2 group=${3:-} by="" dist local
    [ -z "$group" ] || { list="$group, $list"; by="GROUP BY $group ORDER BY $group"; }
    dist=$(q "SELECT $list FROM ev $by") || fail "$label: the distributed query failed"
    local=$(q "SELECT $list FROM ev_local $by")
    [ "$dist" = "$local" ] || fail "$label: distributed and local differ (group: ${group:-none}):
$(diff <(echo "$dist") <(echo "$local") | head -5)"
    [ -n "$dist" ] || fail "$label: no rows"
    echo "ok: $label (group: ${group:-none})"
}

# same_values: as same over the tables of stored values.
same_values() {
    local label=$1 list=$2 group=${3:-} by="" dist local
    [ -z "$group" ] || { list="$group, $list"; by="GROUP BY $group ORDER BY $group"; }
    dist=$(q "SELECT $list FROM filters $by") || fail "$label: the distributed query failed"
    local=$(q "SELECT $list FROM filters_local $by")
    [ "$dist" = "$local" ] || fail "$label: distributed and local differ (group: ${group:-none})"
    echo "ok: $label (group: ${group:-none})"
}

# sample_ok LABEL ARRAY-EXPR K [GROUP-COLUMN]: every group's sample (the
# array ARRAY-EXPR of x) has min(K, the group's size) distinct items, each
# from the group; the samples are compared with the group's rows by x.
sample_ok() {
    local label=$1 expr=$2 k=$3 group=${4:-} out
    local key=${group:-0} cond="true"
    [ -z "$group" ] || cond="e.$group = s.grp"
    out=$(q "WITH s AS (SELECT $key AS grp, $expr AS sample FROM ev ${group:+GROUP BY $group})
             SELECT bool_and(cardinality(sample) = least($k, (SELECT count(*) FROM ev_local e WHERE $cond))
                         AND (SELECT count(DISTINCT v) FROM unnest(sample) v) = cardinality(sample)
                         AND (SELECT bool_and(EXISTS (SELECT 1 FROM ev_local e WHERE e.x = v AND $cond))
                              FROM unnest(sample) v))
             FROM s") || fail "$label: the distributed query failed"
    [ "$out" = t ] || fail "$label: a sample is not drawn from its group (group: ${group:-none}) -> $out"
    echo "ok: $label (group: ${group:-none})"
}

for strategy in disabled row-gather; do
    echo "== citus.coordinator_aggregation_strategy = $strategy"
    export PGOPTIONS="-c citus.coordinator_aggregation_strategy=$strategy"
    if [ "$strategy" = disabled ]; then
        plan=$(q "EXPLAIN (VERBOSE, COSTS OFF) SELECT g, bloom_agg(x, 1000, 0.01) FROM ev GROUP BY g")
        grep -q worker_partial_agg <<<"$plan" && grep -q coord_combine_agg <<<"$plan" ||
            fail "bloom_agg grouped by g is not split into worker_partial_agg and coord_combine_agg: $plan"
        echo "ok: the plan splits bloom_agg into worker_partial_agg and coord_combine_agg"
    fi
    for group in "" k g; do
        same "bloom_agg" "md5(bloom_agg(x, 20000, 0.01)::text)" "$group"
        same "bloom_agg, large (buffered state)" "md5(bloom_agg(x, 2000000, 0.001)::text)" "$group"
        same "bloom_agg of text" "md5(bloom_agg(s, 20000, 0.01)::text)" "$group"
        same "bloom_agg with a layout" "md5(bloom_agg(x, 20000, 0.01, 'block<uint64,5>')::text)" "$group"
        same "bloom_agg of integer with a layout" "md5(bloom_agg(g * 1000 + k, 20000, 0.01, 'multiblock<uint32,8>')::text)" "$group"
        same "cbf_agg" "md5(cbf_agg(x, 20000)::text)" "$group"
        # one transition function for several calls of a query: each its own
        # call-site cache on the workers (agg_state.hpp, call_site)
        same "bloom_agg and cbf_agg of different sizes in one query" \
            "md5(bloom_agg(x, 20000, 0.01)::text), md5(bloom_agg(x, 30000, 0.001)::text),
             md5(cbf_agg(x, 20000)::text), md5(cbf_agg(x, 40000)::text)" "$group"
        same "cbf_agg of text with fpr" "md5(cbf_agg(s, 20000, 0.001)::text)" "$group"
        same "cbf_agg, large (buffered state)" "md5(cbf_agg(x, 2000000, 0.001)::text)" "$group"
        same "reservoir_sample of k >= the rows: all of them" \
            "sorted(reservoir_sample(x, 30000))" "$group"
        same "reservoir_agg of k >= the rows: all of them" \
            "sorted(reservoir_items(reservoir_agg(s, 30000, w), NULL::text))" "$group"
        sample_ok "reservoir_sample" "reservoir_sample(x, 10)" 10 "$group"
        sample_ok "reservoir_sample weighted" "reservoir_sample(x, 10, w)" 10 "$group"
        sample_ok "reservoir_agg" "reservoir_items(reservoir_agg(x, 10), NULL::bigint)" 10 "$group"
        sample_ok "reservoir_agg weighted" "reservoir_items(reservoir_agg(x, 10, w), NULL::bigint)" 10 "$group"
        same_values "bloom_union_agg" "md5(bloom_union_agg(b)::text)" "$group"
        same_values "bloom_intersect_agg" "md5(bloom_intersect_agg(b)::text)" "$group"
        same_values "cbf_union_agg" "md5(cbf_union_agg(c)::text)" "$group"
        same_values "reservoir_union_agg: what it was drawn from" "reservoir_seen(reservoir_union_agg(r))" "$group"
        same_values "reservoir_union_agg of different k" \
            "reservoir_seen(reservoir_union_agg(r2)), reservoir_count(reservoir_union_agg(r2))" "$group"
    done
done
unset PGOPTIONS

# A group of a reservoir_union_agg: its items come from the group.
check "reservoir_union_agg grouped by g samples its group" \
    "WITH u AS (SELECT g, reservoir_items(reservoir_union_agg(r), NULL::bigint) AS a FROM filters GROUP BY g)
     SELECT count(*) = 7 * 5 AND bool_and(v % 7 = g) FROM u, unnest(a) v"
# An item type without an overload of its own fails on the workers with
# Citus's type check; cast to one that has (docs/citus.md).
check_error "an item type without an overload" "could not confirm type correctness" \
    "SET citus.coordinator_aggregation_strategy = disabled; SELECT g, bloom_agg(x::oid, 1000, 0.01) FROM ev GROUP BY g"
check "an item cast to text instead" \
    "SELECT count(*) = 7 FROM (SELECT g, bloom_agg(x::oid::text, 1000, 0.01) FROM ev GROUP BY g) s"
# With a fixed seed every group draws a stream of its own on the workers too
# (a call site's count of the states it made lasts the query there:
# agg_state.hpp, call_site), so groups of the same rows in the same order
# (twins: 7 copies of each row, g apart) get different samples.
q "CREATE TABLE twins (k int, g int, x int)" >/dev/null
q "INSERT INTO twins SELECT x % 50, g, x FROM generate_series(1, 5000) x, generate_series(0, 6) g ORDER BY x, g" >/dev/null
q "SELECT create_distributed_table('twins', 'k')" >/dev/null
q "ALTER ROLE postgres SET sketchshare.seed = 'twins'" >/dev/null  # Citus sets it on the workers too
[ "$(qn 1 "SHOW sketchshare.seed")" = twins ] || fail "the seed set for the role did not reach worker 1"
samples=$(PGOPTIONS="-c citus.coordinator_aggregation_strategy=disabled" \
    q "SELECT count(DISTINCT s) FROM (SELECT g, sorted(reservoir_sample(x, 5)) s FROM twins GROUP BY g) t")
[ "$samples" = 7 ] || fail "7 groups of the same rows under a fixed seed drew $samples different samples, not 7"
echo "ok: groups of the same rows draw different samples under a fixed seed"
q "ALTER ROLE postgres RESET sketchshare.seed" >/dev/null
echo "citus aggregates: all passed"
