#!/usr/bin/env bash
# A drop that takes the extension along removes the shared objects' files at
# its commit, whichever command reaches the extension (DROP EXTENSION, DROP
# SCHEMA ... CASCADE, DROP OWNED), in a session that never loaded the library;
# a rollback (of the transaction or of a savepoint) keeps them usable, and a
# file that is not an object file stays.
set -euo pipefail
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
start_test sketchshare_drop_extension "DROP ROLE IF EXISTS sketchshare_dropper" \
    "DROP DATABASE IF EXISTS sketchshare_dropped_db"

folder="$(q "SHOW data_directory")/sketchshare/$(q "SELECT oid FROM pg_database WHERE datname = current_database()")"
create_objects() {  # create_objects SCHEMA
    q "SELECT $1.shared_cbf_create('c', 1000), $1.shared_bloom_create('b', 1000, 0.01),
              $1.shared_reservoir_create('r', 5), $1.shared_cbf_add('c', 42)" >/dev/null
}
files() { ls "$folder" 2>/dev/null | tr '\n' ' '; }

create_objects public
[ "$(files)" = "b c r " ] || fail "three object files expected, found: $(files)"
echo "ok: three object files"

q "BEGIN; DROP EXTENSION sketchshare; ROLLBACK" >/dev/null
psql -X -q -v ON_ERROR_STOP=1 -c "BEGIN" -c "SAVEPOINT s" -c "DROP EXTENSION sketchshare" -c "ROLLBACK TO s" -c "COMMIT"
[ "$(files)" = "b c r " ] || fail "a rolled-back drop removed files: $(files)"
check "after rolled-back drops every object is whole and usable" \
    "SELECT shared_cbf_count_of('c', 42) = 1 AND shared_cbf_add('c', 43) AND shared_bloom_add('b', 1)"

# Not an object file (no magic): the drop leaves it, and so the folder.
echo "kept by the drop" >"$folder/stray"
q "DROP EXTENSION sketchshare" >/dev/null  # a fresh session: the trigger loads the library
[ "$(files)" = "stray " ] || fail "after DROP EXTENSION: $(files)"
echo "ok: DROP EXTENSION removed the three object files and kept the stray file"
rm "$folder/stray"

q "CREATE SCHEMA s; CREATE EXTENSION sketchshare SCHEMA s" >/dev/null
create_objects s
q "DROP SCHEMA s CASCADE" >/dev/null
[ ! -e "$folder" ] || fail "after DROP SCHEMA ... CASCADE the folder holds: $(files)"
echo "ok: DROP SCHEMA ... CASCADE removed the files and the folder"

q "CREATE ROLE sketchshare_dropper SUPERUSER LOGIN" >/dev/null
PGUSER=sketchshare_dropper q "CREATE EXTENSION sketchshare" >/dev/null
PGUSER=sketchshare_dropper create_objects public
PGUSER=sketchshare_dropper q "DROP OWNED BY sketchshare_dropper" >/dev/null
[ ! -e "$folder" ] || fail "after DROP OWNED the folder holds: $(files)"
echo "ok: DROP OWNED removed the files and the folder"

q "CREATE EXTENSION sketchshare" >/dev/null
create_objects public
check "a new extension's objects work" "SELECT shared_cbf_count_of('c', 42) = 1 AND NOT shared_bloom_contains('b', 1)"

# DROP DATABASE runs no hook: its folder stays until a database next creates
# an object, which removes it (not the folders of databases that exist).
psql -X -q -d postgres -c "CREATE DATABASE sketchshare_dropped_db"
PGDATABASE=sketchshare_dropped_db q "CREATE EXTENSION sketchshare" >/dev/null
PGDATABASE=sketchshare_dropped_db create_objects public
dropped="$(dirname "$folder")/$(q "SELECT oid FROM pg_database WHERE datname = 'sketchshare_dropped_db'")"
[ -e "$dropped/c" ] || fail "no object file in the other database's folder $dropped"
psql -X -q -d postgres -c "DROP DATABASE sketchshare_dropped_db"
[ -e "$dropped/c" ] || fail "DROP DATABASE removed the folder by itself: the test needs updating"
q "SELECT shared_cbf_create('after', 10)" >/dev/null
[ ! -e "$dropped" ] || fail "the dropped database's folder stayed: $(ls "$dropped")"
[ "$(files)" = "after b c r " ] || fail "this database's objects: $(files)"
echo "ok: a create removed the folder of the dropped database, and kept this one's"
echo "all drop checks passed"
