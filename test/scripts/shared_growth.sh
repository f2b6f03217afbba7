#!/usr/bin/env bash
# Growth of scaling shared filters (docs/shared-objects.md, "Capacity and
# fixed-size objects"). Four sessions add disjoint ranges of items (one of
# them transactionally, a batch per transaction) to a Bloom and two counting
# objects (classic and block layouts) sized for a twentieth of them, so that both grow several times while
# the others add and look up: no item is lost (every session finds every
# item, its own as it goes, all of them at the end), a counting filter's
# counts sum over its sub-filters. Then a backend is killed while it grows an
# object, between extending the file and publishing the sub-filter
# (sketchshare.growth_pause_for_tests): after the restart the object reads as
# before, ignores the tail and grows again. A grown object freezes, exports
# and attaches whole. Last, the limits: growth past
# sketchshare.max_shared_object_size is refused with 53400, snapshots and
# merges of a grown object with 0A000.
set -euo pipefail
: "${SKETCH_ROOT:?}" "${PGHOST:?}" "${PGPORT:?}"
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
start_test sketchshare_shared_growth

per=5000   # items per session
common=500 # items 1..common: every session adds them to the counting filter
q "SELECT shared_bloom_create('grow_b', 1000, 1e-6)" >/dev/null
q "SELECT shared_cbf_create('grow_c', 1000, 1e-6)" >/dev/null
q "SELECT shared_cbf_create('grow_k', 1000, 1e-6, 'block<8>')" >/dev/null
q "CREATE TABLE finished (session int)" >/dev/null

# Session s adds items s*per+1 .. (s+1)*per in batches of 250; after each
# batch it looks up everything it added so far. At the end, once all four
# have finished, it looks up every item in its own backend.
for s in 0 1 2 3; do
    tx=false
    [ "$s" -eq 3 ] && tx=true
    start_loader $((s + 1)) "DO \$\$
DECLARE lo bigint := $s * $per + 1; lost bigint;
BEGIN
    PERFORM shared_cbf_add_many('grow_c', array_agg(g), false) FROM generate_series(1, $common) g;
    PERFORM shared_cbf_add_many('grow_k', array_agg(g), $tx) FROM generate_series(1, $common) g;
    FOR b IN 0..($per / 250 - 1) LOOP
        PERFORM shared_bloom_add_many('grow_b', array_agg(g), $tx) FROM generate_series(lo + b * 250, lo + b * 250 + 249) g;
        PERFORM shared_cbf_add_many('grow_c', array_agg(g), $tx) FROM generate_series(lo + b * 250, lo + b * 250 + 249) g;
        PERFORM shared_cbf_add_many('grow_k', array_agg(g), $tx) FROM generate_series(lo + b * 250, lo + b * 250 + 249) g;
        IF $tx THEN COMMIT; END IF;
        SELECT count(*) INTO lost FROM generate_series(lo, lo + b * 250 + 249) g
        WHERE NOT shared_bloom_contains('grow_b', g) OR NOT shared_cbf_contains('grow_c', g)
           OR NOT shared_cbf_contains('grow_k', g);
        IF lost > 0 THEN RAISE EXCEPTION 'session $s lost % items after batch %', lost, b; END IF;
    END LOOP;
    INSERT INTO finished VALUES ($s);
    COMMIT;
    WHILE (SELECT count(*) FROM finished) < 4 LOOP PERFORM pg_sleep(0.05); END LOOP;
    SELECT count(*) INTO lost FROM generate_series(1, 4 * $per) g
    WHERE NOT shared_bloom_contains('grow_b', g) OR NOT shared_cbf_contains('grow_c', g)
       OR NOT shared_cbf_contains('grow_k', g);
    IF lost > 0 THEN RAISE EXCEPTION 'session $s finds % items missing at the end', lost; END IF;
    RAISE NOTICE 'session $s done';
END \$\$"
done
wait "${PIDS[@]}" || { cat "$WORK"/loader*.log; fail "a session failed"; }
PIDS=()
for s in 1 2 3 4; do grep -q "session $((s - 1)) done" "$WORK/loader$s.log" || { cat "$WORK/loader$s.log"; fail "session $s"; }; done
echo "ok: four sessions added while the objects grew, and each found every item"
check "all three grew" "SELECT bool_and(subfilters >= 5) FROM shared_objects WHERE name IN ('grow_b', 'grow_c', 'grow_k')"
check "a new backend finds every item" \
    "SELECT count(*) = 0 FROM generate_series(1, 4 * $per) g WHERE NOT shared_bloom_contains('grow_b', g) OR NOT shared_cbf_contains('grow_c', g)"
# An add of an item that is a false positive when it comes is not new and
# holds no room: at most fpr (1e-6) of the 4 x 5000 adds, 0.02 expected, so
# two or fewer are missing but for a chance of about 1e-6 (Poisson); a
# double count would pass 4 x 5000.
check "the Bloom filter holds each item once" \
    "SELECT items_held BETWEEN 4 * $per - 2 AND 4 * $per FROM shared_objects WHERE name = 'grow_b'"
check "the counting filters' counts sum over their sub-filters" \
    "SELECT count(*) = 0 FROM generate_series(1, $common) g WHERE shared_cbf_count_of('grow_c', g) <> 5 OR shared_cbf_count_of('grow_k', g) <> 5"
# (a false positive in another sub-filter adds to a count: 0.02 expected at 1e-6)
check "... and are 1 for the others" \
    "SELECT count(*) FILTER (WHERE c < 1) = 0 AND count(*) FILTER (WHERE c > 1) <= 2
     FROM (SELECT shared_cbf_count_of('grow_k', g) AS c FROM generate_series($common + 1, 4 * $per) g) s"
check "the counting filters hold every add" \
    "SELECT bool_and(items_held = 4 * ($per + $common)) FROM shared_objects WHERE name IN ('grow_c', 'grow_k')"
check "the blocked one's sub-filters keep its layout" \
    "SELECT layout = 'block<8>' AND shared_cbf_stats(name)->>'layout' = 'block<8>' FROM shared_objects WHERE name = 'grow_k'"
check "a remove takes from one sub-filter" \
    "SELECT shared_cbf_remove('grow_c', 7) AND shared_cbf_count_of('grow_c', 7) = 4"
check "the whole stays within its fpr" \
    "SELECT (shared_bloom_stats('grow_b')->>'estimated_fpr')::float8 < 1e-6 AND (shared_cbf_stats('grow_c')->>'estimated_fpr')::float8 < 1e-6"
# 100000 items never added, at most 1e-6 each in each object: 0.2 false
# positives expected (which sub-filter holds an item depends on the sessions'
# timing); more than 3 has a probability below 1e-4.
check "at most 3 false positives among 100000 items never added" \
    "SELECT count(*) <= 3 FROM generate_series(1000001, 1100000) g WHERE shared_bloom_contains('grow_b', g) OR shared_cbf_contains('grow_c', g)"

# A grown object freezes, exports and attaches with every sub-filter.
check "a frozen grown blocked counting object exports and attaches" \
    "SELECT shared_freeze('grow_k') IS NOT NULL AND shared_export('grow_k', '$WORK/grow_k.copy') IS NOT NULL AND shared_attach('grow_k_copy', '$WORK/grow_k.copy') IS NOT NULL"
check "... with its layout, counts and every item" \
    "SELECT (SELECT layout = 'block<8>' AND subfilters >= 5 FROM shared_objects WHERE name = 'grow_k_copy') AND (SELECT count(*) = 0 FROM generate_series(1, 4 * $per) g WHERE NOT shared_cbf_contains('grow_k_copy', g) OR shared_cbf_count_of('grow_k_copy', g) <> shared_cbf_count_of('grow_k', g))"
check "a frozen grown object exports and attaches" \
    "SELECT shared_freeze('grow_b') IS NOT NULL AND shared_export('grow_b', '$WORK/grow_b.copy') IS NOT NULL AND shared_attach('grow_b_copy', '$WORK/grow_b.copy') IS NOT NULL"
check "... with its sub-filters and every item" \
    "SELECT (SELECT subfilters >= 5 AND frozen FROM shared_objects WHERE name = 'grow_b_copy') AND (SELECT count(*) = 0 FROM generate_series(1, 4 * $per) g WHERE NOT shared_bloom_contains('grow_b_copy', g))"

# The crash: the growing backend is killed while it holds the extended,
# unpublished file.
q "SELECT shared_bloom_create('crash_grow', 100, 1e-6)" >/dev/null
q "SELECT shared_bloom_add_many('crash_grow', array_agg(g), false) FROM generate_series(1, 100) g" >/dev/null
file="$(object_dir)/crash_grow"
size=$(as_owner stat -c %s "$file")
start_loader 1 "SET sketchshare.growth_pause_for_tests = '60s'; SELECT shared_bloom_add('crash_grow', 101, false)"
for _ in $(seq 1 100); do [ "$(as_owner stat -c %s "$file")" -gt "$size" ] && break; sleep 0.1; done
[ "$(as_owner stat -c %s "$file")" -gt "$size" ] || fail "the growth did not extend the file"
sigkill_backend growth_pause_for_tests 0
check "after the crash the object reads, the tail unpublished" \
    "SELECT status = 'ok' AND subfilters = 1 AND bytes = $size FROM shared_objects WHERE name = 'crash_grow'"
check "its items are there" "SELECT count(*) = 100 FROM generate_series(1, 100) g WHERE shared_bloom_contains('crash_grow', g)"
check "and it grows again" \
    "SELECT shared_bloom_add_many('crash_grow', array_agg(g), false) = 900 FROM generate_series(101, 1000) g"
check "over the tail" \
    "SELECT subfilters = 4 AND items_held = 1000 FROM shared_objects WHERE name = 'crash_grow'"
check "every item found" "SELECT count(*) = 1000 FROM generate_series(1, 1000) g WHERE shared_bloom_contains('crash_grow', g)"
[ "$(as_owner stat -c %s "$file")" -eq "$(q "SELECT bytes FROM shared_objects WHERE name = 'crash_grow'")" ] ||
    fail "the file has more than its sub-filters"

# The limits.
limit="$(( $(q "SELECT bytes FROM shared_objects WHERE name = 'crash_grow'") / 1024 + 1 ))kB"  # no room for a 5th
out=$(psql -X -At -v VERBOSITY=verbose -c "SET sketchshare.max_shared_object_size = '$limit'" \
    -c "SELECT shared_bloom_add_many('crash_grow', array_agg(g), false) FROM generate_series(1001, 3000) g" 2>&1) &&
    fail "growth past max_shared_object_size: no error ($out)"
grep -q 'ERROR:  53400: shared object "crash_grow" cannot grow to 5 sub-filters.*over sketchshare.max_shared_object_size' \
    <<<"$out" || fail "growth past max_shared_object_size: $out"
echo "ok: growth past max_shared_object_size: $(grep ERROR <<<"$out")"
check "the refused add changed nothing" "SELECT subfilters = 4 AND items_held = 1000 FROM shared_objects WHERE name = 'crash_grow'"
check_error "a snapshot of a grown Bloom filter" "has grown to 4 sub-filters" "SELECT shared_bloom_snapshot('crash_grow')"
check_error "a merge into it" "cannot merge a bloom filter into shared object \"crash_grow\": it has grown to 4 sub-filters" \
    "SELECT shared_bloom_merge('crash_grow', bloom_empty(100, 0.01))"
check_error "a snapshot of a grown counting filter" "has grown to" "SELECT shared_cbf_snapshot('grow_c')"
check_error "a merge into it" "cannot merge a cbf into shared object \"grow_c\": it has grown to" \
    "SELECT shared_cbf_merge('grow_c', cbf_empty(1000, 1e-6))"
check_error "a bad growth pause" "is outside the valid range" \
    "SELECT shared_bloom_contains('crash_grow', 1); SET sketchshare.growth_pause_for_tests = -1"  # (the library loaded)
check "clear empties every sub-filter and keeps them" \
    "SELECT shared_bloom_clear('crash_grow') IS NOT NULL AND NOT shared_bloom_contains('crash_grow', 900) AND (SELECT subfilters = 4 AND items_held = 0 FROM shared_objects WHERE name = 'crash_grow')"
echo "all growth checks passed"
