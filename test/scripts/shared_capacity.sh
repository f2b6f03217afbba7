#!/usr/bin/env bash
# Fixed-size shared filters (expansion => 0) under concurrent adders: 4
# pgbench clients add 1,000 distinct keys, half transactionally, half
# immediately, to a counting and a Bloom filter of capacity 600 each. Room is
# reserved atomically, so exactly 600 adds of each object succeed, the other
# 400 are refused with 53400, and the objects count 600 items held. Then a
# backend killed (SIGKILL) while its transaction holds reservations: its adds
# never arrive, and the room stays reserved (the object refuses early, never
# late).
set -euo pipefail
: "${SKETCH_ROOT:?}" "${PGHOST:?}" "${PGPORT:?}"
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
start_test sketchshare_shared_capacity

psql -X -q -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
SELECT shared_cbf_create('cap_cbf', 600, 1e-9, expansion => 0);
SELECT shared_bloom_create('cap_bf', 600, 1e-9, expansion => 0);
CREATE SEQUENCE keys START 0 MINVALUE 0;
CREATE TABLE outcomes (k bigint PRIMARY KEY, cbf text, bf text);
-- 'ok', or the SQLSTATE of a refusal (in a subtransaction, as a caller that
-- catches it would)
CREATE FUNCTION try_add(obj text, k bigint, tx boolean) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    IF obj = 'cap_cbf' THEN
        PERFORM shared_cbf_add(obj, k, tx);
    ELSE
        PERFORM shared_bloom_add(obj, k, tx);
    END IF;
    RETURN 'ok';
EXCEPTION WHEN configuration_limit_exceeded THEN
    RETURN SQLSTATE;
END
$$;
SQL
cat >"$WORK/add.sql" <<'SQL'
INSERT INTO outcomes
SELECT k, try_add('cap_cbf', k, k % 2 = 0), try_add('cap_bf', k, k % 2 = 1) FROM (SELECT nextval('keys') AS k) s;
SQL
run_pgbench -c 4 -j 4 -t 250 -f "$WORK/add.sql"

check "1,000 keys tried" "SELECT count(*) = 1000 FROM outcomes"
check "exactly 600 cbf adds succeeded, 400 refused" \
    "SELECT count(*) FILTER (WHERE cbf = 'ok') = 600 AND count(*) FILTER (WHERE cbf = '53400') = 400 FROM outcomes"
check "exactly 600 bloom adds succeeded, 400 refused" \
    "SELECT count(*) FILTER (WHERE bf = 'ok') = 600 AND count(*) FILTER (WHERE bf = '53400') = 400 FROM outcomes"
check "both hold 600 items" \
    "SELECT bool_and(items_held = 600) FROM shared_objects WHERE name IN ('cap_cbf', 'cap_bf')"
check "the accepted keys are in the filters, the refused ones are not" \
    "SELECT bool_and(shared_cbf_contains('cap_cbf', k) = (cbf = 'ok'))
        AND bool_and(shared_bloom_contains('cap_bf', k) = (bf = 'ok')) FROM outcomes"
# The kill: a transaction reserves room for 5 items, then sleeps; its backend
# is killed once it sleeps (pg_stat_activity shows the wait).
q "SELECT shared_cbf_create('kill_cbf', 10, 1e-9, expansion => 0)" >/dev/null
psql -X -q -c "BEGIN; SELECT shared_cbf_add_many('kill_cbf', ARRAY[1, 2, 3, 4, 5]); SELECT pg_sleep(60)" \
    >"$WORK/killed.out" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 100); do
    [ "$(q "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND query LIKE '%kill_cbf%'")" = 1 ] &&
        break
    sleep 0.1
done
sigkill_backend "pg_sleep(60)" 0
check "the killed transaction's adds never arrived" "SELECT NOT shared_cbf_contains('kill_cbf', 1)"
check "its reservations stay counted" "SELECT items_held = 5 FROM shared_objects WHERE name = 'kill_cbf'"
check "the object takes what is left of its capacity" "SELECT shared_cbf_add_many('kill_cbf', ARRAY[6, 7, 8, 9, 10]) = 5"
check_error "then refuses, early" "is full: its capacity is 10 items" "SELECT shared_cbf_add('kill_cbf', 11)"
echo "shared_capacity: all checks passed"
