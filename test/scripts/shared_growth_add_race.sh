#!/usr/bin/env bash
# Concurrent adds of one item to a growing Bloom object report it new once
# (docs/shared-objects.md: an add is "new" only when no sub-filter holds the
# item; the dedup check of many workers relies on it). A full object
# (capacity 100, 99 items held) gets a batch of 11 items, item 500 first,
# which grows it; sketchshare.growth_pause_for_tests holds the growth (under
# the object's exclusive lock, the file extended) while another session adds
# item 500 alone: that add finds room in the first sub-filter and waits for
# the lock, its sub-filters mapped as they were (one). Once the growth is
# published, the batch adds 500 to the new sub-filter and the lone add, which
# looks only in the sub-filters it maps, adds it to the first: both return
# true and the object counts 500 twice (items_held 111 for 110 items).
# The lone add has to re-read the published sub-filters once it holds the
# lock. Several attempts, as the two sessions race after the lock is let go.
set -euo pipefail
: "${SKETCH_ROOT:?}" "${PGHOST:?}" "${PGPORT:?}"
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
start_test sketchshare_shared_growth_add_race

dir=$(object_dir)
doubles=0
for a in 1 2 3 4 5 6 7 8; do
    q "SELECT shared_bloom_create('r$a', 100, 1e-6)" >/dev/null
    q "SELECT shared_bloom_add_many('r$a', array_agg(g), false) FROM generate_series(1, 99) g" >/dev/null
    size=$(as_owner stat -c %s "$dir/r$a")
    psql -X -q -At -c "SET sketchshare.growth_pause_for_tests = '400ms'" \
        -c "SELECT shared_bloom_add_many('r$a', ARRAY[500, 201, 202, 203, 204, 205, 206, 207, 208, 209, 210], false)" \
        >"$WORK/batch.out" 2>&1 &
    PIDS=($!)
    for _ in $(seq 1 200); do [ "$(as_owner stat -c %s "$dir/r$a")" -gt "$size" ] && break; sleep 0.01; done
    [ "$(as_owner stat -c %s "$dir/r$a")" -gt "$size" ] || fail "attempt $a: the batch did not grow the object"
    psql -X -At -c "SELECT shared_bloom_add('r$a', 500, false)" >"$WORK/one.out" 2>&1 &
    PIDS+=($!)
    wait "${PIDS[@]}" || { cat "$WORK/batch.out" "$WORK/one.out"; fail "attempt $a: an add failed"; }
    PIDS=()
    batch=$(<"$WORK/batch.out") one=$(<"$WORK/one.out")
    held=$(q "SELECT items_held FROM shared_objects WHERE name = 'r$a'")
    echo "attempt $a: the batch's new items $batch, the lone add of 500 new: $one, items held $held (110 items)"
    if [ "$batch" = 11 ] && [ "$one" = t ]; then doubles=$((doubles + 1)); fi
    [ "$held" -le 110 ] || fail "attempt $a: the object counts $held items for 110"
done
[ "$doubles" = 0 ] || fail "item 500 was reported new by both adds in $doubles attempts"
echo "ok: item 500 reported new once in every attempt"
