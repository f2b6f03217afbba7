#!/usr/bin/env bash
# SIGKILL of a backend in the middle of a load. The postmaster then restarts
# every backend; afterwards the objects attach and validate, a writer gets
# the exclusive lock within a second (a dead holder's share is reclaimed), and
# every id whose add returned before the kill is still contained. The loads
# add at once (transactional => false), so that what returned is in the file;
# shared_transactional.sh kills a transactional load.
set -euo pipefail
: "${SKETCH_ROOT:?}" "${PGHOST:?}" "${PGPORT:?}"
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
start_test sketchshare_shared_crash

HAVE_BLOOM=$(q "SELECT count(*) FROM pg_proc WHERE proname = 'shared_bloom_create'")
q "SELECT shared_cbf_create('crash', 4000000, 0.01)" >/dev/null
BLOOM_ADD=""
if [ "$HAVE_BLOOM" -gt 0 ]; then
    q "SELECT shared_bloom_create('crash_bloom', 4000000, 0.01)" >/dev/null
    BLOOM_ADD="PERFORM shared_bloom_add('crash_bloom', g, false) FROM generate_series(b * 100, b * 100 + 99) g;"
fi

# Loader 1: batches of 100 single adds; a NOTICE reaches the client after
# each batch returned (notices are sent as they are raised).
start_loader 1 "DO \$\$ BEGIN FOR b IN 0..39999 LOOP
    PERFORM shared_cbf_add('crash', g, false) FROM generate_series(b * 100, b * 100 + 99) g;
    $BLOOM_ADD
    RAISE NOTICE 'done %', b;
END LOOP; END \$\$"
# Loader 2: big add_many batches, so it holds the shared lock most of the time.
start_loader 2 "DO \$\$ BEGIN FOR b IN 1..100000 LOOP
    PERFORM shared_cbf_add_many('crash', array_agg(g), false) FROM generate_series(5000000 + (b % 50) * 200000, 5000000 + (b % 50) * 200000 + 199999) g;
END LOOP; END \$\$"

# 'reused': its lock words name a live process (a sleep) in the writer word
# and a reader slot, as a backend that died holding them would leave them if
# the kernel then gave its process id to a new process. The restart after
# the crash starts a new server run, whose first writable mapping clears them.
q "SELECT shared_cbf_create('reused', 1000)" >/dev/null
q "SELECT shared_cbf_add('reused', 1)" >/dev/null  # mapped in this run: nothing clears the words planted now
sleep 120 &
reused_holder=$!  # not in PIDS yet: sigkill_backend waits for those
put_u32 "$(object_dir)/reused" 384 "$reused_holder"  # offsetof(FileHeader, lock.writer)
put_u32 "$(object_dir)/reused" 4096 "$reused_holder"  # reader slot 0 (kSlotsOffset)
check_error "before the crash, the planted writer holds 'reused'" "statement timeout" \
    "SELECT shared_cbf_add('reused', 2, false)" 300ms

# Let both run, then SIGKILL the add_many backend.
await_batch 200 10
sigkill_backend shared_cbf_add_many 0.3
PIDS+=($reused_holder)
last=$(last_batch)
echo "loader 1 completed batches 0..$last before the crash"

check "the object attaches and validates" "SELECT status = 'ok' FROM shared_objects WHERE name = 'crash'"
check "every id whose add returned is contained" \
    "SELECT count(*) = 0 FROM generate_series(0, ($last + 1) * 100 - 1) g WHERE NOT shared_cbf_contains('crash', g)"
# A writer needs every reader slot empty or dead: within a second.
check "a writer gets the lock within a second" \
    "SELECT shared_cbf_remove('crash', 0)" 1s
check "and adds go on" "SELECT shared_cbf_add('crash', -424242) AND shared_cbf_contains('crash', -424242)"
check "after the crash restart, the words of the run before are cleared: 'reused' adds and removes at once" \
    "SELECT shared_cbf_add('reused', 3, false) AND shared_cbf_remove('reused', 3)" 1s
kill "$reused_holder" 2>/dev/null || true
q "SELECT 'lock recoveries after the crash: ' || (shared_cbf_stats('crash')->>'lock_recoveries')"
if [ "$HAVE_BLOOM" -gt 0 ]; then
    check "bloom: attaches" "SELECT status = 'ok' FROM shared_objects WHERE name = 'crash_bloom'"
    check "bloom: every id whose add returned is contained" \
        "SELECT count(*) = 0 FROM generate_series(0, ($last + 1) * 100 - 1) g WHERE NOT shared_bloom_contains('crash_bloom', g)"
    check "bloom: a writer gets the lock within a second" \
        "SELECT shared_bloom_clear('crash_bloom') IS NOT NULL" 1s
fi

# A lock held by a process that died is reclaimed: plant a dead writer's pid
# in the file's writer word, as a crash inside a remove would leave it.
file="$(object_dir)/crash"
[ -f "$file" ] || fail "no file at $file"
lock_offset=384  # offsetof(FileHeader, lock.writer), asserted in src/core/shared_file.hpp
dead=$(bash -c 'echo $$')  # a process that has exited
put_u32 "$file" "$lock_offset" "$dead"
check "a dead writer's lock is reclaimed within a second" \
    "SELECT shared_cbf_remove('crash', 1)" 1s

# A waiting backend stays cancellable: a live process (here a sleep) holds
# the writer word; statement_timeout and pg_cancel_backend end the wait of an
# immediate add (a transactional one takes the lock only at commit).
sleep 60 &
holder=$!
PIDS+=($holder)
put_u32 "$file" "$lock_offset" "$holder"
check_error "statement_timeout ends a wait for the lock" "statement timeout" \
    "SELECT shared_cbf_add('crash', -1, false)" 300ms
psql -X -At -c "SELECT shared_cbf_add('crash', -1, false)" >"$WORK/waiter.out" 2>&1 &
waiter=$!
for _ in $(seq 1 50); do
    wpid=$(q "SELECT pid FROM pg_stat_activity WHERE query LIKE 'SELECT shared_cbf_add(''crash'', -1, false)%' LIMIT 1")
    [ -n "$wpid" ] && break
    sleep 0.1
done
sleep 0.2
q "SELECT pg_cancel_backend($wpid)" >/dev/null
wait $waiter || true
grep -q "canceling statement due to user request" "$WORK/waiter.out" || fail "pg_cancel_backend: $(cat "$WORK/waiter.out")"
echo "ok: pg_cancel_backend ends a wait for the lock"
check "lookups take no lock: contains answers while a writer holds it" "SELECT shared_cbf_contains('crash', 5)" 1s
kill "$holder"; wait "$holder" 2>/dev/null || true
check "once the holder is gone, a writer gets the lock within a second" \
    "SELECT shared_cbf_add('crash', -2, false) AND shared_cbf_remove('crash', -2)" 1s

# A live process holding every item stripe, as one stopped (SIGSTOP, a
# debugger) inside an add would hold one: an add then lets go of the lock
# between tries and checks for interrupts, so statement_timeout ends it and a
# writer gets in meanwhile; once the holder is gone its stripes are taken over.
sleep 60 &
holder=$!
PIDS+=($holder)
stripes_offset=8192  # kStripesOffset, src/core/shared_file.hpp
put_u32 "$file" "$stripes_offset" "$holder" 1024
check_error "statement_timeout ends a wait for an item's stripe" "statement timeout" \
    "SELECT shared_cbf_add('crash', -3, false)" 300ms
PGOPTIONS="-c statement_timeout=10s" psql -X -At -c "SELECT shared_cbf_add('crash', -3, false)" >"$WORK/striped.out" 2>&1 &
striped=$!
sleep 0.3
check "a writer gets the lock while an add waits for a stripe" "SELECT shared_cbf_remove('crash', 5) IS NOT NULL" 1s
kill "$holder"; wait "$holder" 2>/dev/null || true
wait $striped || fail "the waiting add: $(cat "$WORK/striped.out")"
[ "$(cat "$WORK/striped.out")" = t ] || fail "the waiting add: $(cat "$WORK/striped.out")"
echo "ok: once the stripes' holder is gone, the waiting add goes on"
echo "all crash checks passed"
