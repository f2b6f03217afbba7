#!/usr/bin/env bash
# ALTER EXTENSION sketchshare UPDATE from 0.1.0 (its kept install script,
# sql-history/) to the current version: values stored in tables and shared
# objects made under 0.1.0 read and answer the same after the update, and
# take adds; and the updated database's catalog of the extension equals a
# fresh install's (any difference fails with the diff: a change to the SQL
# objects that the upgrade script misses).
set -euo pipefail
: "${SKETCH_ROOT:?}" "${PGHOST:?}" "${PGPORT:?}"
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
fresh=sketchshare_upgrade_fresh
start_test sketchshare_upgrade "DROP DATABASE IF EXISTS $fresh" "DROP ROLE IF EXISTS sketchshare_upgrade_loader"
current=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$SKETCH_ROOT/sketchshare.control")

q "DROP EXTENSION sketchshare" >/dev/null
q "CREATE EXTENSION sketchshare VERSION '0.1.0'" >/dev/null
check "0.1.0 is installed" "SELECT extversion = '0.1.0' FROM pg_extension WHERE extname = 'sketchshare'"

# Until the update, 0.1.0's definitions call this library with fewer
# arguments than its own (shared_cbf_create passes no layout and no
# expansion): the ones they leave out must never be read, row after row.
q "SELECT count(shared_cbf_create('row' || i, 100)) FROM generate_series(1, 20) i" >/dev/null
check "0.1.0's shared_cbf_create makes classic objects of the default expansion, row after row" \
    "SELECT count(*) = 20 AND bool_and(s ->> 'layout' LIKE 'classic<%' AND s ->> 'expansion' = '2')
     FROM shared_objects o, shared_cbf_stats(o.name) s WHERE o.name ~ '^row[0-9]+$'"
q "SELECT count(shared_drop(name)) FROM shared_objects WHERE name ~ '^row[0-9]+$'" >/dev/null

# Values of each type and layout family, and shared objects of each kind.
# The test's tables live in a schema of their own, which the catalog
# comparison leaves out.
psql -X -q -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
CREATE SCHEMA stored;
SET search_path = stored, public;
CREATE TABLE filters (name text PRIMARY KEY, f bloom);
INSERT INTO filters
SELECT 'classic', bloom_agg(i, 1000, 0.01, 'classic') FROM generate_series(1, 500) i
UNION ALL
SELECT 'fast_multiblock32', bloom_agg(i, 1000, 0.01) FROM generate_series(1, 500) i;
CREATE TABLE counters AS SELECT cbf_agg('k' || i, 1000) AS c FROM generate_series(1, 300) i, generate_series(1, 1 + i % 3) r;
CREATE TABLE samples (name text PRIMARY KEY, r reservoir);
INSERT INTO samples
SELECT 'uniform', reservoir_agg(i, 20) FROM generate_series(1, 1000) i
UNION ALL
SELECT 'weighted', reservoir_agg('w' || i, 20, i::float8) FROM generate_series(1, 1000) i;
SELECT shared_bloom_create('sb', 1000, 0.01), shared_bloom_add_many('sb', array_agg(i)) FROM generate_series(1, 400) i;
SELECT shared_cbf_create('sc', 1000), shared_cbf_add_many('sc', array_agg(i % 100)) FROM generate_series(1, 400) i;
SELECT shared_reservoir_create('sr', 10), shared_reservoir_seed('sr', 42);
SELECT shared_reservoir_add_many('sr', array_agg(i)) FROM generate_series(1, 400) i;
SQL

# What every value and object answers: membership of items in and out, counts,
# samples, stats, the text forms.
answers() {
    PGOPTIONS="-c search_path=stored,public" psql -X -At -v ON_ERROR_STOP=1 <<'SQL'
SELECT name, f::text = f::bytea::text, md5(f::text), bloom_info(f),
       (SELECT count(*) FROM generate_series(1, 500) i WHERE bloom_contains(f, i)),
       (SELECT count(*) FROM generate_series(501, 5500) i WHERE bloom_contains(f, i))
FROM filters ORDER BY name;
SELECT md5(c::text), cbf_stats(c), cbf_count(c), cbf_count_of(c, 'k1'), cbf_count_of(c, 'k2'), cbf_count_of(c, 'k3'),
       (SELECT count(*) FROM generate_series(1, 300) i WHERE cbf_contains(c, 'k' || i)),
       (SELECT count(*) FROM generate_series(301, 5300) i WHERE cbf_contains(c, 'k' || i))
FROM counters;
SELECT name, r::text, reservoir_stats(r), reservoir_seen(r), reservoir_count(r), md5(r::bytea::text)
FROM samples ORDER BY name;
SELECT reservoir_items(r, NULL::int) FROM samples WHERE name = 'uniform';
SELECT reservoir_items(r, NULL::text) FROM samples WHERE name = 'weighted';
SELECT md5(shared_bloom_snapshot('sb')::text), shared_bloom_stats('sb') - 'ops',
       (SELECT count(*) FROM generate_series(1, 400) i WHERE shared_bloom_contains('sb', i)),
       (SELECT count(*) FROM generate_series(401, 5400) i WHERE shared_bloom_contains('sb', i));
SELECT md5(shared_cbf_snapshot('sc')::text), shared_cbf_count('sc'), shared_cbf_count_of('sc', 7),
       shared_cbf_stats('sc') - 'ops', (SELECT count(*) FROM generate_series(100, 5099) i WHERE shared_cbf_contains('sc', i));
SELECT shared_reservoir_seen('sr'), shared_reservoir_count('sr'), shared_reservoir_stats('sr') - 'ops';
SELECT array_agg(s ORDER BY s::int) FROM shared_reservoir_sample('sr') s;
SELECT name, kind, bytes, frozen, readonly, capacity, fpr, layout, m, k, status FROM shared_objects ORDER BY name;
SQL
}
answers >"$WORK/before" || fail "reading the 0.1.0 values"
[ "$(wc -l <"$WORK/before")" -ge 12 ] || { cat "$WORK/before"; fail "too few answers"; }

# A superuser's grant of creation on a create function whose signature the
# update changes: the update warns with the statement that gives it again.
q "CREATE ROLE sketchshare_upgrade_loader" >/dev/null
q "GRANT EXECUTE ON FUNCTION shared_cbf_create(text, bigint, float8) TO sketchshare_upgrade_loader" >/dev/null
psql -X -q -v ON_ERROR_STOP=1 -c "ALTER EXTENSION sketchshare UPDATE" >"$WORK/update.out" 2>&1 ||
    { cat "$WORK/update.out"; fail "ALTER EXTENSION UPDATE"; }
grep -q "GRANT EXECUTE ON FUNCTION shared_cbf_create(text, bigint, float8, text, int) TO sketchshare_upgrade_loader;" \
    "$WORK/update.out" || { cat "$WORK/update.out"; fail "the update did not name the grant to give again"; }
echo "ok: the update names the grant to give again"
check "updated to $current" "SELECT extversion = '$current' FROM pg_extension WHERE extname = 'sketchshare'"
answers >"$WORK/after" || fail "reading the values after the update"
diff "$WORK/before" "$WORK/after" || fail "answers changed across the update (diff above: before, after)"
echo "ok: $(wc -l <"$WORK/before") lines of answers are the same after the update"

check "the update took an image of every shared object" \
    "SELECT count(*) = 3 AND bool_and(image IS NOT NULL) FROM sketchshare_shared.objects"
check "a stored bloom takes adds" \
    "SELECT bloom_contains(bloom_add(f, 100000), 100000) FROM stored.filters WHERE name = 'classic'"
check "... of the other layout too" \
    "SELECT bloom_contains(bloom_add(f, 100000), 100000) FROM stored.filters WHERE name = 'fast_multiblock32'"
check "a stored cbf takes adds and removes" \
    "SELECT cbf_count_of(cbf_add(c, 'k1'), 'k1') = 3 AND cbf_count_of(cbf_remove(c, 'k1'), 'k1') = 1 FROM stored.counters"
check "stored reservoirs merge with new ones" \
    "SELECT reservoir_seen(reservoir_union_agg(r)) = 1500 FROM (SELECT r FROM stored.samples WHERE name = 'uniform'
     UNION ALL SELECT reservoir_agg(i, 20) FROM generate_series(1, 500) i) s"
check "the shared bloom takes adds" "SELECT shared_bloom_add('sb', 100000) AND shared_bloom_contains('sb', 100000)"
check "the shared cbf takes adds" "SELECT NOT shared_cbf_add('sc', 7)"
check "... counted once committed" "SELECT shared_cbf_count_of('sc', 7) = 5"
check "the shared reservoir takes adds" "SELECT shared_reservoir_add('sr', 401) IS NOT NULL AND shared_reservoir_seen('sr') = 401"
check "new shared objects can be made" \
    "SELECT shared_cbf_create('new', 100) IS NOT NULL AND shared_cbf_add('new', 1) AND shared_drop('new')"
check "objects made through 0.1.0's definitions by this library take the default expansion" \
    "SELECT string_agg(name || ':' || expansion, ',' ORDER BY name) = 'sb:2,sc:2' FROM shared_objects WHERE kind <> 'reservoir'"

# The extension's catalog: every member object in full (pg_dump's binary
# upgrade mode writes the members of extensions, with their comments and
# grants; left out are what differs between any two databases: the OIDs it
# pins, the tables' freeze horizons, the random key of \restrict, the OIDs of
# the configuration tables, which the extension's row lists by name below),
# the description of each member, and the extension's own row.
catalog() {
    local db=$1
    "$(dirname "$(command -v psql)")/pg_dump" --schema-only --binary-upgrade --no-owner --exclude-schema=stored -d "$db" |
        grep -v -e '^--' -e '^$' -e 'binary_upgrade_set_next_' -e '^UPDATE pg_catalog.pg_class$' \
            -e '^SET relfrozenxid = ' -e "^WHERE oid = '" -e '^\\\(un\)\?restrict ' -e '^\\connect' |
        sed -E "/binary_upgrade_create_empty_extension/s/'\{[0-9,]+\}'/'{config table oids}'/"
    psql -X -At -v ON_ERROR_STOP=1 -d "$db" <<'SQL'
SELECT pg_describe_object(classid, objid, objsubid) AS member
FROM pg_depend d JOIN pg_extension e ON d.refclassid = 'pg_extension'::regclass AND d.refobjid = e.oid
WHERE e.extname = 'sketchshare' AND d.deptype = 'e' ORDER BY member;
SELECT extname, extversion, extrelocatable, extnamespace::regnamespace,
       (SELECT array_agg(c::regclass::text ORDER BY c::regclass::text) FROM unnest(extconfig) c),
       obj_description(oid, 'pg_extension')
FROM pg_extension WHERE extname = 'sketchshare';
SELECT evtname, evtevent, evtfoid::regprocedure, evtenabled, evttags FROM pg_event_trigger ORDER BY evtname;
SQL
}
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $fresh" -c "CREATE DATABASE $fresh"
psql -X -q -d "$fresh" -v ON_ERROR_STOP=1 -c "CREATE EXTENSION sketchshare"
catalog "$DB" >"$WORK/updated.catalog"
catalog "$fresh" >"$WORK/fresh.catalog"
[ "$(wc -l <"$WORK/fresh.catalog")" -ge 500 ] || { head "$WORK/fresh.catalog"; fail "the catalog dump looks empty"; }
diff -u "$WORK/fresh.catalog" "$WORK/updated.catalog" ||
    fail "the catalog of the updated database differs from a fresh $current install's (diff above: fresh, updated)"
echo "ok: the updated catalog equals a fresh install's ($(wc -l <"$WORK/fresh.catalog") lines)"
psql -X -q -d postgres -c "DROP DATABASE $fresh"
echo "all upgrade checks passed"
