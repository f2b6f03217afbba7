#!/usr/bin/env bash
# Transactional adds across sessions: two transactions racing on one key (the
# second waits; seen after a commit, new after an abort), lock_timeout and
# deadlocks ending such waits, a transaction past its key locks (overflowing)
# against others, README's dedup pattern through a SIGKILL of the loading
# backend and a retry, and pgbench clients over 2,000 keys, a quarter of
# whose transactions roll back: every key of a committed attempt arrives
# exactly once. Waits are observed in pg_stat_activity, never slept on.
set -euo pipefail
: "${SKETCH_ROOT:?}" "${PGHOST:?}" "${PGPORT:?}"
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
start_test sketchshare_shared_transactional

# Sessions fed through FIFOs: open_session NAME starts psql as application
# NAME; send NAME SQL runs SQL there; await_output NAME TEXT waits until its
# output shows TEXT (10 s at most).
declare -A FD
open_session() {
    mkfifo "$WORK/$1.in"
    PGAPPNAME=$1 psql -X -At <"$WORK/$1.in" >"$WORK/$1.out" 2>&1 &
    PIDS+=($!)
    exec {fd}>"$WORK/$1.in"
    FD[$1]=$fd
}
send() { echo "$2" >&"${FD[$1]}"; }
close_session() { send "$1" '\q'; eval "exec ${FD[$1]}>&-"; }
await_output() {
    for _ in $(seq 1 100); do
        grep -qx -- "$2" "$WORK/$1.out" && return 0
        sleep 0.1
    done
    cat "$WORK/$1.out"
    fail "session $1 never printed '$2'"
}
# await_lock_wait NAME: until session NAME waits for a lock.
await_lock_wait() {
    for _ in $(seq 1 100); do
        [ "$(q "SELECT count(*) FROM pg_stat_activity WHERE application_name = '$1' AND wait_event_type = 'Lock'")" = 1 ] &&
            return 0
        sleep 0.1
    done
    cat "$WORK/$1.out"
    fail "session $1 never waited for a lock"
}
# result NAME MARK: the line session NAME printed before MARK.
result() { grep -B1 -- "^$2\$" "$WORK/$1.out" | head -1; }
# mark NAME: remembers how much session NAME has printed; since NAME: what it
# printed after that.
declare -A MARKED
mark() { MARKED[$1]=$(wc -l <"$WORK/$1.out"); }
since() { tail -n +"$((MARKED[$1] + 1))" "$WORK/$1.out"; }

q "SELECT shared_cbf_create('race', 100000, 1e-6)" >/dev/null
q "SELECT shared_bloom_create('race_bf', 100000, 1e-6)" >/dev/null
open_session a
open_session b

# race KIND END: a adds key to the filter of KIND and holds its transaction;
# b adds the same key and must wait until a ENDs (COMMIT or ROLLBACK).
race() {
    local fn=$1 obj=$2 key=$3 end=$4 expect=$5
    send a "BEGIN;"
    send a "SELECT $fn('$obj', $key);"
    send a "\\echo a-added-$key"
    await_output a "a-added-$key"
    [ "$(result a "a-added-$key")" = t ] || fail "$fn: the first add of $key was not new"
    send b "SELECT $fn('$obj', $key);"
    send b "\\echo b-done-$key"
    await_lock_wait b
    grep -qx "b-done-$key" "$WORK/b.out" && fail "$fn: b did not wait"
    send a "$end;"
    await_output b "b-done-$key"
    [ "$(result b "b-done-$key")" = "$expect" ] || fail "$fn: after $end, b's add of $key said $(result b "b-done-$key")"
    echo "ok: $fn: b waited for a; after $end it said $expect"
}
race shared_cbf_add race 1 COMMIT f
race shared_cbf_add race 2 ROLLBACK t
race shared_bloom_add race_bf 101 COMMIT f
race shared_bloom_add race_bf 102 ROLLBACK t
check "cbf: each key counted by the committed adds only" \
    "SELECT shared_cbf_count_of('race', 1) = 2 AND shared_cbf_count_of('race', 2) = 1"

# lock_timeout ends the wait with the usual error
send a "BEGIN;"
send a "SELECT shared_cbf_add('race', 3);"
send a '\echo a-holds-3'
await_output a a-holds-3
check_error "lock_timeout ends the wait" "lock timeout" \
    "SET lock_timeout = '200ms'; SELECT shared_cbf_add('race', 3)"
check_error "a statement_timeout too" "statement timeout" "SELECT shared_cbf_add('race', 3)" 200ms
send a "ROLLBACK;"

# a deadlock between two such waits is detected; the other transaction goes on
send a "BEGIN; SELECT shared_cbf_add('race', 10);"
send b "BEGIN; SELECT shared_cbf_add('race', 11);"
send a '\echo a-10'
send b '\echo b-11'
await_output a a-10
await_output b b-11
send a "SELECT shared_cbf_add('race', 11);"
send a '\echo a-11'
await_lock_wait a
send b "SELECT shared_cbf_add('race', 10);"
send b '\echo b-10'
await_output a a-11
await_output b b-10
grep -q "deadlock detected" "$WORK/a.out" "$WORK/b.out" || fail "no deadlock reported"
echo "ok: the deadlock was detected"
send a "COMMIT;"
send b "COMMIT;"
send a '\echo a-end'
send b '\echo b-end'
await_output a a-end
await_output b b-end
check "one transaction committed both keys, the other none" \
    "SELECT shared_cbf_contains('race', 10) AND shared_cbf_contains('race', 11) AND
            shared_cbf_count_of('race', 10) = 1 AND shared_cbf_count_of('race', 11) = 1"

# An overflowing transaction (past its 64 key locks) against others: an add
# of one of its items, and of any new item, waits for it to end.
send a "BEGIN; SELECT count(*) FILTER (WHERE shared_cbf_add('race', g)) FROM generate_series(1000, 1999) g;"
send a '\echo a-loaded'
await_output a a-loaded
[ "$(result a a-loaded)" = 1000 ] || fail "the overflowing load: $(result a a-loaded)"
send b "SELECT shared_cbf_add('race', 1500), shared_cbf_add('race', 5000);"
send b '\echo b-overflow'
await_lock_wait b
send a "COMMIT;"
await_output b b-overflow
[ "$(result b b-overflow)" = "f|t" ] || fail "after the overflowing commit: $(result b b-overflow)"
echo "ok: an overflowing transaction's adds were waited for"
# and it waits for a key another transaction holds
send b "BEGIN; SELECT shared_cbf_add('race', 6000);"
send b '\echo b-6000'
await_output b b-6000
send a "BEGIN; SELECT count(*) FILTER (WHERE shared_cbf_add('race', g)) FROM generate_series(5001, 7000) g;"
send a '\echo a-loaded-2'
await_lock_wait a
send b "ROLLBACK;"
await_output a a-loaded-2
[ "$(result a a-loaded-2)" = 2000 ] || fail "overflowing after b's rollback: $(result a a-loaded-2)"
send a "COMMIT;"
send a '\echo a-committed-2'
await_output a a-committed-2
check "every item of the overflowing load is in" \
    "SELECT bool_and(shared_cbf_contains('race', g)) FROM generate_series(5001, 7000) g"
echo "ok: an overflowing transaction waited for a key held by another"
# Two loads that feed the same two objects overflow both in one order (the
# objects' file ids), whichever object each reaches its key locks in first:
# both hold their key locks in both, a goes past them in x, b in y; b then
# waits for a, where overflowing y alone it would have gone on, and the two
# would have deadlocked at their next adds (a in y, b in x).
q "SELECT shared_cbf_create('two_x', 100000, 0.01), shared_cbf_create('two_y', 100000, 0.01),
          shared_cbf_create('two_z', 100000, 0.01)" >/dev/null
two_rows="SELECT count(*) FILTER (WHERE shared_cbf_add('two_x', g)), count(*) FILTER (WHERE shared_cbf_add('two_y', g)) FROM generate_series"
mark a
mark b
send a "BEGIN; $two_rows(1, 64) g; SELECT shared_cbf_add('two_z', 1);"
send a '\echo a-two-keys'
await_output a a-two-keys
send b "BEGIN; $two_rows(1001, 1064) g;"
send b '\echo b-two-keys'
await_output b b-two-keys
send a "SELECT shared_cbf_add('two_x', 65);"
send a '\echo a-two'
await_output a a-two
send b "SELECT shared_cbf_add('two_y', 1065);"
send b '\echo b-two'
await_lock_wait b
# an object a added one new item to is not overflowed: its other adders go on
[ "$(get_u32 "$(object_dir)/two_z" 272)" = 0 ] || fail "a overflowed an object it added one item to"
check "another adder of that object does not wait" "SELECT shared_cbf_add('two_z', 2)" 5s
send a "SELECT shared_cbf_add('two_y', 66); COMMIT;"
send a '\echo a-two-committed'
await_output a a-two-committed
await_output b b-two
send b "SELECT shared_cbf_add('two_x', 1066); COMMIT;"
send b '\echo b-two-committed'
await_output b b-two-committed
since a | grep -q ERROR && fail "two loads over two objects, a: $(since a)"
since b | grep -q ERROR && fail "two loads over two objects, b: $(since b)"
check "both loads' items are in both objects" \
    "SELECT bool_and(shared_cbf_contains('two_x', g) AND shared_cbf_contains('two_y', g))
     FROM (SELECT generate_series(1, 64) UNION ALL SELECT generate_series(1001, 1064)) s(g)"
check "and their last adds" "SELECT shared_cbf_contains('two_x', 65) AND shared_cbf_contains('two_y', 66)
                                    AND shared_cbf_contains('two_y', 1065) AND shared_cbf_contains('two_x', 1066)"
echo "ok: two loads over two objects overflowed them in one order"
# A drop (and a freeze) waits for the transactions with pending adds to the
# object: their commits find it in place.
q "SELECT shared_bloom_create('dropped', 1000, 0.01)" >/dev/null
send a "BEGIN; SELECT shared_bloom_add('dropped', 1);"
send a '\echo a-dropped-added'
await_output a a-dropped-added
send b "SELECT shared_drop('dropped');"
send b '\echo b-dropped'
await_lock_wait b
send a "COMMIT;"
await_output b b-dropped
[ "$(result b b-dropped)" = t ] || fail "the waiting drop: $(result b b-dropped)"
check "after the drop the object is gone" "SELECT count(*) = 0 FROM shared_objects WHERE name = 'dropped'"
echo "ok: a drop waited for a transaction's pending adds"
# Adders enter by their slot in the object's header (the local transaction
# id at 3072 + 64 * (n % 16) + 4 * (n / 16) for the backend numbered n from
# 0; pg_locks shows it from 1 before PostgreSQL 17), holding no
# object lock; a freeze or drop counts itself closing (the word at 276),
# waits for the transactions in the slots (a virtualxid lock), then holds
# adders off with the object's lock in share mode, which an adder entering
# while it is counted takes row-exclusive.
q "SELECT shared_bloom_create('closing', 1000, 0.01)" >/dev/null
closing=$(object_dir)/closing
closing_is() { [ "$(get_u32 "$1" 276)" = "$2" ] || fail "after $3: the count of closers is $(get_u32 "$1" 276), not $2"; }
# slot_of NAME: the offset of session NAME's slot, and its transaction's local id
slot_of() {
    local vxid n
    vxid=$(q "SELECT virtualtransaction FROM pg_locks l JOIN pg_stat_activity a USING (pid)
              WHERE a.application_name = '$1' AND l.locktype = 'virtualxid'")
    n=${vxid%/*}
    [ "$(q "SHOW server_version_num")" -ge 170000 ] || n=$((n - 1))
    echo "$((3072 + 64 * (n % 16) + 4 * (n / 16))) ${vxid#*/}"
}
object_locks() {  # object_locks NAME: the modes of the object's locks session NAME holds or waits for
    q "SELECT coalesce(string_agg(l.mode || CASE WHEN l.granted THEN '' ELSE ' (waiting)' END, ','), 'none')
       FROM pg_locks l JOIN pg_stat_activity a USING (pid)
       WHERE a.application_name = '$1' AND l.locktype = 'advisory' AND l.objsubid = 21327"
}
open_session c
send a "BEGIN; SELECT shared_bloom_add('closing', 1);"
send a '\echo a-closing-1'
await_output a a-closing-1
read -r a_slot a_lxid < <(slot_of a)
[ "$(get_u32 "$closing" "$a_slot")" = "$a_lxid" ] || fail "a's slot holds $(get_u32 "$closing" "$a_slot"), not its transaction $a_lxid"
[ "$(object_locks a)" = none ] || fail "an adder entered by its slot holds the object's lock: $(object_locks a)"
mark b
send b "SELECT shared_freeze('closing');"
send b '\echo b-frozen'
await_lock_wait b
check "the freeze waits for a's transaction" \
    "SELECT count(*) = 1 FROM pg_locks l JOIN pg_stat_activity a USING (pid), pg_locks h JOIN pg_stat_activity ha USING (pid)
     WHERE a.application_name = 'b' AND NOT l.granted AND l.locktype = 'virtualxid'
       AND ha.application_name = 'a' AND h.locktype = 'virtualxid' AND h.granted AND h.virtualxid = l.virtualxid"
closing_is "$closing" 1 "a freeze began to wait"
# c enters while the freeze is counted: by the object's lock, which the
# freeze has not taken yet
send c "BEGIN; SELECT shared_bloom_add('closing', 2);"
send c '\echo c-closing-2'
await_output c c-closing-2
[ "$(object_locks c)" = RowExclusiveLock ] || fail "c entered while a freeze was counted, holding: $(object_locks c)"
read -r c_slot _ < <(slot_of c)
[ "$(get_u32 "$closing" "$c_slot")" = 0 ] || fail "c entered by the lock but its slot holds $(get_u32 "$closing" "$c_slot")"
send a "COMMIT;"
send a '\echo a-closing-committed'
await_output a a-closing-committed
[ "$(get_u32 "$closing" "$a_slot")" = 0 ] || fail "a's slot holds $(get_u32 "$closing" "$a_slot") after its commit"
for _ in $(seq 1 100); do  # (b wakes from its wait for a, then waits at the lock)
    [ "$(object_locks b)" = "ShareLock (waiting)" ] && break
    sleep 0.1
done
[ "$(object_locks b)" = "ShareLock (waiting)" ] || fail "after a's commit the freeze should wait for c at the object's lock: $(object_locks b)"
send c "COMMIT;"
await_output b b-frozen
since b | grep -q ERROR && fail "the freeze failed: $(since b)"
closing_is "$closing" 0 "the freeze's transaction"
check "the adds of both transactions are in the frozen object" \
    "SELECT shared_bloom_contains('closing', 1) AND shared_bloom_contains('closing', 2)"
check_error "an add after the freeze is refused" "frozen" "SELECT shared_bloom_add('closing', 3)"
echo "ok: a freeze waited for adders by their slot and by the object's lock"
# A drop's transaction holds adders off to its end: they find the object
# dropped after its commit, and add after its rollback; a drop rolled back
# to its savepoint, or cancelled while it waits, counts itself out.
q "SELECT shared_bloom_create('closing2', 1000, 0.01)" >/dev/null
closing2=$(object_dir)/closing2
send b "BEGIN; SELECT shared_drop('closing2');"
send b '\echo b-dropping'
await_output b b-dropping
closing_is "$closing2" 1 "a drop in its transaction"
send a "SELECT shared_bloom_add('closing2', 1);"
send a '\echo a-added-to-dropping'
await_lock_wait a
send b "ROLLBACK;"
await_output a a-added-to-dropping
[ "$(result a a-added-to-dropping)" = t ] || fail "an add after a drop rolled back: $(result a a-added-to-dropping)"
closing_is "$closing2" 0 "a drop rolled back"
send b "BEGIN; SAVEPOINT s; SELECT shared_drop('closing2'); ROLLBACK TO s;"
send b '\echo b-drop-undone'
await_output b b-drop-undone
closing_is "$closing2" 0 "a drop rolled back to its savepoint"
send b "SAVEPOINT t; SELECT shared_drop('closing2'); RELEASE t;"
send b '\echo b-drop-released'
await_output b b-drop-released
closing_is "$closing2" 1 "a drop's savepoint released"
mark a
send a "SELECT shared_bloom_add('closing2', 2);"
send a '\echo a-added-to-dropped'
await_lock_wait a
send b "COMMIT;"
await_output a a-added-to-dropped
since a | grep -q 'was dropped' || fail "an add waiting for a drop's commit: $(since a)"
q "SELECT shared_bloom_create('closing3', 1000, 0.01)" >/dev/null
closing3=$(object_dir)/closing3
send c "BEGIN; SELECT shared_bloom_add('closing3', 1);"
send c '\echo c-closing3'
await_output c c-closing3
mark b
send b "SELECT shared_drop('closing3');"
await_lock_wait b
closing_is "$closing3" 1 "a drop waiting for an adder"
q "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'b'" >/dev/null
send b '\echo b-cancelled'
await_output b b-cancelled
since b | grep -q "canceling statement due to user request" || fail "the drop's wait was not cancelled: $(since b)"
closing_is "$closing3" 0 "a drop cancelled while it waited"
# and one terminated while it waits (FATAL) counts itself out on its way
# out (which goes on after the client is told: wait for it to leave)
PGAPPNAME=terminated_closer psql -X -At -c "SELECT shared_drop('closing3')" >"$WORK/terminated_closer.out" 2>&1 &
PIDS+=($!)
await_lock_wait terminated_closer
closing_is "$closing3" 1 "a drop waiting for an adder, again"
q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'terminated_closer'" >/dev/null
for _ in $(seq 1 100); do
    [ "$(q "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'terminated_closer'")" = 0 ] && break
    sleep 0.1
done
closing_is "$closing3" 0 "a drop terminated while it waited"
check "the terminated drop left the object" "SELECT count(*) = 1 FROM shared_objects WHERE name = 'closing3'"
# a deadlock through a slot's wait is detected: c waits for a key b holds,
# and b's freeze waits for c's transaction (c checks for deadlocks late, so
# b is the one that finds it)
send c "SET deadlock_timeout = '1min';"
send b "BEGIN; SELECT shared_cbf_add('race', 9001);"
send b '\echo b-9001'
await_output b b-9001
send c "SELECT shared_cbf_add('race', 9001);"
await_lock_wait c
mark b
send b "SELECT shared_freeze('closing3');"
send b '\echo b-deadlock'
await_output b b-deadlock
since b | grep -q "deadlock detected" || fail "no deadlock reported: $(since b)"
send b "ROLLBACK;"
send c "ROLLBACK;"
send c '\echo c-deadlock-over'
await_output c c-deadlock-over
closing_is "$closing3" 0 "a freeze that ended in a deadlock"
check "the freeze chosen as the deadlock's victim left the object mutable" \
    "SELECT NOT frozen FROM shared_objects WHERE name = 'closing3'"
# An adder whose adds to the object all roll back (to a savepoint, or with a
# PL/pgSQL block that failed) empties its slot with them, as PostgreSQL let
# go of the object's lock there: a freeze or drop does not wait for the rest
# of its transaction (nor meets it in a deadlock).
q "SELECT shared_bloom_create('closing4', 1000, 0.01)" >/dev/null
closing4=$(object_dir)/closing4
send a "BEGIN; SAVEPOINT s; SELECT shared_bloom_add('closing4', 1); ROLLBACK TO s;"
send a '\echo a-undone'
await_output a a-undone
read -r a_slot _ < <(slot_of a)
[ "$(get_u32 "$closing4" "$a_slot")" = 0 ] ||
    fail "a's adds rolled back to their savepoint, but its slot holds $(get_u32 "$closing4" "$a_slot")"
send a "DO \$\$ BEGIN PERFORM shared_bloom_add('closing4', 2); RAISE EXCEPTION 'undone';
EXCEPTION WHEN raise_exception THEN NULL; END \$\$;"
send a '\echo a-block-undone'
await_output a a-block-undone
[ "$(get_u32 "$closing4" "$a_slot")" = 0 ] ||
    fail "a's add in a PL/pgSQL block that failed, but its slot holds $(get_u32 "$closing4" "$a_slot")"
PGOPTIONS="-c lock_timeout=2s" q "SELECT shared_freeze('closing4')" >/dev/null ||
    fail "the freeze waited for a transaction whose adds to the object all rolled back"
send a "COMMIT;"
send a '\echo a-undone-committed'
await_output a a-undone-committed
check "the freeze did not wait for a's transaction, and nothing of a's rolled back adds is in" \
    "SELECT frozen AND NOT shared_bloom_contains('closing4', 1) AND NOT shared_bloom_contains('closing4', 2)
     FROM shared_objects WHERE name = 'closing4'"
closing_is "$closing4" 0 "the freeze's transaction"
close_session c
echo "ok: the closers' count and waits"
# The object's count of overflowing transactions (the header's word at 272:
# adders of new items skip the overflow lock while it is 0) is back to 0
# however an overflow ends: a commit, an abort, a rollback to a savepoint,
# a cancel while it waits for the overflow lock.
q "SELECT shared_cbf_create('counted', 100000, 0.01)" >/dev/null
counted=$(object_dir)/counted
overflow="SELECT count(*) FROM generate_series(1, 200) g WHERE shared_cbf_add('counted', g)"
counted_is() { [ "$(get_u32 "$counted" 272)" = "$1" ] || fail "after $2: the count of overflowing transactions is $(get_u32 "$counted" 272), not $1"; }
q "BEGIN; $overflow; ROLLBACK" >/dev/null
counted_is 0 "an aborted overflow"
q "BEGIN; SAVEPOINT s; $overflow; ROLLBACK TO s; SELECT shared_cbf_add('counted', 1); COMMIT" >/dev/null
counted_is 0 "an overflow rolled back to its savepoint"
q "BEGIN; SAVEPOINT s; $overflow; RELEASE s; COMMIT" >/dev/null
counted_is 0 "a committed overflow"
# b holds its 64 key locks, a overflows, and b's next new item makes b wait
# for a's overflow lock, counted, until a cancel ends the wait.
send b "BEGIN; SELECT count(*) FROM generate_series(2001, 2064) g WHERE shared_cbf_add('counted', g);"
send b '\echo b-keys'
await_output b b-keys
send a "BEGIN; SELECT count(*) FROM generate_series(1001, 1200) g WHERE shared_cbf_add('counted', g);"
send a '\echo a-counted'
await_output a a-counted
counted_is 1 "an overflow in progress"
mark b
send b "SELECT shared_cbf_add('counted', 2065);"
await_lock_wait b
check "b waits for the overflow lock" \
    "SELECT count(*) = 1 FROM pg_locks l JOIN pg_stat_activity a USING (pid)
     WHERE a.application_name = 'b' AND NOT l.granted AND l.objsubid = 21334 AND l.mode = 'ExclusiveLock'"
counted_is 2 "a transaction began to wait for the overflow lock"
q "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'b'" >/dev/null
send b "ROLLBACK;"
send b '\echo b-counted'
await_output b b-counted
since b | grep -q "canceling statement due to user request" || fail "b's wait was not cancelled: $(since b)"
counted_is 1 "a wait for the overflow lock that was cancelled"
send a "COMMIT;"
send a '\echo a-counted-2'
await_output a a-counted-2
counted_is 0 "the overflow's commit"
check "the committed overflow's items are in" \
    "SELECT bool_and(shared_cbf_contains('counted', g)) FROM generate_series(1001, 1200) g"
check "nothing of the one that timed out" "SELECT NOT shared_cbf_contains('counted', 2100)"
# A savepoint released hands the overflow (and its lock) to the transaction:
# a rollback to a later savepoint leaves it counted until the commit.
send a "BEGIN; SAVEPOINT s; SELECT count(*) FROM generate_series(3001, 3200) g WHERE shared_cbf_add('counted', g);
RELEASE s; SAVEPOINT t; SELECT shared_cbf_add('counted', 3201); ROLLBACK TO t;"
send a '\echo a-released'
await_output a a-released
counted_is 1 "an overflow released to the transaction, then a rollback to a later savepoint"
# an error in a PL/pgSQL block ends the block's subtransaction and its overflow
send a "DO \$\$ BEGIN PERFORM count(*) FROM generate_series(3301, 3500) g WHERE shared_cbf_add('counted', g);
RAISE EXCEPTION 'undone'; EXCEPTION WHEN raise_exception THEN NULL; END \$\$;"
send a '\echo a-block'
await_output a a-block
counted_is 1 "an overflow in a PL/pgSQL block that failed, within an overflowing transaction"
send a "COMMIT;"
send a '\echo a-committed-3'
await_output a a-committed-3
counted_is 0 "the released overflow's commit"
check "the released overflow's items are in, the rolled back and failed ones not" \
    "SELECT bool_and(shared_cbf_contains('counted', g)) AND NOT shared_cbf_contains('counted', 3201)
            AND NOT shared_cbf_contains('counted', 3400) FROM generate_series(3001, 3200) g"
q "DO \$\$ BEGIN PERFORM count(*) FROM generate_series(3601, 3800) g WHERE shared_cbf_add('counted', g);
   RAISE EXCEPTION 'undone'; EXCEPTION WHEN raise_exception THEN NULL; END \$\$" >/dev/null
counted_is 0 "an overflow in a PL/pgSQL block that failed"
# a backend ended (FATAL) while it overflows counts itself out on its way out
# (which goes on after the client is told: wait for it to leave)
PGAPPNAME=terminated q "BEGIN; SELECT count(*) FROM generate_series(4001, 4200) g WHERE shared_cbf_add('counted', g);
   SELECT pg_terminate_backend(pg_backend_pid())" >/dev/null 2>&1 || true
for _ in $(seq 1 100); do
    [ "$(q "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'terminated'")" = 0 ] && break
    sleep 0.1
done
counted_is 0 "a backend terminated while it overflowed"
echo "ok: the count of overflowing transactions"
close_session a
close_session b

# (closed_new_run: an object mapped in this server run only, for the drop
# after the crash restart below)
q "SELECT shared_bloom_create('closed_new_run', 1000, 0.01)" >/dev/null
# (closed_nomem: likewise, for a drop that cannot adopt it)
q "SELECT shared_bloom_create('closed_nomem', 50000000, 0.01)" >/dev/null

# README's dedup pattern, killed in the middle of a load (SIGKILL, crash
# restart), then retried: every row arrives, for both kinds. The load
# overflows (1000 new items), so the object's count of overflowing
# transactions (the header's word at 272) names the killed one until the new
# server run's first mapping clears it.
dir=$(object_dir)
for kind in cbf bloom; do
    obj=crash_$kind
    if [ $kind = cbf ]; then q "SELECT shared_cbf_create('$obj', 100000, 1e-6)" >/dev/null
    else q "SELECT shared_bloom_create('$obj', 100000, 1e-6)" >/dev/null; fi
    q "CREATE TABLE target_$kind (k int)" >/dev/null
    load="INSERT INTO target_$kind SELECT g FROM generate_series(1, 1000) g WHERE shared_${kind}_add('$obj', g)"
    open_session loader_$kind
    send loader_$kind "BEGIN; $load; SELECT pg_backend_pid();"
    send loader_$kind '\echo loaded'
    await_output loader_$kind loaded
    victim=$(result loader_$kind loaded)
    echo "== SIGKILL the loading backend $victim"
    kill -9 "$victim"
    close_session loader_$kind 2>/dev/null || true
    wait "${PIDS[@]}" 2>/dev/null || true
    PIDS=()
    await_server
    [ "$(get_u32 "$dir/$obj" 272)" = 1 ] || fail "$kind: the killed load is not counted overflowing"
    check "$kind: nothing of the killed load" "SELECT NOT shared_${kind}_contains('$obj', 500)"
    [ "$(get_u32 "$dir/$obj" 272)" = 0 ] || fail "$kind: the new run's first mapping left the count"
    q "$load" >/dev/null
    check "$kind: the retry loads every row" "SELECT count(*) = 1000 AND count(DISTINCT k) = 1000 FROM target_$kind"
    [ "$(get_u32 "$dir/$obj" 272)" = 0 ] || fail "$kind: the retry's overflow is still counted"
done

# A drop that is the first of the new server run to touch its object's file
# (a drop maps no more than the header's page) counts itself closing in the
# lock words of the run before, which the run's first mapping for writing
# clears (adopt_lock): an adder's first mapping must not clear the count of
# a drop in progress, or the adder would enter by its slot, unseen by the
# drop, and commit its adds into the dropped object. So the drop adopts the
# file first: the adder waits at the object's lock, then finds it dropped.
[ "$(get_u32 "$dir/closed_new_run" 276)" = 0 ] || fail "closed_new_run counts $(get_u32 "$dir/closed_new_run" 276) closers"
open_session d
open_session e
send d "BEGIN; SELECT shared_drop('closed_new_run');"
send d '\echo d-dropping'
await_output d d-dropping
send e "BEGIN; SELECT shared_bloom_add('closed_new_run', 1);"
send e '\echo e-added'
await_lock_wait e
[ "$(get_u32 "$dir/closed_new_run" 276)" = 1 ] ||
    fail "the adder's first mapping of the run left $(get_u32 "$dir/closed_new_run" 276) closers counted, not the drop"
send d "COMMIT;"
await_output e e-added
grep -q 'was dropped' "$WORK/e.out" || fail "an add waiting for a drop's commit in a new run: $(cat "$WORK/e.out")"
send e "ROLLBACK;"
close_session d
close_session e
echo "ok: a drop that first touched its object in a new server run held its adders off"
# The adoption can fail for want of a resource (here address space for the
# whole file, the drop's backend limited to 16 MB more than it has): the drop
# must then fail, not go on as if no adder could enter, since an adder's first
# mapping would adopt the file after it, enter by its slot unseen and commit
# its adds into the dropped object. (A damaged file, which no adder maps
# either, is the case where it goes on.)
check_error "a drop that cannot adopt its object's file fails" "could not map" \
    "DO \$\$ BEGIN EXECUTE format('COPY (SELECT 1) TO PROGRAM %L', format(
       'v=\$(awk ''/VmSize/ {print \$2}'' /proc/%s/status); prlimit --pid %s --as=\$(( (v + 16384) * 1024 ))',
       pg_backend_pid(), pg_backend_pid())); END \$\$; SELECT shared_drop('closed_nomem')"
check "with the address space back, it drops" "SELECT shared_drop('closed_nomem')"

# pgbench: 8 clients over 2,000 keys; each transaction records its attempt
# and inserts its key through the filter; a quarter roll back.
for kind in cbf bloom; do
    if [ $kind = cbf ]; then q "SELECT shared_cbf_create('dedup_$kind', 100000, 1e-6)" >/dev/null
    else q "SELECT shared_bloom_create('dedup_$kind', 100000, 1e-6)" >/dev/null; fi
    q "CREATE TABLE attempts_$kind (k int); CREATE TABLE loaded_$kind (k int)" >/dev/null
    cat >"$WORK/dedup_$kind.sql" <<SQL
\set k random(1, 2000)
\set r random(1, 4)
BEGIN;
INSERT INTO attempts_$kind VALUES (:k);
INSERT INTO loaded_$kind SELECT :k WHERE shared_${kind}_add('dedup_$kind', :k);
\if :r = 1
ROLLBACK;
\else
COMMIT;
\endif
SQL
    run_pgbench -c 8 -j 8 -t 1000 -f "$WORK/dedup_$kind.sql"
    q "SELECT '$kind: ' || count(*) || ' committed attempts over ' || count(DISTINCT k) || ' keys' FROM attempts_$kind"
    check "$kind: no key of a committed attempt lost" \
        "SELECT count(*) = 0 FROM (SELECT DISTINCT k FROM attempts_$kind) a
         WHERE NOT EXISTS (SELECT FROM loaded_$kind l WHERE l.k = a.k)"
    check "$kind: no key loaded twice" "SELECT count(*) = count(DISTINCT k) FROM loaded_$kind"
    check "$kind: nothing loaded without a committed attempt" \
        "SELECT count(*) = 0 FROM loaded_$kind l WHERE NOT EXISTS (SELECT FROM attempts_$kind a WHERE a.k = l.k)"
done
# A drop of the extension drops every object as shared_drop does one: it
# waits for a transaction with pending adds to one of them, whose commit
# then lands before the file goes. (The adder takes no lock the drop of the
# extension's catalog would meet: its entry for the object is cached.)
open_session f
open_session g
send f "SELECT shared_bloom_add('dedup_bloom', 0);"
send f "BEGIN; SELECT shared_bloom_add('dedup_bloom', 100001);"
send f '\echo f-pending'
await_output f f-pending
send g "DROP EXTENSION sketchshare CASCADE;"
send g '\echo g-dropped'
await_lock_wait g
send f "COMMIT;"
send f '\echo f-committed'
await_output f f-committed
await_output g g-dropped
grep -q ERROR "$WORK/f.out" "$WORK/g.out" && fail "the add or the drop of the extension failed: $(cat "$WORK/f.out" "$WORK/g.out")"
close_session f
close_session g
echo "ok: a drop of the extension waited for a transaction's pending adds"
echo "shared_transactional: all checks passed"
