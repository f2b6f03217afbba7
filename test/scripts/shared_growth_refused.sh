#!/usr/bin/env bash
# An add refused at growth leaves the object as it was (docs/shared-objects.md:
# "past either, the add is refused with 53400 ... and the object stays as it
# was"), also when the add needs several sub-filters and the limit allows
# some of them: a Bloom object of capacity 100 (expansion 2) is full; a batch
# of 1400 more items needs sub-filters 2..4 (200 + 400 + 800 items), and
# sketchshare.max_shared_object_size allows the 2nd and 3rd but not the 4th.
# Today the add grows the object to 3 sub-filters, then is refused.
set -euo pipefail
: "${SKETCH_ROOT:?}" "${PGHOST:?}" "${PGPORT:?}"
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
start_test sketchshare_shared_growth_refused

q "SELECT shared_bloom_create('probe', 100, 1e-6)" >/dev/null
q "SELECT shared_bloom_add_many('probe', array_agg(g), false) FROM generate_series(1, 700) g" >/dev/null
three=$(q "SELECT bytes FROM shared_objects WHERE name = 'probe' AND subfilters = 3")
[ -n "$three" ] || fail "the probe did not grow to 3 sub-filters"
q "SELECT shared_drop('probe')" >/dev/null

q "SELECT shared_bloom_create('full', 100, 1e-6)" >/dev/null
q "SELECT shared_bloom_add_many('full', array_agg(g), false) FROM generate_series(1, 100) g" >/dev/null
limit="$(( three / 1024 + 1 ))kB"  # room for 3 sub-filters, not 4
out=$(psql -X -At -c "SET sketchshare.max_shared_object_size = '$limit'" \
    -c "SELECT shared_bloom_add_many('full', array_agg(g), false) FROM generate_series(101, 1500) g" 2>&1) &&
    fail "an add past max_shared_object_size: no error ($out)"
grep -q 'cannot grow to 4 sub-filters' <<<"$out" || fail "an add past max_shared_object_size: $out"
echo "ok: refused: $(grep ERROR <<<"$out")"
echo "after the refusal: $(q "SELECT format('%s sub-filters, %s items held, %s bytes', subfilters, items_held, bytes) FROM shared_objects WHERE name = 'full'")"
check "the refused add left the object as it was (1 sub-filter, 100 items)" \
    "SELECT subfilters = 1 AND items_held = 100 FROM shared_objects WHERE name = 'full'"
echo "all refusal checks passed"
