#!/usr/bin/env bash
# A remove from a grown counting object takes no other item's counters.
# Items 1..1000 go into the first sub-filter of a scaling counting filter
# (capacity 1000, expansion 2), items 1001..7000 into the two sub-filters
# its growth adds; then items 1..1000 are removed, each once, as added. An
# add of an item a sub-filter has goes into the oldest that has it, where a
# remove takes it from; a remove from the newest that has it (an item of the
# first sub-filter being a false positive of a newer one) took other items'
# counters there, and those were no longer found. The same items in a
# fixed-size object of the whole capacity lose nothing either.
set -euo pipefail
: "${SKETCH_ROOT:?}" "${PGHOST:?}" "${PGPORT:?}"
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
start_test sketchshare_shared_growth_remove

for o in "grown, 1000, 0.1" "fixed, 7000, 0.1, expansion => 0"; do
    q "SELECT shared_cbf_create('${o%%,*}', ${o#*, })" >/dev/null
    q "SELECT shared_cbf_add_many('${o%%,*}', array_agg(g), false) FROM generate_series(1, 1000) g" >/dev/null
    q "SELECT shared_cbf_add_many('${o%%,*}', array_agg(g), false) FROM generate_series(1001, 7000) g" >/dev/null
done
check "the scaling object grew to three sub-filters, the fixed one did not" \
    "SELECT array_agg(subfilters ORDER BY name) = '{1,3}' FROM shared_objects WHERE name IN ('grown', 'fixed')"
check "each removes all of items 1..1000" \
    "SELECT count(*) FILTER (WHERE shared_cbf_remove('grown', g)) = 1000 AND count(*) FILTER (WHERE shared_cbf_remove('fixed', g)) = 1000 FROM generate_series(1, 1000) g"
check "the fixed-size object still finds items 1001..7000" \
    "SELECT count(*) = 0 FROM generate_series(1001, 7000) g WHERE NOT shared_cbf_contains('fixed', g)"
lost=$(q "SELECT count(*) FROM generate_series(1001, 7000) g WHERE NOT shared_cbf_contains('grown', g)")
kept=$(q "SELECT count(*) FROM generate_series(1, 1000) g WHERE shared_cbf_count_of('grown', g) > 0")
echo "grown object: $lost of items 1001..7000 no longer found; $kept of the removed items 1..1000 still counted"
[ "$lost" = 0 ] || fail "removing items that were added lost $lost other items of the grown object"
echo "ok: removes from the grown object lost no other item"
