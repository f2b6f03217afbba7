#!/usr/bin/env bash
# Files that no committed object names, left by a crash, are removed.
# A create writes its object's file before it commits: a backend killed in
# between leaves the file and no catalog row. After the restart (a new server
# run) a backend's first create removes such files of earlier runs, and
# leaves the files of committed objects, of a create still in progress in
# this run and of unknown run (written by an earlier version).
set -euo pipefail
: "${SKETCH_ROOT:?}" "${PGHOST:?}" "${PGPORT:?}"
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
start_test sketchshare_shared_orphans
dir=$(object_dir)
q "SELECT shared_cbf_create('kept', 1000)" >/dev/null
q "SELECT shared_cbf_add('kept', 'a')" >/dev/null

# create_held NAME: a session creates NAME in a transaction that it keeps
# open, once the file is written, until $WORK/release-NAME exists (then it
# commits); HELD is that psql's pid.
create_held() {
    psql -X -q -At >"$WORK/$1.log" 2>&1 <<SQL &
BEGIN;
SELECT shared_cbf_create('$1', 100000);
\! touch "$WORK/written-$1"; while [ ! -e "$WORK/release-$1" ]; do sleep 0.05; done
COMMIT;
SQL
    HELD=$!
    await_file "$WORK/written-$1" && [ -f "$dir/$1" ] || fail "the create of $1 wrote no file: $(cat "$WORK/$1.log")"
}

# The crash: the backend of a create that has written its file is killed.
create_held orphan
victim=$(q "SELECT pid FROM pg_stat_activity WHERE query LIKE '%shared_cbf_create(''orphan''%' AND pid <> pg_backend_pid()")
[ -n "$victim" ] || fail "no backend is creating 'orphan'"
echo "== SIGKILL backend $victim"
kill -9 "$victim"
touch "$WORK/release-orphan"
wait "$HELD" || true
await_server
[ -f "$dir/orphan" ] || fail "the orphan is gone before any create looked"
check "'orphan' is no object" "SELECT count(*) = 0 FROM shared_objects WHERE name = 'orphan'"

# A file of unknown run: a copy of 'kept' under another name, its created_run
# (offsetof(FileHeader, created_run), src/core/shared_file.hpp) zeroed.
as_owner cp "$dir/kept" "$dir/legacy"
put_u32 "$dir/legacy" 408 0 2

# A create in progress in this run, and meanwhile another backend's first create.
create_held pending
PIDS+=($HELD)
q "SELECT shared_cbf_create('trigger', 1000)" >/dev/null
touch "$WORK/release-pending"
wait "$HELD" || fail "the pending create: $(cat "$WORK/pending.log")"

[ ! -e "$dir/orphan" ] || fail "the orphan of the run before the crash is still there"
echo "ok: the next create removed the file the killed create left"
[ -f "$dir/legacy" ] || fail "a file of unknown run was removed"
echo "ok: a file of unknown run stays"
check "a committed object of the run before stays, with its items" "SELECT shared_cbf_contains('kept', 'a')"
check "the create that was in progress meanwhile committed a working object" \
    "SELECT shared_cbf_add('pending', 1) AND shared_cbf_contains('pending', 1)"
check "the name of the orphan is free again" "SELECT shared_cbf_create('orphan', 1000) IS NOT NULL AND shared_cbf_add('orphan', 1)"
echo "all orphan checks passed"
