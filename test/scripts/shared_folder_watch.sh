#!/usr/bin/env bash
# The folder watch (src/pg/shared_objects/registry/folder_watch.hpp) lets a backend's
# check of a mapped file skip its fstat while no file of the database's
# folder changed. The folder itself can go and come back under a running
# backend: DROP EXTENSION removes it with the last file, and the next create
# makes a new one. A backend that watched the old folder must watch the new
# one (or stat every time): a file of the new folder truncated between two of
# its statements must fail the second with XX001, in the same backend,
# without a server restart.
set -euo pipefail
: "${SKETCH_ROOT:?}" "${PGHOST:?}" "${PGPORT:?}"
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
start_test sketchshare_shared_folder_watch
dir=$(object_dir)
started=$(q "SELECT pg_postmaster_start_time()")

q "SELECT shared_cbf_create('x', 1000)" >/dev/null
q "SELECT shared_cbf_add_many('x', ARRAY['a', 'b'])" >/dev/null
old_folder=$(stat -c %i "$dir")

# one session: maps x (watching the folder), then, after the extension and
# its folder are gone and back with a new object y, maps y, whose file is
# then truncated between two statements
out=$(psql -X -At -v VERBOSITY=verbose 2>&1 <<SQL | sed 's/^psql:<stdin>:[0-9]*: //' || true
SELECT pg_backend_pid() AS pid \gset
SELECT shared_cbf_contains('x', 'a');
\! psql -X -q -c 'DROP EXTENSION sketchshare' -c 'CREATE EXTENSION sketchshare' -c "SELECT shared_cbf_create('y', 1000)" -c "SELECT shared_cbf_add_many('y', ARRAY['a', 'b'])" >/dev/null
\! stat -c 'folder %i' $dir
SELECT 'y before ' || shared_cbf_contains('y', 'a');
\! truncate -s 0 $dir/y
\echo truncated
SELECT 'y after ' || shared_cbf_contains('y', 'a');
SELECT 'same backend ' || (pg_backend_pid() = :pid);
SQL
)
new_folder=$(sed -n 's/^folder \([0-9]*\)$/\1/p' <<<"$out")
[ -n "$new_folder" ] && [ "$new_folder" != "$old_folder" ] ||
    fail "the folder was not made anew (inode $old_folder, then ${new_folder:-none}): $out"
grep -q "^y before true$" <<<"$out" || fail "y was not read before the truncate: $out"
[ "$(sed -n '/^truncated$/{n;p}' <<<"$out" | grep -c "^ERROR:  XX001: .*\"y\"")" = 1 ] ||
    fail "the statement after the truncate did not fail with XX001 naming \"y\": $out"
grep -q "^same backend true$" <<<"$out" || fail "the backend did not carry on: $out"
[ "$(q "SELECT pg_postmaster_start_time()")" = "$started" ] || fail "the server restarted"
echo "ok: a file of the folder made anew, truncated between two statements: XX001 in the same backend"

# An edit through a mapping raises no signal: the check that skips the fstat
# still compares the mapped header with what was validated. The cbf's k (at
# byte 56 of the header) is set to 0 through a mapping by another process,
# then put back the same way.
q "SELECT shared_cbf_create('z', 1000)" >/dev/null
q "SELECT shared_cbf_add_many('z', ARRAY['a', 'b'])" >/dev/null
cat >"$WORK/poke.py" <<'PY'
import mmap, sys
with open(sys.argv[1], "r+b") as f:
    m = mmap.mmap(f.fileno(), 4096)
    old = bytes(m[56:60])
    m[56:60] = bytes.fromhex(sys.argv[2]) if len(sys.argv) > 2 else b"\0\0\0\0"
    m.close()
print(old.hex())
PY
out=$(psql -X -At -v VERBOSITY=verbose 2>&1 <<SQL | sed 's/^psql:<stdin>:[0-9]*: //' || true
SELECT pg_backend_pid() AS pid \gset
SELECT 'z before ' || shared_cbf_contains('z', 'a');
SELECT 'z before ' || shared_cbf_contains('z', 'a');
\! python3 $WORK/poke.py $dir/z > $WORK/k
\echo edited
SELECT 'z after ' || shared_cbf_contains('z', 'a');
\! python3 $WORK/poke.py $dir/z \$(cat $WORK/k) > /dev/null
SELECT 'z put back ' || shared_cbf_contains('z', 'a');
SELECT 'same backend ' || (pg_backend_pid() = :pid);
SQL
)
grep -q "^z before true$" <<<"$out" || fail "z was not read before the edit: $out"
[ "$(sed -n '/^edited$/{n;p}' <<<"$out" | grep -c "^ERROR:  XX001: .*\"z\"")" = 1 ] ||
    fail "the statement after the edit through a mapping did not fail with XX001 naming \"z\": $out"
grep -q "^z put back true$" <<<"$out" || fail "z put back is not read again: $out"
grep -q "^same backend true$" <<<"$out" || fail "the backend did not carry on: $out"
[ "$(q "SELECT pg_postmaster_start_time()")" = "$started" ] || fail "the server restarted"
echo "ok: a header edited through a mapping between two statements: XX001 in the same backend"
