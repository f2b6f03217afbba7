#!/usr/bin/env bash
# A call that races another session's create or drop of its object fails
# only saying so: the object does not exist (42704), already exists (42710),
# or was dropped or re-created meanwhile (55006); never with an I/O (58030)
# or corruption (XX001) error about a file that was removed, or that a new
# create of the name has not finished.
# 1. Deterministic: a repeatable-read session whose snapshot still shows an
#    object uses it after another session dropped it; dropped and created it
#    again; dropped it and holds a create of the name open.
# 2. pgbench: 4 clients run steps on 3 names: create (a file of a few MB,
#    so that others meet it while it is being written), drop, add, contains,
#    count (the last three in repeatable-read transactions half of the time,
#    whose snapshots lag behind the drops). Every failure is recorded.
# 3. Catalog invalidations: while another session keeps changing the catalog
#    table's pg_class row (as autovacuum's statistics do), a session creates,
#    reads and drops objects; none of its calls may find its object missing.
set -euo pipefail
: "${SKETCH_ROOT:?}" "${PGHOST:?}" "${PGPORT:?}"
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
start_test sketchshare_shared_lifecycle_race

# stale_use LABEL PATTERN MEANWHILE: create 'x'; a repeatable-read session
# takes its snapshot, then the shell commands MEANWHILE run, then the
# session adds to 'x', which must fail with PATTERN in its message.
stale_use() {
    local out
    q "SELECT shared_cbf_create('x', 1000)" >/dev/null
    out=$(psql -X -At -v ON_ERROR_STOP=1 2>&1 <<SQL
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT count(*) FROM pg_class;
\! $3
SELECT shared_cbf_add('x', 1);
SQL
    ) && fail "$1: no error: $out"
    grep -q "$2" <<<"$out" || fail "$1: expected '$2', got: $out"
    echo "ok: $1: $(grep ERROR <<<"$out")"
}
stale_use "dropped since the snapshot" 'shared object "x" does not exist' \
    "psql -X -q -c \"SELECT shared_drop('x')\""
q "SELECT shared_drop('x', true)" >/dev/null
stale_use "dropped and created again since the snapshot" 'shared object "x" was dropped or re-created meanwhile' \
    "psql -X -q -c \"SELECT shared_drop('x')\" -c \"SELECT shared_cbf_create('x', 2000)\""
check "the new 'x' is the one listed" "SELECT capacity = 2000 AND status = 'ok' FROM shared_objects WHERE name = 'x'"
q "SELECT shared_drop('x')" >/dev/null
# A create of 'x' holds its transaction open once its file is written,
# until $WORK/release exists.
psql -X -q -At >"$WORK/held.log" 2>&1 <<SQL &
\! while [ ! -e "$WORK/dropped" ]; do sleep 0.05; done
BEGIN;
SELECT shared_cbf_create('x', 3000);
\! touch "$WORK/written"; while [ ! -e "$WORK/release" ]; do sleep 0.05; done
COMMIT;
SQL
PIDS+=($!)
stale_use "dropped, and a create of the name not committed yet" 'shared object "x" does not exist' \
    "psql -X -q -c \"SELECT shared_drop('x')\" && touch $WORK/dropped && while [ ! -e $WORK/written ]; do sleep 0.05; done"
touch "$WORK/release"
wait "${PIDS[-1]}" || fail "the held create: $(cat "$WORK/held.log")"
check "the held create committed a working 'x'" \
    "SELECT shared_cbf_add('x', 1) AND capacity = 3000 AND status = 'ok' FROM shared_objects WHERE name = 'x'"
q "SELECT shared_drop('x')" >/dev/null

# A grant, revoke, sync or freeze that waits for a drop of its object (the
# catalog row the drop deletes) and sees it commit fails saying so, 55006:
# not with the foreign key of sketchshare_shared.grants (23503), nor
# returning as if it had granted, revoked or taken the object's image. One
# that sees the drop roll back goes on.
q "DROP ROLE IF EXISTS sketchshare_race_reader" >/dev/null
q "CREATE ROLE sketchshare_race_reader" >/dev/null
# call_during_drop CALL END: a session drops 'g' and holds its transaction;
# CALL (of 'g') runs in another, waits, and the first ENDs.
call_during_drop() {
    q "SELECT shared_cbf_create('g', 100)" >/dev/null
    q "SELECT shared_grant('g', 'sketchshare_race_reader', 'write')" >/dev/null
    rm -f "$WORK/drop_end" "$WORK/drop_held"
    psql -X -q -At >"$WORK/drop.log" 2>&1 <<SQL &
BEGIN;
SELECT shared_drop('g');
\! touch "$WORK/drop_held"; while [ ! -e "$WORK/drop_end" ]; do sleep 0.05; done
$2;
SQL
    local dropper=$!
    await_file "$WORK/drop_held" || fail "the drop: $(cat "$WORK/drop.log")"
    PGAPPNAME=call_during_drop psql -X -At -c "$1" >"$WORK/grant.log" 2>&1 &
    local granter=$!
    for _ in $(seq 1 100); do
        [ "$(q "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'call_during_drop' AND wait_event_type = 'Lock'")" = 1 ] && break
        sleep 0.1
    done
    [ "$(q "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'call_during_drop' AND wait_event_type = 'Lock'")" = 1 ] ||
        fail "$1 did not wait for the drop: $(cat "$WORK/grant.log")"
    touch "$WORK/drop_end"
    wait "$dropper" || fail "the drop: $(cat "$WORK/drop.log")"
    wait "$granter" || true
}
for call in "SELECT shared_grant('g', 'sketchshare_race_reader', 'read')" \
            "SELECT shared_revoke('g', 'sketchshare_race_reader', 'write')" \
            "SELECT shared_sync('g')" "SELECT shared_freeze('g')"; do
    call_during_drop "$call" COMMIT
    grep -q 'shared object "g" was dropped or re-created meanwhile' "$WORK/grant.log" ||
        fail "$call during a drop that committed: $(cat "$WORK/grant.log")"
    echo "ok: $call during a drop that committed: $(grep ERROR "$WORK/grant.log")"
    call_during_drop "$call" ROLLBACK
    grep -q ERROR "$WORK/grant.log" && fail "$call during a drop that rolled back: $(cat "$WORK/grant.log")"
    q "SELECT shared_drop('g')" >/dev/null
    echo "ok: $call during a drop that rolled back went on"
done
check "no grant was left without its object" \
    "SELECT count(*) = 0 FROM sketchshare_shared.grants WHERE name = 'g'"
q "DROP ROLE sketchshare_race_reader" >/dev/null

# 2. pgbench.
q "CREATE TABLE failures (op int, sqlstate text, message text)" >/dev/null
q "CREATE TABLE steps (op int, ok boolean)" >/dev/null
q "CREATE FUNCTION step(name text, op int) RETURNS void LANGUAGE plpgsql AS \$\$
DECLARE
    what int := CASE WHEN op > 5 THEN op - 3 ELSE op END;
BEGIN
    BEGIN
        CASE what
            WHEN 1 THEN PERFORM shared_cbf_create(name, 400000);
            WHEN 2 THEN PERFORM shared_drop(name);
            WHEN 3 THEN PERFORM shared_cbf_add(name, (random() * 1e9)::bigint);
            WHEN 4 THEN PERFORM shared_cbf_contains(name, 1);
            ELSE PERFORM shared_cbf_count(name);
        END CASE;
        INSERT INTO steps VALUES (op, true);
    EXCEPTION WHEN OTHERS THEN
        INSERT INTO steps VALUES (op, false);
        INSERT INTO failures VALUES (op, SQLSTATE, SQLERRM);
    END;
END \$\$" >/dev/null
# op 1..5 in the transaction pgbench makes of each statement; 6..8 (add,
# contains, count) in a repeatable-read transaction whose snapshot comes first.
cat >"$WORK/step.sql" <<'SQL'
\set n random(1, 3)
\set op random(1, 8)
\if :op > 5
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT count(*) FROM pg_class;
SELECT step('r' || :n, :op);
COMMIT;
\else
SELECT step('r' || :n, :op);
\endif
SQL
run_pgbench -c 4 -j 4 -t 1000 -f "$WORK/step.sql"

q "SELECT op, ok, count(*) FROM steps GROUP BY op, ok ORDER BY op, ok"
echo "failures by SQLSTATE:"
q "SELECT sqlstate, op, count(*), min(message) FROM failures GROUP BY 1, 2 ORDER BY 1, 2"
check "every step ran" "SELECT count(*) = 4000 FROM steps"
check "every kind of step succeeded too" "SELECT count(DISTINCT op) = 8 FROM steps WHERE ok"
bad=$(q "SELECT string_agg(DISTINCT op || ': ' || sqlstate || ' ' || message, E'\n') FROM failures WHERE sqlstate NOT IN ('42704', '42710', '55006')")
[ -z "$bad" ] || fail "misleading errors: $bad"
echo "ok: a step that raced a create or drop failed only with 42704, 42710 or 55006"
check "every object left has a working file" "SELECT bool_and(status = 'ok') IS NOT FALSE FROM shared_objects"

# 3. Catalog invalidations. Each GRANT or REVOKE commits a change to the
# catalog table's pg_class row, which every backend takes in at its next lock
# of the table: in the middle of a catalog query, that once made the object
# look missing (about 2 calls in 3 here).
q "CREATE TABLE stop_invalidating ()" >/dev/null
psql -X -q -v ON_ERROR_STOP=1 >"$WORK/invalidator.log" 2>&1 <<'SQL' &
DO $$
BEGIN
    WHILE NOT EXISTS (SELECT FROM stop_invalidating) LOOP
        GRANT SELECT ON sketchshare_shared.objects TO PUBLIC;
        COMMIT;
        REVOKE SELECT ON sketchshare_shared.objects FROM PUBLIC;
        COMMIT;
    END LOOP;
END $$;
SQL
PIDS+=($!)
for i in $(seq 1 100); do
    echo "SELECT shared_reservoir_create('inv$i', 5);"
    echo "SELECT shared_reservoir_count('inv$i');"
    echo "SELECT shared_drop('inv$i');"
done | psql -X -q -At >"$WORK/creates.log" 2>&1
q "INSERT INTO stop_invalidating DEFAULT VALUES" >/dev/null
wait "${PIDS[-1]}" || fail "the invalidating session: $(cat "$WORK/invalidator.log")"
errors=$(grep -c ERROR "$WORK/creates.log" || true)
[ "$errors" -eq 0 ] || fail "$errors calls failed amid catalog invalidations: $(grep -m 3 ERROR "$WORK/creates.log")"
[ "$(grep -c '^t$' "$WORK/creates.log")" -eq 100 ] || fail "not every object was dropped: $(head -5 "$WORK/creates.log")"
echo "ok: 300 calls amid catalog invalidations found their objects"
echo "all lifecycle race checks passed"
