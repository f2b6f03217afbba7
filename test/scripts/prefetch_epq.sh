#!/usr/bin/env bash
# The prefetching scan under a concurrent writer: an UPDATE (and a SELECT ...
# FOR UPDATE) that waits for rows another session has changed rechecks their
# new versions (EvalPlanQual) through the node as through a Seq Scan, so the
# same rows come out with sketchshare.prefetch on and off.
#
# The filter holds x = 5, 700 and 100900. The other session moves row 5 out
# of it (x = 100005), rewrites row 700 (x stays), moves row 900 into it
# (x = 100900) and commits once the statement waits for it. The statement saw
# rows 5 and 700 match; rechecked, only 700 still does; 900 did not match the
# version it read. So: 700, in both settings.
#
# Then serializable isolation: two transactions each read the table through
# the node and write a row the other read (write skew); the node takes the
# relation's predicate lock as a Seq Scan does, so the second to commit fails
# with 40001, in both settings. The two sessions are dblink connections driven
# step by step from one session, so the order is exact.
set -euo pipefail
: "${SKETCH_ROOT:?}" "${PGHOST:?}" "${PGPORT:?}"
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
start_test sketchshare_prefetch_epq

FILTER="cbf_add(cbf_add(cbf_add(cbf_empty(100), 5::bigint), 700::bigint), 100900::bigint)"

# round SETTING KIND: KIND is update or lock; prints the ids the statement returned.
round() {
    local setting=$1 kind=$2 t="epq_$1_$2" stmt ids
    q "CREATE TABLE $t AS SELECT i AS id, i::bigint AS x, false AS hit FROM generate_series(1, 1000) i" >/dev/null
    if [ "$kind" = update ]; then
        stmt="UPDATE $t SET hit = true WHERE cbf_contains($FILTER, x) RETURNING id"
    else
        stmt="SELECT id FROM $t WHERE cbf_contains($FILTER, x) FOR UPDATE"
    fi
    local plan
    plan=$(PGOPTIONS="-c sketchshare.prefetch=$setting" q "EXPLAIN (COSTS OFF) $stmt")
    if [ "$setting" = on ]; then
        grep -q "Custom Scan (SketchPrefetch) on $t" <<<"$plan" || fail "$kind: no SketchPrefetch node in: $plan"
    else
        grep -q "Seq Scan on $t" <<<"$plan" || fail "$kind: no Seq Scan in: $plan"
    fi
    psql -X -q -v ON_ERROR_STOP=1 >"$WORK/other_$t.log" 2>&1 <<SQL &
SET statement_timeout = '30s';
BEGIN;
UPDATE $t SET x = x + 100000 WHERE id IN (5, 900);
UPDATE $t SET hit = false WHERE id = 700;
DO \$\$ BEGIN  -- wait_for_the_statement
    WHILE NOT EXISTS (SELECT 1 FROM pg_locks WHERE NOT granted AND locktype = 'transactionid') LOOP
        PERFORM pg_sleep(0.02);
    END LOOP;
END \$\$;
COMMIT;
SQL
    PIDS+=($!)
    for _ in $(seq 1 500); do
        [ "$(q "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%wait_for_the_statement%' AND state = 'active' AND pid <> pg_backend_pid()")" = 1 ] && break
        sleep 0.02
    done
    ids=$(PGOPTIONS="-c sketchshare.prefetch=$setting -c statement_timeout=30s" psql -X -At -v ON_ERROR_STOP=1 -c "$stmt" | grep -E '^[0-9]+$' | sort -n | tr '\n' ' ')
    wait "${PIDS[-1]}" || { cat "$WORK/other_$t.log"; fail "the other session failed"; }
    echo "$ids"
}

for kind in update lock; do
    on=$(round on "$kind")
    off=$(round off "$kind")
    echo "$kind: prefetch on -> [$on], off -> [$off]"
    [ "$on" = "$off" ] || fail "$kind: the node changed the rows"
    [ "$on" = "700 " ] || fail "$kind: expected row 700 only"
    echo "ok: $kind rechecks the same rows"
done

q "CREATE EXTENSION dblink" >/dev/null
q "CREATE TABLE skew AS SELECT i AS id, i::bigint AS x, 0 AS mark FROM generate_series(1, 1000) i" >/dev/null
conn="dbname=$DB host=$PGHOST port=$PGPORT user=$(q "SELECT current_user")"
for setting in on off; do
    result=$(q "
DO \$\$
DECLARE
    read_sql text := 'SELECT sum(mark) FROM skew WHERE cbf_contains($FILTER, x)';
    plan text := '';
    line text;
BEGIN
    PERFORM dblink_connect('a', '$conn'), dblink_connect('b', '$conn');
    PERFORM dblink_exec(c, 'SET sketchshare.prefetch = $setting') FROM unnest(ARRAY['a', 'b']) c;
    FOR line IN SELECT * FROM dblink('a', 'EXPLAIN (COSTS OFF) ' || read_sql) AS r(l text) LOOP
        plan := plan || line;
    END LOOP;
    PERFORM dblink_exec(c, 'BEGIN ISOLATION LEVEL SERIALIZABLE') FROM unnest(ARRAY['a', 'b']) c;
    PERFORM * FROM dblink('a', read_sql) AS r(s bigint);
    PERFORM * FROM dblink('b', read_sql) AS r(s bigint);
    PERFORM dblink_exec('a', 'UPDATE skew SET mark = 1 WHERE id = 5');
    PERFORM dblink_exec('b', 'UPDATE skew SET mark = 1 WHERE id = 700');
    PERFORM dblink_exec('a', 'COMMIT');
    BEGIN
        PERFORM dblink_exec('b', 'COMMIT');
        RAISE NOTICE 'result: both committed; node: %', plan LIKE '%SketchPrefetch%';
    EXCEPTION WHEN serialization_failure THEN
        RAISE NOTICE 'result: second refused; node: %', plan LIKE '%SketchPrefetch%';
    END;
    PERFORM dblink_disconnect('a'), dblink_disconnect('b');
    UPDATE skew SET mark = 0;
END \$\$" 2>&1)
    echo "$setting: $result"
    grep -q "result: second refused" <<<"$result" || fail "$setting: the write skew was not refused"
    expected_node=$([ "$setting" = on ] && echo t || echo f)
    grep -q "node: $expected_node" <<<"$result" || fail "$setting: expected the node in the plan: $expected_node"
    echo "ok: serializable, prefetch $setting: the second commit of the write skew is refused (40001)"
done
