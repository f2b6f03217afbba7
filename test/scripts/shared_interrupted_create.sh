#!/usr/bin/env bash
# A create interrupted while it writes its object's file.
# 1. Killed (SIGKILL; the postmaster then restarts every backend): the file
#    it leaves, without the magic, blocks nothing and leaks nothing. A
#    create of the name replaces it, shared_drop(name, true) removes it, and
#    so does the first create of any other name (the orphan sweep).
# 2. Alive but paused in the middle: its file is a create in progress, which
#    a drop and the sweep leave alone and a second create of the name waits
#    for; resumed, it commits a working object.
# 3. Terminated or cancelled in the middle: nothing is left, the name is free.
# A create is paused (SIGSTOP) once its file has its full size (its blocks
# reserved) and no magic yet: from then on it writes for a while, and the
# header's magic is written last. A create that got further before it was
# paused is rolled back and tried again, so no step relies on timing.
set -euo pipefail
: "${SKETCH_ROOT:?}" "${PGHOST:?}" "${PGPORT:?}"
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
start_test sketchshare_shared_interrupted_create
# A backend left paused would hold up the server's shutdown: resume it on exit.
BACKEND=""
trap '[ -z "$BACKEND" ] || kill -CONT "$BACKEND" 2>/dev/null || true; end_test' EXIT
q "SELECT shared_cbf_create('small', 1000)" >/dev/null
dir=$(object_dir)
big=100000000  # a 512 MB file (fixed-size: a scaling one sizes its first sub-filter for half the fpr, 1 GiB)

magic() { od -An -tx8 -N8 "$1" | tr -d ' '; }

# paused_create NAME: a session creates NAME (capacity $big) in a
# transaction that, once the create returns, waits for $WORK/end-NAME and
# then does what that file says (COMMIT or ROLLBACK). Returns with the
# create's backend (BACKEND) paused in the middle of writing the file;
# SESSION is that psql's pid.
paused_create() {
    local name=$1 f="$dir/$1" try size
    for try in 1 2 3 4 5; do
        rm -f "$WORK/pid-$name" "$WORK/end-$name"
        psql -X -q -At >"$WORK/$name.log" 2>&1 <<SQL &
SELECT pg_backend_pid() \g $WORK/pid-$name
BEGIN;
SELECT shared_cbf_create('$name', $big, 0.01, expansion => 0);
\! while [ ! -e "$WORK/end-$name" ]; do sleep 0.05; done
\i $WORK/end-$name
SQL
        SESSION=$!
        for _ in $(seq 1 200); do [ -s "$WORK/pid-$name" ] && break; sleep 0.05; done
        BACKEND=$(cat "$WORK/pid-$name" 2>/dev/null) || fail "the session creating $name did not start: $(cat "$WORK/$name.log")"
        for _ in $(seq 1 2000); do
            size=$(stat -c %s "$f" 2>/dev/null || echo 0)
            if [ "$size" -gt 100000000 ]; then
                kill -STOP "$BACKEND"
                [ "$(magic "$f")" = 0000000000000000 ] && return 0
                kill -CONT "$BACKEND"
                break
            fi
            sleep 0.005
        done
        echo "== try $try: the create of $name finished before it could be paused; again"
        echo ROLLBACK >"$WORK/end-$name"
        wait "$SESSION" || true
    done
    fail "could not pause the create of $name in the middle"
}

# killed_create NAME: the create of NAME is killed in the middle.
killed_create() {
    paused_create "$1"
    echo "== SIGKILL backend $BACKEND, creating $1"
    kill -KILL "$BACKEND"
    echo ROLLBACK >"$WORK/end-$1"
    wait "$SESSION" || true
    await_server
    [ -f "$dir/$1" ] && [ "$(magic "$dir/$1")" = 0000000000000000 ] ||
        fail "the killed create left no unfinished file (the test needs one)"
    echo "ok: the killed create of $1 left an unfinished file of $(stat -c %s "$dir/$1") bytes"
}

# 1. Killed.
killed_create ic
check_error "the name names no object" "does not exist" "SELECT shared_drop('ic')"
check "shared_drop with if_exists says it did not exist" "SELECT NOT shared_drop('ic', true)"
[ ! -e "$dir/ic" ] || fail "shared_drop('ic', true) left the killed create's file"
echo "ok: ... and removed the killed create's file"

killed_create ic
check "a create of the name replaces the killed create's file" \
    "SELECT shared_cbf_create('ic', 10) IS NOT NULL AND shared_cbf_add('ic', 1) AND shared_cbf_contains('ic', 1)"
check "... with a file of the new, small size" "SELECT bytes < 100000 AND status = 'ok' FROM shared_objects WHERE name = 'ic'"
q "SELECT shared_drop('ic')" >/dev/null

killed_create ic
check "the first create of another name" "SELECT shared_cbf_create('other', 10) IS NOT NULL"
[ ! -e "$dir/ic" ] || fail "the orphan sweep left the killed create's file"
echo "ok: ... removed the killed create's file (the orphan sweep)"
check "'ic' can be created again" "SELECT shared_cbf_create('ic', 10) IS NOT NULL"
q "SELECT shared_drop('ic')" >/dev/null

# 2. Paused, alive: a create in progress.
paused_create busy
PIDS+=($SESSION)
check "a drop with if_exists finds no object" "SELECT NOT shared_drop('busy', true)"
[ -f "$dir/busy" ] || fail "the drop removed the file of a create in progress"
echo "ok: ... and leaves the file of the create in progress"
psql -X -q -c "SELECT shared_cbf_create('sweeper', 10)" >/dev/null  # a new backend: its first create sweeps
[ -f "$dir/busy" ] || fail "the orphan sweep removed the file of a create in progress"
echo "ok: the orphan sweep leaves the file of a create in progress"
check_error "a second create of the name waits for the first" "statement timeout" \
    "SELECT shared_cbf_create('busy', 10)" 1s
[ "$(magic "$dir/busy")" = 0000000000000000 ] || fail "the file of the paused create changed"
kill -CONT "$BACKEND"
echo COMMIT >"$WORK/end-busy"
wait "$SESSION" || fail "the resumed create: $(cat "$WORK/busy.log")"
grep -q ERROR "$WORK/busy.log" && fail "the resumed create: $(cat "$WORK/busy.log")"
check "the resumed create committed a working object" \
    "SELECT shared_cbf_add('busy', 1) AND shared_cbf_contains('busy', 1) AND status = 'ok' FROM shared_objects WHERE name = 'busy'"
check_error "a second create of the name, once it committed" "already exists" "SELECT shared_cbf_create('busy', 10)"
q "SELECT shared_drop('busy')" >/dev/null

# 3. Terminated, cancelled.
for how in pg_terminate_backend pg_cancel_backend; do
    paused_create stopped
    q "SELECT $how($BACKEND)" >/dev/null
    kill -CONT "$BACKEND"
    echo ROLLBACK >"$WORK/end-stopped"
    wait "$SESSION" || true
    grep -Eq "terminating connection|interrupted|canceling" "$WORK/stopped.log" ||
        fail "$how: the create was not stopped: $(cat "$WORK/stopped.log")"
    for _ in $(seq 1 100); do [ -e "$dir/stopped" ] || break; sleep 0.1; done
    [ ! -e "$dir/stopped" ] || fail "$how: the stopped create left its file"
    echo "ok: $how: the stopped create left no file"
    check "$how: the name is free" "SELECT shared_cbf_create('stopped', 10) IS NOT NULL"
    q "SELECT shared_drop('stopped')" >/dev/null
done
check "the object made before every interruption still works" "SELECT shared_cbf_add('small', 'a') AND shared_cbf_contains('small', 'a')"
echo "all interrupted create checks passed"
