#!/usr/bin/env bash
# A freeze in the middle of a transactional load loses no committed add and
# lets none in after it: 4 pgbench clients add distinct ids to a shared cbf
# and a shared Bloom filter, two ids a transaction, each add in a block that
# records whether it was taken or refused (the object frozen); another
# session freezes both objects, one after the other, once some adds have
# committed. Every id whose
# add committed is in both frozen objects, their ops count exactly the adds
# that committed, and some adds were refused after the freeze. The freeze
# waits for the transactions with pending adds (by their slots in the
# objects' headers, or the object's lock while a freeze is counted).
set -euo pipefail
: "${SKETCH_ROOT:?}" "${PGHOST:?}" "${PGPORT:?}"
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
start_test sketchshare_shared_freeze_race

q "SELECT shared_cbf_create('fr', 1000000, 0.01), shared_bloom_create('frb', 1000000, 0.01)" >/dev/null
q "CREATE SEQUENCE ids" >/dev/null
q "CREATE TABLE outcomes (id bigint, taken bool)" >/dev/null
q "CREATE FUNCTION try_add(i bigint) RETURNS void LANGUAGE plpgsql AS \$\$
BEGIN
    PERFORM shared_cbf_add('fr', i), shared_bloom_add('frb', i);
    INSERT INTO outcomes VALUES (i, true);
EXCEPTION WHEN object_not_in_prerequisite_state THEN
    INSERT INTO outcomes VALUES (i, false);
END \$\$" >/dev/null
cat >"$WORK/load.sql" <<'SQL'
BEGIN;
SELECT try_add(nextval('ids'));
SELECT try_add(nextval('ids'));
COMMIT;
SQL
"$(pgbench_bin)" -n -c 4 -j 4 -T 4 -f "$WORK/load.sql" >"$WORK/pgbench.log" 2>&1 &
load=$!
PIDS+=($load)
for _ in $(seq 1 100); do
    [ "$(q "SELECT count(*) >= 2000 FROM outcomes")" = t ] && break
    sleep 0.05
done
# each in a transaction of its own: a transaction that froze frb holds its
# adders off to its end, and then waiting for fr's adders, which wait for it
# at frb, would deadlock (as two transactions that lock rows in opposite
# orders), and pgbench would count the load's transactions that lost as failed
q "SELECT shared_freeze('frb')" >/dev/null
q "SELECT shared_freeze('fr')" >/dev/null
wait "$load" || { cat "$WORK/pgbench.log"; fail "pgbench"; }
pgbench_failures "$WORK/pgbench.log"
q "SELECT 'adds taken: ' || count(*) FILTER (WHERE taken) || ', refused: ' || count(*) FILTER (WHERE NOT taken) FROM outcomes"
check "the freeze came in the middle of the load" \
    "SELECT count(*) FILTER (WHERE taken) >= 2000 AND count(*) FILTER (WHERE NOT taken) > 0 FROM outcomes"
check "both objects are frozen" "SELECT bool_and(frozen) FROM shared_objects WHERE name IN ('fr', 'frb')"
check "every committed add is in both objects" \
    "SELECT count(*) = 0 FROM outcomes WHERE taken AND NOT (shared_cbf_contains('fr', id) AND shared_bloom_contains('frb', id))"
check "ops counts exactly the committed adds" \
    "SELECT (shared_cbf_stats('fr')->>'ops')::bigint = n AND (shared_bloom_stats('frb')->>'ops')::bigint = n
     FROM (SELECT count(*) AS n FROM outcomes WHERE taken) c"
check "every id was tried once" "SELECT count(*) = count(DISTINCT id) FROM outcomes"
echo "all freeze race checks passed"
