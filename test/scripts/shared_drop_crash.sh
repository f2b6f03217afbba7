#!/usr/bin/env bash
# A drop that returned stays done through a backend crash, also under
# synchronous_commit = off: its commit reaches the WAL before the object's
# file is removed. Without that, a crash before the WAL writer wrote the
# commit brought the catalog row back without its file ("is missing").
# The WAL writer writes an asynchronous commit within wal_writer_delay; a
# long delay holds that window open across the crash.
set -euo pipefail
: "${SKETCH_ROOT:?}" "${PGHOST:?}" "${PGPORT:?}"
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
start_test sketchshare_shared_drop_crash "ALTER SYSTEM RESET wal_writer_delay" "SELECT pg_reload_conf()"

q "ALTER SYSTEM SET wal_writer_delay = '10s'" >/dev/null
q "SELECT pg_reload_conf()" >/dev/null
sleep 1  # the WAL writer takes the new delay at the end of its current one (200 ms)
q "SELECT shared_cbf_create('dropped', 1000)" >/dev/null
q "SELECT shared_cbf_add('dropped', 1)" >/dev/null
file="$(object_dir)/dropped"
[ -f "$file" ] || fail "no file at $file"

start_loader 1 "SELECT pg_sleep(60)"  # the backend to crash
for _ in $(seq 1 50); do
    [ -n "$(q "SELECT pid FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(60)'")" ] && break
    sleep 0.1
done
# Everything before the drop reaches the WAL (this cluster, too, may commit
# asynchronously): the crash can lose no commit but the drop's.
q "CHECKPOINT" >/dev/null
PGOPTIONS="-c synchronous_commit=off" q "SELECT shared_drop('dropped')" >/dev/null
sigkill_backend "pg_sleep(60)" 0

check "the drop is still done after the crash" "SELECT count(*) = 0 FROM shared_objects WHERE name = 'dropped'"
[ ! -e "$file" ] || fail "the dropped object's file is still there"
echo "ok: and its file is gone"
check "the name can be created again" \
    "SELECT shared_cbf_create('dropped', 1000) IS NOT NULL AND NOT shared_cbf_contains('dropped', 1)"
