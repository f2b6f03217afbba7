#!/usr/bin/env bash
# ALTER EXTENSION sketchshare UPDATE from 0.1.0 on a Citus cluster: the
# coordinator's command updates every node, with shared objects on every node
# and filters stored in a distributed table. Citus runs a worker's part of the
# update on a connection of its distributed queries, where shared object
# functions used to be refused ("cannot be used by a distributed query on a
# Citus worker"): the update script's image of each object failed the whole
# update. After it, every node is at the new version, every object has its
# image and keeps its items, stored values answer as before, and the item
# aggregates split across the workers (they could not in 0.1.0).
set -euo pipefail
: "${SKETCH_ROOT:?}"
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
source "$SKETCH_ROOT/test/scripts/lib/citus.sh"
citus_start
current=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$SKETCH_ROOT/sketchshare.control")

q "DROP EXTENSION sketchshare" >/dev/null
q "CREATE EXTENSION sketchshare VERSION '0.1.0'" >/dev/null
check "every node is at 0.1.0" \
    "SELECT count(*) = 3 AND bool_and(result = '0.1.0')
     FROM run_command_on_all_nodes(\$\$SELECT extversion FROM pg_extension WHERE extname = 'sketchshare'\$\$)"
q "CREATE TABLE ev (k int, g int, x bigint, f bloom, c cbf)" >/dev/null
q "SELECT create_distributed_table('ev', 'k')" >/dev/null
q "INSERT INTO ev SELECT i % 50, i % 7, i, bloom_add(bloom_empty(100, 0.01), i), cbf_add(cbf_empty(100), i)
   FROM generate_series(1, 5000) i" >/dev/null
q "SELECT run_command_on_all_nodes(\$\$SELECT shared_cbf_create('seen', 1000)\$\$)" >/dev/null
q "SELECT run_command_on_all_nodes(\$\$SELECT shared_cbf_add('seen', 5)\$\$)" >/dev/null
q "SELECT shared_bloom_create('vip', 1000, 0.01), shared_bloom_add('vip', 7)" >/dev/null
before=$(q "SELECT md5(bloom_union_agg(f)::text) || md5(cbf_union_agg(c)::text) FROM ev")

out=$(psql -X -At -v ON_ERROR_STOP=1 -c "ALTER EXTENSION sketchshare UPDATE" 2>&1) ||
    fail "ALTER EXTENSION UPDATE on the Citus cluster failed: $out"
check "every node is at $current" \
    "SELECT count(*) = 3 AND bool_and(result = '$current')
     FROM run_command_on_all_nodes(\$\$SELECT extversion FROM pg_extension WHERE extname = 'sketchshare'\$\$)"
check "every node's objects have their images" \
    "SELECT string_agg(result, ',' ORDER BY nodeid) = '2 2,1 1,1 1'
     FROM run_command_on_all_nodes(\$\$SELECT count(*) || ' ' || count(image) FROM sketchshare_shared.objects\$\$)"
check "every node's object keeps its items" \
    "SELECT bool_and(result = '1') FROM run_command_on_all_nodes(\$\$SELECT shared_cbf_count_of('seen', 5)\$\$)"
check "the coordinator's object too" "SELECT shared_bloom_contains('vip', 7)"
check "the stored values merge as before" \
    "SELECT md5(bloom_union_agg(f)::text) || md5(cbf_union_agg(c)::text) = '$before' FROM ev"
check_error "a lookup on the workers is still refused" 'cannot be used by a distributed query on a Citus worker' \
    "SELECT count(*) FROM ev WHERE shared_cbf_contains('seen', x)"
export PGOPTIONS="-c citus.coordinator_aggregation_strategy=disabled"
plan=$(q "EXPLAIN (VERBOSE, COSTS OFF) SELECT g, bloom_agg(x, 1000, 0.01) FROM ev GROUP BY g")
grep -q worker_partial_agg <<<"$plan" || fail "bloom_agg of bigint does not split after the update: $plan"
check "bloom_agg of bigint splits across the workers after the update" \
    "SELECT count(*) = 7 FROM (SELECT g, bloom_agg(x, 1000, 0.01) FROM ev GROUP BY g) s"
unset PGOPTIONS
echo "citus upgrade: all passed"
