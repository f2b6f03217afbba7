#!/usr/bin/env bash
# CREATE DATABASE ... TEMPLATE copies the catalog of shared objects (tables)
# but not their files: the copy starts with no shared objects (docs/operations.md,
# "Copying a database"). Its view lists nothing, a template's name does not
# exist in it (read-only too) and can be created; its first create or drop
# removes the template's catalog rows, with a NOTICE; the template's objects
# are untouched by whatever the copy does.
set -euo pipefail
: "${SKETCH_ROOT:?}" "${PGHOST:?}" "${PGPORT:?}"
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
copy=sketchshare_shared_template_copy
start_test sketchshare_shared_template "DROP DATABASE IF EXISTS $copy"

q "SELECT shared_cbf_create('kept', 1000)" >/dev/null
q "SELECT shared_cbf_add('kept', 'a')" >/dev/null
q "SELECT shared_bloom_create('urls', 1000, 0.01)" >/dev/null
q "SELECT shared_grant('urls', 'pg_monitor', 'read')" >/dev/null
template_dir=$(object_dir)
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $copy" -c "CREATE DATABASE $copy TEMPLATE $DB"

export PGDATABASE=$copy
check "the copy lists no object" "SELECT count(*) = 0 FROM shared_objects"
out=$(psql -X -At -v ON_ERROR_STOP=1 -c "BEGIN READ ONLY" -c "SELECT shared_cbf_contains('kept', 'a')" 2>&1) &&
    fail "read-only: a template's object was found in the copy: $out"
grep -q 'shared object "kept" does not exist' <<<"$out" || fail "read-only: expected 42704, got: $out"
echo "ok: read-only, a template's name does not exist in the copy"
check_error "a template's name does not exist in the copy" 'shared object "kept" does not exist' \
    "SELECT shared_cbf_contains('kept', 'a')"
out=$(psql -X -At -v ON_ERROR_STOP=1 -c "SELECT shared_drop('urls', true)" 2>&1) || fail "drop in the copy: $out"
grep -q '^f$' <<<"$out" || fail "a template's name was dropped in the copy: $out"
grep -q 'NOTICE:  removed 2 shared objects that came with a copy of another database' <<<"$out" ||
    fail "no notice of the removed rows: $out"
echo "ok: the copy's first drop finds no object, removes the template's rows and says so"
check "the copy's catalog has neither objects nor grants" \
    "SELECT (SELECT count(*) FROM sketchshare_shared.objects) = 0 AND (SELECT count(*) FROM sketchshare_shared.grants) = 0"
check "... and names the copy as its database" \
    "SELECT db = (SELECT oid FROM pg_database WHERE datname = current_database()) FROM sketchshare_shared.home"
check "the template's names can be created in the copy" \
    "SELECT shared_cbf_create('kept', 2000) IS NOT NULL AND shared_cbf_add('kept', 'b') AND NOT shared_cbf_contains('kept', 'a')"
check "... and are the copy's own objects" \
    "SELECT capacity = 2000 AND status = 'ok' FROM shared_objects WHERE name = 'kept'"
check "another template's name is free" "SELECT shared_bloom_create('urls', 10, 0.1) IS NOT NULL"

export PGDATABASE=$DB
check "the template's objects are untouched" \
    "SELECT shared_cbf_contains('kept', 'a') AND NOT shared_cbf_contains('kept', 'b') AND shared_bloom_add('urls', 'x')"
check "... and still listed, with the template's geometry and grants" \
    "SELECT count(*) = 2 AND bool_and(status = 'ok') AND min(capacity) = 1000 FROM shared_objects"
check "... and grants" "SELECT count(*) = 1 FROM sketchshare_shared.grants"
psql -X -q -d postgres -c "DROP DATABASE $copy"
check "dropping the copy leaves the template's files" \
    "SELECT shared_cbf_contains('kept', 'a') AND status = 'ok' FROM shared_objects WHERE name = 'kept'"
[ -f "$template_dir/kept" ] || fail "the template's file is gone"
echo "all template checks passed"
