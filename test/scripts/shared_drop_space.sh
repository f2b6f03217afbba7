#!/usr/bin/env bash
# A dropped object's disk space comes back when the drop commits.
# 1. Another session maps the file (an idle connection lets go of it only at
#    its next call): before, the 64 MiB stayed allocated for as long as that
#    connection stayed idle. Now the payload's blocks are freed at once, and
#    the idle session's next call finds the object gone.
# 2. A call that was waiting for the object's lock when the drop committed
#    touches nothing of it once it gets the lock (the blocks may be gone), and
#    a drop does not wait more than its bounded second for a lock held by a
#    live process.
set -euo pipefail
: "${SKETCH_ROOT:?}" "${PGHOST:?}" "${PGPORT:?}"
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
start_test sketchshare_shared_drop_space
dir=$(object_dir)
q "CREATE EXTENSION dblink" >/dev/null
conn="dbname=$PGDATABASE host=$PGHOST port=$PGPORT user=$(q "SELECT current_user")"

# 1. Capacity 10M at 1%: 64 MiB of counters. This shell keeps a descriptor
# of the file, to see its blocks once it is unlinked.
q "SELECT shared_cbf_create('big', 10000000)" >/dev/null
exec 7<"$dir/big"
bytes_now() { echo $(($(stat -L -c %b /proc/$$/fd/7) * 512)); }
before=$(bytes_now)
[ "$before" -ge $((64 << 20)) ] || fail "the created file holds $before bytes, not its 64 MiB"
psql -X -q -At >"$WORK/idle.log" 2>&1 <<SQL &
SELECT dblink_connect('c', '$conn');
SELECT * FROM dblink('c', \$q\$SELECT shared_cbf_add('big', 'a')::text\$q\$) AS t(v text);
\! touch "$WORK/mapped"; while [ ! -e "$WORK/measured" ]; do sleep 0.05; done
SELECT * FROM dblink('c', \$q\$SELECT shared_cbf_add('big', 'b')::text\$q\$) AS t(v text);
SQL
idle=$!
PIDS+=($idle)
await_file "$WORK/mapped" || fail "the idle session did not map 'big': $(cat "$WORK/idle.log")"
q "SELECT shared_drop('big')" >/dev/null
after=$(bytes_now)
touch "$WORK/measured"
wait $idle || true
exec 7<&-
# The kernel may keep the 2 MiB page of the file's cache that holds the header.
[ "$after" -le $((2 << 20)) ] || fail "the dropped file still holds $after bytes while another session maps it"
echo "ok: the drop gave back $(((before - after) >> 20)) MiB at once, though an idle session mapped the file"
grep -q 'shared object "big" does not exist' "$WORK/idle.log" ||
    fail "the idle session's next call: $(cat "$WORK/idle.log")"
echo "ok: ... and that session's next call finds it gone"

# 2. A live process (a sleep) holds the writer word of 'held'; an immediate
# add waits for the lock meanwhile (a transactional one would wait at its
# commit, and the drop for that commit). (The add before maps the file in this server run,
# so that mapping it again does not clear the planted word.)
q "SELECT shared_cbf_create('held', 1000)" >/dev/null
q "SELECT shared_cbf_add('held', 'a')" >/dev/null
sleep 60 &
holder=$!
PIDS+=($holder)
put_u32 "$dir/held" 384 "$holder"  # offsetof(FileHeader, lock.writer)
psql -X -At -c "SELECT shared_cbf_add('held', 'waiting', false)" >"$WORK/waiter.out" 2>&1 &
waiter=$!
PIDS+=($waiter)
for _ in $(seq 1 50); do
    [ -n "$(q "SELECT pid FROM pg_stat_activity WHERE query = 'SELECT shared_cbf_add(''held'', ''waiting'', false)'")" ] && break
    sleep 0.1
done
start=$(date +%s%N)
q "SELECT shared_drop('held')" >/dev/null
took=$((($(date +%s%N) - start) / 1000000))
[ "$took" -lt 5000 ] || fail "the drop took $took ms: it waited for the held lock beyond its bound"
echo "ok: the drop committed in $took ms although a live process held the lock"
kill "$holder"
wait "$holder" 2>/dev/null || true
wait $waiter || true
grep -q 'shared object "held" was dropped or re-created meanwhile' "$WORK/waiter.out" ||
    fail "the add that waited for the lock of the dropped object: $(cat "$WORK/waiter.out")"
echo "ok: an add that waited for the lock of a dropped object changes nothing: $(head -1 "$WORK/waiter.out")"
echo "all drop space checks passed"
