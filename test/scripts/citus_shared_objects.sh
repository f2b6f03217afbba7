#!/usr/bin/env bash
# Shared objects on a Citus cluster (docs/citus.md) never give a silently
# wrong answer. Every node has its own objects; a lookup that a distributed
# query runs on the workers fails (0A000, with a hint) instead of answering
# from the workers' objects, even when objects of that name exist on every
# worker (the issue's case: 0 instead of 1). The snapshot shipped through a
# MATERIALIZED CTE gives the right answer. Objects named in
# sketchshare.node_local_objects, made on every node, serve the keys of each
# node's shards when the key is the distribution column: adds and lookups by
# distributed queries land on the key's node, router queries too. A write
# on several workers (two-phase commit) refuses transactional adds with a
# hint; in a transaction block they need one connection per worker; and DROP
# EXTENSION drops the extension on every node.
set -euo pipefail
: "${SKETCH_ROOT:?}"
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
source "$SKETCH_ROOT/test/scripts/lib/citus.sh"
citus_start

q "CREATE TABLE ev (k bigint, x bigint)" >/dev/null
q "INSERT INTO ev SELECT i, i FROM generate_series(1, 1000) i" >/dev/null
q "SELECT create_distributed_table('ev', 'k')" >/dev/null

# The object lives on the coordinator, with 42 in it; the same name on every
# worker, empty (what a user tries first).
q "SELECT shared_cbf_create('evc', 10000)" >/dev/null
q "SELECT shared_cbf_add('evc', 42::bigint)" >/dev/null
for n in 1 2; do qn "$n" "SELECT shared_cbf_create('evc', 10000)" >/dev/null; done
check "the coordinator's object has 42" "SELECT shared_cbf_contains('evc', 42::bigint)"
check_error "a lookup on the workers fails instead of answering 0" \
    'cannot be used by a distributed query on a Citus worker' \
    "SELECT count(*) FROM ev WHERE shared_cbf_contains('evc', x)"
out=$(psql -X -At -c "SELECT count(*) FROM ev WHERE shared_cbf_contains('evc', x)" 2>&1 || true)
grep -q 'HINT:.*MATERIALIZED' <<<"$out" || fail "the error has no hint to ship a snapshot: $out"
echo "ok: the error hints at shipping a snapshot"
q "SELECT shared_bloom_create('onlyhere', 1000, 0.01)" >/dev/null
check_error "an object only the coordinator has fails the same way on the workers" \
    'cannot be used by a distributed query on a Citus worker' \
    "SELECT count(*) FROM ev WHERE shared_bloom_contains('onlyhere', x)"
check_error "an add on the workers fails too" 'cannot be used by a distributed query on a Citus worker' \
    "SELECT count(*) FROM ev WHERE shared_cbf_add('evc', x)"
# A drop and an attach open no object, and went through: the workers'
# objects of the name were dropped instead of the coordinator's.
check_error "a drop on the workers fails too" 'cannot be used by a distributed query on a Citus worker' \
    "SELECT count(*) FROM ev WHERE shared_drop('evc', true)"
check_error "an attach on the workers fails too" 'cannot be used by a distributed query on a Citus worker' \
    "SELECT count(*) FROM ev WHERE k = 1 AND shared_attach('evc2', '/nonexistent') IS NOT NULL"
check "every node still has evc" \
    "SELECT bool_and(result = '1') FROM run_command_on_all_nodes(\$\$SELECT count(*) FROM shared_objects WHERE name = 'evc'\$\$)"
check_error "a router query (one shard) fails too" 'cannot be used by a distributed query on a Citus worker' \
    "SELECT count(*) FROM ev WHERE k = 42 AND shared_cbf_contains('evc', x)"
check "the snapshot shipped through a MATERIALIZED CTE gives 1" \
    "WITH s AS MATERIALIZED (SELECT shared_cbf_snapshot('evc') AS f)
     SELECT count(*) = 1 FROM ev WHERE cbf_contains((SELECT f FROM s), x)"
check "so does a Bloom snapshot" \
    "WITH s AS MATERIALIZED (SELECT bloom_agg(v, 100, 0.01) AS f FROM (VALUES (42::bigint)) t(v))
     SELECT count(*) = 1 FROM ev WHERE bloom_contains((SELECT f FROM s), x)"
check "nothing was added on the workers" \
    "SELECT bool_and(result = 'f') FROM run_command_on_workers(\$\$SELECT shared_cbf_contains('evc', 42::bigint)\$\$)"

# Node-local objects: one call makes them on every node, each serves its shards.
q "SELECT run_command_on_all_nodes(\$\$SELECT shared_cbf_create('seen', 100000)\$\$)" >/dev/null
# ALTER DATABASE ... SET on the coordinator reaches the workers (Citus 13
# refuses it sent to a worker itself).
q "ALTER DATABASE postgres SET sketchshare.node_local_objects = 'seen'" >/dev/null
check "the setting reached every node" \
    "SELECT count(*) = 3 AND bool_and(result = 'seen')
     FROM run_command_on_all_nodes(\$\$SELECT current_setting('sketchshare.node_local_objects')\$\$)"
check "a distributed add of every key adds each once" \
    "SELECT count(*) = 1000 FROM ev WHERE shared_cbf_add('seen', k)"
check "a distributed lookup by the key finds every key" \
    "SELECT count(*) = 1000 FROM ev WHERE shared_cbf_contains('seen', k)"
check "a second add finds every key there" \
    "SELECT count(*) = 0 FROM ev WHERE shared_cbf_add('seen', k)"
check "a router query for one key finds it" \
    "SELECT count(*) = 1 FROM ev WHERE k = 77 AND shared_cbf_contains('seen', k)"
check "each worker's object holds the keys of its own shards, and only those" \
    "SELECT count(*) = 2 AND bool_and(result::int BETWEEN 1 AND 999) AND sum(result::int) = 1000
     FROM run_command_on_workers(\$\$SELECT count(*) FROM generate_series(1, 1000) k WHERE shared_cbf_contains('seen', k::bigint)\$\$)"
check "the coordinator's object holds none (it has no shards)" "SELECT shared_cbf_count('seen') = 0"
check_error "an object not named there still fails" 'cannot be used by a distributed query on a Citus worker' \
    "SELECT count(*) FROM ev WHERE shared_cbf_contains('evc', x)"

# A write to shards on several workers commits in two phases, which refuses
# transactional adds with a hint; non-transactional adds go through.
q "CREATE TABLE firsts (k bigint, x bigint)" >/dev/null
q "SELECT create_distributed_table('firsts', 'k', colocate_with => 'ev')" >/dev/null
q "SELECT run_command_on_all_nodes(\$\$SELECT shared_cbf_create('first', 100000)\$\$)" >/dev/null
q "ALTER DATABASE postgres SET sketchshare.node_local_objects = 'seen, first'" >/dev/null
# (one connection per worker: with several, the adds could deadlock before
# the commit, as below)
out=$(PGOPTIONS="-c citus.max_adaptive_executor_pool_size=1" \
      psql -X -At -c "INSERT INTO firsts SELECT * FROM ev WHERE shared_cbf_add('first', k)" 2>&1) &&
    fail "an INSERT ... SELECT with transactional adds on several workers was not refused: $out"
grep -q "cannot PREPARE a transaction that has added to shared objects transactionally" <<<"$out" &&
    grep -q "HINT:  Add with transactional => false" <<<"$out" ||
    fail "the refused INSERT ... SELECT did not say why and what to do: $out"
echo "ok: transactional adds in a two-phase commit are refused, with a hint"
check "nothing was inserted" "SELECT count(*) = 0 FROM firsts"
check "... or added" \
    "SELECT bool_and(result = '0') FROM run_command_on_all_nodes(\$\$SELECT shared_cbf_count('first')\$\$)"
q "INSERT INTO firsts SELECT * FROM ev WHERE shared_cbf_add('first', k, transactional => false)" >/dev/null
check "with transactional => false every key is inserted once" \
    "SELECT count(*) = 1000 AND count(DISTINCT k) = 1000 FROM firsts"

# In a transaction block a worker's shards may run over several connections,
# each a transaction of its own there that ends with the distributed one: past
# 64 new items one takes the object's overflow lock and the others wait for it,
# a deadlock Citus cancels (forced here: one connection per shard). With one
# connection per worker (docs/citus.md) every key is added once.
q "CREATE TABLE many (k bigint)" >/dev/null
q "SELECT create_distributed_table('many', 'k')" >/dev/null
q "INSERT INTO many SELECT generate_series(1, 20000)" >/dev/null
q "SELECT run_command_on_all_nodes(\$\$SELECT shared_cbf_create('many_seen', 100000)\$\$)" >/dev/null
in_block() {  # in_block SETTING SQL: SQL in a transaction block with many_seen node-local and SET LOCAL SETTING
    psql -X -q -At -v ON_ERROR_STOP=1 -c "BEGIN" -c "SET LOCAL citus.propagate_set_commands = 'local'" \
        -c "SET LOCAL sketchshare.node_local_objects = 'many_seen'" -c "SET LOCAL $1" -c "$2" -c "COMMIT" 2>&1
}
out=$(in_block "citus.force_max_query_parallelization = on" \
      "SELECT count(*) FROM many WHERE shared_cbf_add('many_seen', k)") &&
    fail "transactional adds over one connection per shard did not deadlock: $out"
grep -q "distributed deadlock" <<<"$out" || fail "expected Citus's distributed deadlock, got: $out"
echo "ok: over several connections per worker, transactional adds in a transaction block deadlock"
out=$(in_block "citus.max_adaptive_executor_pool_size = 1" \
      "SELECT count(*) FROM many WHERE shared_cbf_add('many_seen', k)") ||
    fail "transactional adds over one connection per worker failed: $out"
[ "$out" = 20000 ] || fail "over one connection per worker: $out, not 20000 new keys"
echo "ok: over one connection per worker every key is new once"
out=$(in_block "citus.max_adaptive_executor_pool_size = 1" \
      "SELECT count(*) FROM many WHERE shared_cbf_add('many_seen', k)") || fail "the second pass failed: $out"
[ "$out" = 0 ] || fail "a second pass found $out keys new, not 0"
echo "ok: ... and a second pass finds every key there"

# DROP EXTENSION reaches the workers through a prepared transaction, which
# used to refuse the drop of their objects' files: the extension could not be
# dropped at all. A rollback keeps every node's objects; a drop leaves the
# workers' files (a prepared transaction cannot remove them at its commit),
# whose names a create takes again.
workers_dir() {
    qn "$1" "SELECT current_setting('data_directory') || '/sketchshare/' || oid FROM pg_database WHERE datname = 'postgres'"
}
psql -X -q -v ON_ERROR_STOP=1 -c "BEGIN" -c "DROP EXTENSION sketchshare CASCADE" -c "ROLLBACK" >/dev/null 2>&1 ||
    fail "BEGIN; DROP EXTENSION; ROLLBACK failed"
check "a rolled back DROP EXTENSION keeps every node's objects, with their keys" \
    "SELECT bool_and(result::int > 0) FROM run_command_on_workers(\$\$SELECT shared_cbf_count('seen')\$\$)"
out=$(psql -X -At -v ON_ERROR_STOP=1 -c "DROP EXTENSION sketchshare CASCADE" 2>&1) ||
    fail "DROP EXTENSION on the Citus cluster failed: $out"
check "the extension is gone from every node" \
    "SELECT bool_and(result = '0') FROM run_command_on_all_nodes(\$\$SELECT count(*) FROM pg_extension WHERE extname = 'sketchshare'\$\$)"
check "no prepared transaction is left" \
    "SELECT bool_and(result = '0') FROM run_command_on_all_nodes(\$\$SELECT count(*) FROM pg_prepared_xacts\$\$)"
for n in 1 2; do
    citus_as_server test -f "$(workers_dir "$n")/seen" || fail "worker $n's file of seen is gone"
done
echo "ok: the workers' files stay"
q "CREATE EXTENSION sketchshare" >/dev/null
check "after CREATE EXTENSION no node lists an object" \
    "SELECT bool_and(result = '0') FROM run_command_on_all_nodes(\$\$SELECT count(*) FROM shared_objects\$\$)"
check "the names are free on every node: created anew" \
    "SELECT count(*) = 3 AND bool_and(success)
     FROM run_command_on_all_nodes(\$\$SELECT shared_cbf_create('seen', 1000)\$\$)"
check "... empty" \
    "SELECT bool_and(result = '0') FROM run_command_on_all_nodes(\$\$SELECT shared_cbf_count('seen')\$\$)"
echo "citus shared objects: all passed"
