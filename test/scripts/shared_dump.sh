#!/usr/bin/env bash
# pg_dump carries shared objects (docs/operations.md, "Backups"): the catalog
# rows with each object's image, taken at create and at every shared_sync and
# freeze. Restored into a new database (pg_restore, and a plain dump through
# psql into a copy of another database that has the extension), into a
# database with objects of its own, and on a second cluster (roles by name),
# every kind reads as it was at its last sync: items, owner, grants, frozen,
# the sub-filters of a grown object.
# Edge cases: items added after the last sync are lost; an object dropped after
# the dump comes back; a foreign file at the name is replaced; an image of a
# newer format is refused; an object over the image limit is listed but its
# use fails; sessions opening a restored object at once; pg_restore --clean
# over the source itself.
set -euo pipefail
: "${SKETCH_ROOT:?}" "${PGHOST:?}" "${PGPORT:?}"
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
r1=sketchshare_dump_r1 r2=sketchshare_dump_r2 r3=sketchshare_dump_r3 own=sketchshare_dump_own
start_test sketchshare_dump "DROP DATABASE IF EXISTS $r1" "DROP DATABASE IF EXISTS $r2" \
    "DROP DATABASE IF EXISTS $r3" "DROP DATABASE IF EXISTS $own" "DROP ROLE IF EXISTS dump_owner" \
    "DROP ROLE IF EXISTS dump_dbowner" "DROP ROLE IF EXISTS dump_other"
bin=$(server_bin)
psql -X -q -d postgres -c "DROP ROLE IF EXISTS dump_owner" -c "CREATE ROLE dump_owner LOGIN"

# Objects of each kind, one owned by a role that is no superuser, with grants.
psql -X -q -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
GRANT EXECUTE ON FUNCTION shared_cbf_create(text, bigint, float8, text, int) TO dump_owner;
SELECT shared_bloom_create('urls', 10000, 0.001), shared_bloom_add_many('urls', array_agg(g)) FROM generate_series(1, 1000) g;
SELECT shared_reservoir_create('picks', 10), shared_reservoir_seed('picks', 7);
SELECT shared_reservoir_add_many('picks', array_agg(g)) FROM generate_series(1, 500) g;
SELECT shared_bloom_create('sealed', 1000, 0.01), shared_bloom_add('sealed', 'x');
SELECT shared_freeze('sealed');
SELECT shared_bloom_create('stale', 1000, 0.0001), shared_bloom_add_many('stale', array_agg(g)) FROM generate_series(1, 100) g;
-- (of the block layout: its image carries the layout)
SELECT shared_cbf_create('gone', 100, 0.01, 'block<6>'), shared_cbf_add('gone', 1);
SELECT shared_cbf_create('big', 4000000), shared_cbf_add_many('big', array_agg(g)) FROM generate_series(1, 20000) g;
-- grown to several sub-filters: the image carries them all
SELECT shared_cbf_create('grown', 100, 1e-6), shared_cbf_add_many('grown', array_agg(g), false) FROM generate_series(1, 1000) g;
SELECT shared_bloom_create('grown_b', 100, 1e-6), shared_bloom_add_many('grown_b', array_agg(g), false) FROM generate_series(1, 1000) g;
SET ROLE dump_owner;
SELECT shared_cbf_create('seen', 1000), shared_cbf_add_many('seen', array_agg(g % 50)) FROM generate_series(1, 200) g;
SELECT shared_grant('seen', 'pg_monitor', 'read');
RESET ROLE;
SELECT shared_sync(name) FROM shared_objects WHERE name <> 'sealed';
SELECT shared_bloom_add_many('stale', array_agg(g)) FROM generate_series(101, 200) g;
SQL
echo "ok: objects made and synced"
check "two objects have grown" "SELECT bool_and(subfilters = 4) FROM shared_objects WHERE name IN ('grown', 'grown_b')"
out=$(psql -X -At -v ON_ERROR_STOP=1 -c "SELECT shared_bloom_create('huge', 447300000, 0.01, 'classic', expansion => 0)" 2>&1) ||
    fail "creating a large object: $out"
grep -q 'WARNING:  shared object "huge" is too large for an image in the catalog' <<<"$out" ||
    fail "no warning for an object over the image limit: $out"
check "... which is over the limit" "SELECT bytes > 511 * 1024 * 1024 FROM shared_objects WHERE name = 'huge'"
echo "ok: an object over the image limit is created with a warning"

# What each object answers; compared between the source and each restore.
answers() {
    psql -X -At -v ON_ERROR_STOP=1 "$@" <<'SQL'
SELECT g.name, g.grantee::text, g.privilege FROM sketchshare_shared.grants g ORDER BY 1, 2, 3;
SELECT md5(shared_bloom_snapshot('urls')::text), md5(shared_bloom_snapshot('sealed')::text),
       md5(shared_cbf_snapshot('seen')::text), md5(shared_cbf_snapshot('big')::text),
       md5(shared_cbf_snapshot('gone')::text), shared_cbf_count_of('seen', 7), shared_cbf_count('big');
SELECT md5(shared_reservoir_snapshot('picks')::text), shared_reservoir_seen('picks'),
       (SELECT array_agg(s ORDER BY s) FROM shared_reservoir_sample('picks', NULL::int) s);
SELECT count(*) FILTER (WHERE shared_bloom_contains('stale', g)) FROM generate_series(1, 100) g;
SELECT count(*) FILTER (WHERE shared_cbf_count_of('grown', g) = 1 AND shared_bloom_contains('grown_b', g))
FROM generate_series(1, 1000) g;
SELECT name, kind, owner, frozen, readonly, capacity, fpr, layout, m, k, subfilters, bytes, status
FROM shared_objects WHERE name NOT IN ('huge', 'mine') ORDER BY name;
SQL
}
answers >"$WORK/source" || fail "reading the source"
"$bin/pg_dump" -Fc -f "$WORK/db.dump" "$DB"
"$bin/pg_dump" -Fp -f "$WORK/db.sql" "$DB"
q "SELECT shared_drop('gone')" >/dev/null
echo "ok: dumped; 'gone' dropped after the dump"

# 1. pg_restore into a new database of this cluster: the files are missing
# there and are written from the images at first use.
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $r1" -c "CREATE DATABASE $r1 TEMPLATE template0"
"$bin/pg_restore" -d "$r1" "$WORK/db.dump" || fail "pg_restore into a new database"
PGDATABASE=$r1 check "before their first use, the restored objects' files are to be written from their images" \
    "SELECT count(*) = 9 FROM shared_objects WHERE status = 'missing: written from its image at first use'"
PGDATABASE=$r1 check "... but the one with no image is missing" \
    "SELECT status LIKE '%shared object \"huge\" is missing' FROM shared_objects WHERE name = 'huge'"
# Sessions that open an object at once: one writes its file, the others wait
# for it and attach it.
for i in 1 2 3 4; do
    psql -X -At -d "$r1" -c "SELECT shared_cbf_count('big')" >"$WORK/race$i" 2>&1 &
    PIDS+=($!)
done
for p in "${PIDS[@]}"; do wait "$p" || { cat "$WORK"/race*; fail "a session opening the restored object failed"; }; done
PIDS=()
[ "$(cat "$WORK"/race* | sort -u | wc -l)" = 1 ] || { cat "$WORK"/race*; fail "the sessions read different counts"; }
echo "ok: four sessions opened a restored object at once: $(cat "$WORK/race1")"
answers -d "$r1" >"$WORK/r1" || fail "reading the restore"
diff "$WORK/source" "$WORK/r1" || fail "the restore answers differently (diff above: source, restore)"
echo "ok: restored: every object answers as it did"
export PGDATABASE=$r1
check "the items added after the last sync are not in the restore" \
    "SELECT count(*) = 0 FROM generate_series(101, 200) g WHERE shared_bloom_contains('stale', g)"
check "the object dropped after the dump is back" "SELECT shared_cbf_contains('gone', 1)"
check "the frozen object stays frozen" "SELECT frozen FROM shared_objects WHERE name = 'sealed'"
check_error "... and refuses changes" 'is frozen' "SELECT shared_bloom_add('sealed', 'y')"
check "the restored object's owner, no superuser, writes it" \
    "SELECT owner::text = 'dump_owner' FROM shared_objects WHERE name = 'seen'"
PGUSER=dump_owner check "... as its owner" "SELECT shared_cbf_add('seen', 1000) AND shared_cbf_contains('seen', 1000)"
check_error "the object over the image limit came without its items" 'file .* of shared object "huge" is missing' \
    "SELECT shared_bloom_contains('huge', 1)"
[ -f "$(object_dir)/urls" ] || fail "no file was written for 'urls'"
check "the restored objects are independent of the source's" "SELECT shared_bloom_add('urls', 100000)"
PGDATABASE=$DB check "... which does not see the restore's adds" "SELECT NOT shared_bloom_contains('urls', 100000)"

# A file of another incarnation at a name (here: another object's) is
# replaced from the image; an image of a newer format is refused.
rm -f "$(object_dir)/stale"
as_owner cp -p "$(object_dir)/urls" "$(object_dir)/stale"
check "a foreign file at the name is replaced from the image" \
    "SELECT count(*) = 100 FROM generate_series(1, 100) g WHERE shared_bloom_contains('stale', g)
     AND NOT shared_bloom_contains('stale', 1000 + g)"
check "... its own geometry, not the foreign file's" "SELECT capacity = 1000 AND status = 'ok' FROM shared_objects WHERE name = 'stale'"
q "UPDATE sketchshare_shared.objects SET image = set_byte(image, 8, 2) WHERE name = 'picks'" >/dev/null
rm -f "$(object_dir)/picks"
check_error "an image of a newer format is refused" 'has format version 2; this build reads version 1' \
    "SELECT shared_reservoir_seen('picks')"
psql -X -q -d postgres -c "DROP DATABASE $r1"

# 2. A plain dump, through psql, into a copy of the source made before the
# restore (CREATE DATABASE ... TEMPLATE: the extension there, its catalog
# naming the source and listing its objects of then): the load takes the
# catalog over, the copy's rows go.
export PGDATABASE=$DB
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $r2" -c "CREATE DATABASE $r2 TEMPLATE $DB"
psql -X -q -v ON_ERROR_STOP=1 -d "$r2" -f "$WORK/db.sql" >"$WORK/r2.log" 2>&1 || { cat "$WORK/r2.log"; fail "r2: loading the plain dump"; }
answers -d "$r2" >"$WORK/r2" || fail "reading the plain restore"
diff "$WORK/source" "$WORK/r2" || fail "the plain restore answers differently (diff above: source, restore)"
echo "ok: a plain dump loaded into a copy of another database restores every object"
psql -X -q -d postgres -c "DROP DATABASE $r2"

# 3. Into a database that has the extension and an object of its own.
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $r3" -c "CREATE DATABASE $r3 TEMPLATE template0"
PGDATABASE=$r3 q "CREATE EXTENSION sketchshare; SELECT shared_cbf_create('mine', 10), shared_cbf_add('mine', 'm')" >/dev/null
"$bin/pg_restore" -d "$r3" "$WORK/db.dump" || fail "pg_restore into a database with the extension"
answers -d "$r3" | diff "$WORK/source" - || fail "r3 answers differently (diff above: source, restore)"
PGDATABASE=$r3 check "the database's own object stays" "SELECT shared_cbf_contains('mine', 'm')"
psql -X -q -d postgres -c "DROP DATABASE $r3"
echo "ok: restored into a database with objects of its own"

# 4. Back over the source itself (pg_restore --clean): the drop of the
# extension removes the files, the restore's rows bring them back.
"$bin/pg_restore" --clean --if-exists -d "$DB" "$WORK/db.dump" || fail "pg_restore --clean over the source"
[ -f "$(object_dir)/urls" ] && fail "the drop of the extension left the files"
answers >"$WORK/cleaned" || fail "reading the source restored over itself"
diff "$WORK/source" "$WORK/cleaned" || fail "restored over itself, the source answers differently (diff above)"
echo "ok: restored over itself with --clean"

# 5. A database owned by a role that is no superuser: its pg_dump carries the
# shared objects, its own and a superuser's (pg_database_owner reads the
# catalog tables); a role that is neither may not read them.
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $own" -c "DROP ROLE IF EXISTS dump_dbowner" \
    -c "DROP ROLE IF EXISTS dump_other" -c "CREATE ROLE dump_dbowner LOGIN" -c "CREATE ROLE dump_other LOGIN" \
    -c "CREATE DATABASE $own OWNER dump_dbowner TEMPLATE template0"
PGDATABASE=$own psql -X -q -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
CREATE EXTENSION sketchshare;
SELECT shared_bloom_create('admins', 1000, 0.001), shared_bloom_add('admins', 7);
GRANT EXECUTE ON FUNCTION shared_cbf_create(text, bigint, float8, text, int) TO dump_dbowner;
SET ROLE dump_dbowner;
SELECT shared_cbf_create('mine', 1000), shared_cbf_add('mine', 8);
RESET ROLE;
SELECT shared_sync(name) FROM shared_objects;
SQL
PGUSER=dump_dbowner "$bin/pg_dump" -Fc -f "$WORK/own.dump" "$own" 2>"$WORK/own.err" ||
    { cat "$WORK/own.err"; fail "the database's owner, no superuser, could not dump it"; }
PGUSER=dump_other PGDATABASE=$own check_error "another role may not read the catalog" \
    'permission denied for schema sketchshare_shared' "SELECT count(*) FROM sketchshare_shared.objects"
psql -X -q -d postgres -c "DROP DATABASE $own" -c "CREATE DATABASE $own OWNER dump_dbowner TEMPLATE template0"
"$bin/pg_restore" -d "$own" "$WORK/own.dump" || fail "restoring the database owner's dump"
PGDATABASE=$own check "the owner's dump brought back both objects" \
    "SELECT shared_bloom_contains('admins', 7) AND shared_cbf_contains('mine', 8) AND NOT shared_cbf_contains('mine', 9)"
psql -X -q -d postgres -c "DROP DATABASE $own"
echo "ok: the database's owner, no superuser, dumps its shared objects"

# 6. A second cluster: its own role oids, found by name.
other=$WORK/other
mkdir -p "$other" && chmod 777 "$other"
as_owner "$bin/initdb" -D "$other/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >/dev/null
port=$((PGPORT + 13))
as_owner "$bin/pg_ctl" -D "$other/data" -l "$other/log" -w \
    -o "-p $port -k $other -c listen_addresses='' -c shared_buffers=16MB -c fsync=off" start >/dev/null ||
    { cat "$other/log"; fail "the second cluster did not start"; }
stop_other() { as_owner "$bin/pg_ctl" -D "$other/data" -m immediate -w stop >/dev/null 2>&1 || true; end_test; }
trap stop_other EXIT
on_other() { PGHOST=$other PGPORT=$port PGUSER=postgres "$@"; }
on_other psql -X -q -d postgres -c "CREATE ROLE filler" -c "CREATE ROLE dump_owner LOGIN" -c "CREATE DATABASE restored"
on_other "$bin/pg_restore" -d restored "$WORK/db.dump" || fail "pg_restore on the second cluster"
on_other answers -d restored >"$WORK/other.answers" || fail "reading the second cluster's restore"
diff "$WORK/source" "$WORK/other.answers" || fail "the second cluster answers differently (diff above: source, restore)"
echo "all dump and restore checks passed"
