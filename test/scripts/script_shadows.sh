#!/usr/bin/env bash
# Nothing that the extension's scripts run can be replaced by an object that
# another role planted (docs/operations.md, "What a superuser runs").
# A database's owner may create in `public`, which is on the search_path of
# a superuser who runs CREATE EXTENSION there; a function of `public` whose
# argument types match a call exactly beats a pg_catalog function that needs a
# conversion or a variadic or polymorphic argument (format, array_length).
#
# Every function and operator name that the shipped scripts (install,
# upgrades, sql-history) call is read from them; for each, the database's
# owner plants `public` shadows: one per signature of that name in pg_catalog,
# with its polymorphic, "any" and variadic arguments made concrete in the
# types the scripts use. A shadow records who called it and whether that
# caller was a superuser, and makes the owner superuser when it was (the
# attack). A superuser then runs CREATE EXTENSION, DROP EXTENSION, CREATE
# EXTENSION VERSION '0.1.0' with ALTER EXTENSION UPDATE, the functions that
# query the catalog, pg_dump and pg_restore. No shadow may ever be called,
# and the owner must not be superuser.
set -euo pipefail
: "${SKETCH_ROOT:?}" "${PGHOST:?}" "${PGPORT:?}"
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
owner=sketchshare_shadow_owner tpl=sketchshare_shadows_tpl restored=sketchshare_shadows_restored
start_test sketchshare_shadows "DROP DATABASE IF EXISTS $restored" "DROP DATABASE IF EXISTS $tpl" \
    "DROP ROLE IF EXISTS $owner" "DROP ROLE IF EXISTS sketchshare_shadow_grantee"
bin=$(server_bin)

# The scripts CREATE EXTENSION runs: the installed ones.
sharedir=$(q "SELECT setting FROM pg_config WHERE name = 'SHAREDIR'")
scripts=("$sharedir"/extension/sketchshare--*.sql)
[ "${#scripts[@]}" -ge 3 ] || fail "expected an install, an upgrade and a historical script in $sharedir/extension"

# Names called: an identifier followed by "(" that no quote or "%" precedes
# (comments dropped first), qualified or not; operators: runs of operator
# characters. Words that are no function or operator of pg_catalog fall out
# in the database, below.
code=$(sed 's/--.*$//' "${scripts[@]}")
functions=$(grep -oP '(?<![\w"$%])[A-Za-z_][A-Za-z0-9_]*(?=\s*\()' <<<"$code" | tr 'A-Z' 'a-z' | sort -u | paste -sd, -)
operators=$(grep -oP '[-+*/<>=~!@#%^&|`?]+' <<<"$code" | sort -u | sed 's/"/""/g; s/.*/"&"/' | paste -sd, -)

psql -X -q -d postgres -v ON_ERROR_STOP=1 >/dev/null <<SQL
DROP ROLE IF EXISTS $owner;
CREATE ROLE $owner LOGIN;
DROP ROLE IF EXISTS sketchshare_shadow_grantee;
CREATE ROLE sketchshare_shadow_grantee;
DROP DATABASE IF EXISTS $tpl;
CREATE DATABASE $tpl OWNER $owner;
SQL

# The owner's shadows, in a template of which both test databases are made.
psql -X -q -d "$tpl" -U "$owner" -v ON_ERROR_STOP=1 -v functions="{$functions}" -v operators="{$operators}" \
    -f "$SKETCH_ROOT/test/scripts/lib/plant_shadows.sql" >"$WORK/plant.log" 2>&1 ||
    { cat "$WORK/plant.log"; fail "planting the shadows"; }
planted=$(psql -X -At -d "$tpl" -c "SELECT count(*) FROM shadow_log.planted")
echo "planted $planted shadows"
for expected in "format(text,text,text)" "array_length(text[],integer)" "||(text[],text)"; do
    [ "$(psql -X -At -d "$tpl" -c "SELECT count(*) FROM shadow_log.planted WHERE signature = '$expected'")" = 1 ] ||
        fail "no shadow $expected was planted"
done
psql -X -q -d postgres -c "DROP DATABASE $DB" -c "CREATE DATABASE $DB TEMPLATE $tpl OWNER $owner" \
    -c "CREATE DATABASE $restored TEMPLATE $tpl OWNER $owner" >/dev/null

# What a superuser runs, with the default search_path ("$user", public).
# Each step's messages are kept: a shadow called in a step that then failed
# leaves no row behind, only its warning.
as_superuser() {  # as_superuser LABEL DATABASE SQL
    psql -X -q -d "$2" -v ON_ERROR_STOP=1 <<<"$3" >>"$WORK/superuser.log" 2>&1 ||
        { tail -20 "$WORK/superuser.log"; fail "$1"; }
    echo "ok: $1"
}
as_superuser "CREATE EXTENSION" "$DB" "CREATE EXTENSION sketchshare"
# The functions that query the catalog, under a search_path that puts public
# before pg_catalog, where a shadow of the same signature wins too.
as_superuser "shared object functions with public before pg_catalog" "$DB" "
SET search_path = public, pg_catalog;
SELECT shared_cbf_create('seen', 1000), shared_cbf_add('seen', 1), shared_cbf_add('seen', 2, false);
SELECT shared_bloom_create('urls', 1000, 0.01), shared_bloom_add('urls', 'a');
SELECT shared_reservoir_create('picks', 5), shared_reservoir_add('picks', 1);
SELECT shared_grant('seen', 'sketchshare_shadow_grantee', 'read'), shared_revoke('seen', 'sketchshare_shadow_grantee', 'read');
SELECT shared_sync('seen'), shared_freeze('urls');
TABLE shared_objects;
SELECT shared_drop('picks');"
"$bin/pg_dump" -Fc -f "$WORK/db.dump" "$DB" 2>>"$WORK/superuser.log" || fail "pg_dump"
echo "ok: pg_dump"
# The restored database has the shadows already (it is a copy of the
# template): the restore takes the extension and its catalog's rows.
"$bin/pg_restore" -l "$WORK/db.dump" | grep -E 'EXTENSION (- )?sketchshare|TABLE DATA sketchshare_shared ' >"$WORK/list"
"$bin/pg_restore" -L "$WORK/list" -d "$restored" "$WORK/db.dump" 2>>"$WORK/superuser.log" ||
    { tail -20 "$WORK/superuser.log"; fail "pg_restore"; }
[ "$(psql -X -At -d "$restored" -c "SELECT shared_cbf_contains('seen', 1)" 2>>"$WORK/superuser.log")" = t ] ||
    fail "the restored object does not answer"
echo "ok: pg_restore, and the restored object answers"
as_superuser "DROP EXTENSION" "$DB" "DROP EXTENSION sketchshare"
# 0.1.0, with a grant on a create function (the update's warning names it),
# then every update up to the current version.
as_superuser "CREATE EXTENSION VERSION '0.1.0'" "$DB" "CREATE EXTENSION sketchshare VERSION '0.1.0'"
as_superuser "a 0.1.0 object and grant" "$DB" "
SELECT shared_cbf_create('old', 1000);
GRANT EXECUTE ON FUNCTION shared_cbf_create(text, bigint, float8) TO sketchshare_shadow_grantee;"
as_superuser "ALTER EXTENSION UPDATE" "$DB" "ALTER EXTENSION sketchshare UPDATE"
as_superuser "DROP EXTENSION of the updated database" "$DB" "DROP EXTENSION sketchshare"
as_superuser "DROP EXTENSION of the restored database" "$restored" "DROP EXTENSION sketchshare"

# (What this test runs in the shadowed databases is schema-qualified too.)
calls=$(for db in "$DB" "$restored"; do
    psql -X -At -d "$db" -c "SELECT pg_catalog.format('%s called by %s (superuser: %s)', signature, caller, superuser)
                             FROM shadow_log.calls"
done)
warned=$(grep -c 'shadow .* called by' "$WORK/superuser.log" || true)
[ -z "$calls" ] && [ "$warned" -eq 0 ] ||
    { grep 'shadow .* called by' "$WORK/superuser.log" | sort | uniq -c | head -20; echo "$calls" | sort | uniq -c | head -20
      fail "the scripts or the functions called a shadow that another role planted"; }
echo "ok: no shadow was called"
PGDATABASE=postgres check "the database's owner is not superuser" "SELECT NOT rolsuper FROM pg_roles WHERE rolname = '$owner'"

# The trap itself works: an unqualified call as the scripts made it reaches
# the shadow (in a transaction rolled back, which also undoes its attack).
trapped=$(psql -X -q -At -d "$DB" -c "BEGIN" \
    -c "SELECT format('%s %s', 'a'::text, 'b'::text) IS NOT NULL" \
    -c "SELECT pg_catalog.count(*) FROM shadow_log.calls WHERE superuser" -c "ROLLBACK" 2>/dev/null | paste -sd' ')
[ "$trapped" = "t 1" ] || fail "a planted shadow was not called where it should be (got: $trapped)"
echo "ok: an unqualified format(text, text, text) reaches the shadow"
