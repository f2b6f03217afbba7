#!/usr/bin/env bash
# SIGKILL of a backend in the middle of loading shared reservoirs (it holds
# the exclusive lock most of the time, so it dies inside an add). After the
# postmaster's restart both reservoirs (uniform and weighted) attach, are
# consistent (count = min(seen, k), no torn or stale item: every item carries
# the md5 of its own number) and accept writes.
set -euo pipefail
: "${SKETCH_ROOT:?}" "${PGHOST:?}" "${PGPORT:?}"
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
start_test sketchshare_sres_crash

K=5000
q "SELECT shared_reservoir_create('crash', $K, 256)" >/dev/null
q "SELECT shared_reservoir_create('crash_w', $K, 256, weighted => true)" >/dev/null
# An item: its number, the md5 of the number, padding (242 bytes in all).
ITEM="lpad(g::text, 8, '0') || ':' || md5(g::text) || ':' || repeat('p', 200)"

# Loader 1: single adds, a NOTICE after each batch of 100.
start_loader 1 "DO \$\$ BEGIN FOR b IN 0..99999 LOOP
    PERFORM shared_reservoir_add('crash', $ITEM) FROM generate_series(b * 100, b * 100 + 99) g;
    PERFORM shared_reservoir_add('crash_w', $ITEM, 1 + g % 10) FROM generate_series(b * 100, b * 100 + 99) g;
    RAISE NOTICE 'done %', b;
END LOOP; END \$\$"
# Loader 2: batches of 20000 under one lock each, into both reservoirs.
start_loader 2 "DO \$\$ BEGIN FOR b IN 1..100000 LOOP
    PERFORM shared_reservoir_add_many('crash', array_agg($ITEM)),
            shared_reservoir_add_many('crash_w', array_agg($ITEM), array_agg(1.0 + g % 10))
    FROM generate_series(50000000 + (b % 50) * 20000, 50000000 + (b % 50) * 20000 + 19999) g;
END LOOP; END \$\$"

# Let both run, then SIGKILL the add_many backend (it dies inside an add).
await_batch 30 15
echo "seen before the crash: $(q "SELECT shared_reservoir_seen('crash')")"
sigkill_backend shared_reservoir_add_many 0.5
last=$(last_batch)
echo "loader 1 completed batches 0..$last before the crash"

for r in crash crash_w; do
    check "$r: attaches and validates" "SELECT status = 'ok' FROM shared_objects WHERE name = '$r'"
    q "SELECT '$r: ' || shared_reservoir_stats('$r')::text"
    check "$r: seen covers every add that returned" "SELECT shared_reservoir_seen('$r') >= ($last + 1) * 100"
    check "$r: count = min(seen, k)" \
        "SELECT shared_reservoir_count('$r') = least(shared_reservoir_seen('$r'), $K)"
    check "$r: the sample has count items, none torn, none twice" \
        "SELECT count(*) = shared_reservoir_count('$r') AND count(DISTINCT s) = count(*)
                AND bool_and(octet_length(s) = 242 AND split_part(s, ':', 2) = md5(split_part(s, ':', 1)::int::text)
                             AND split_part(s, ':', 3) = repeat('p', 200))
         FROM shared_reservoir_sample('$r') s"
done
check "a writer gets the lock within a second and adds go on" \
    "SELECT shared_reservoir_add('crash', 'after the crash') IS NOT NULL
            AND shared_reservoir_add('crash_w', 'after the crash', 1e290) AND shared_reservoir_add_many('crash_w', ARRAY['a'], ARRAY[1]) >= 0" 1s
check "crash_w: the heavy item after the crash is in the sample" \
    "SELECT count(*) = 1 FROM shared_reservoir_sample('crash_w') s WHERE s = 'after the crash'"
for r in crash crash_w; do
    check "$r: still consistent after more writes" \
        "SELECT shared_reservoir_count('$r') = least(shared_reservoir_seen('$r'), $K)
                AND (SELECT count(*) FROM shared_reservoir_sample('$r')) = shared_reservoir_count('$r')"
done
for r in crash crash_w; do q "SELECT '$r after more writes: ' || (shared_reservoir_stats('$r') - 'bytes' - 'mmap_size')::text"; done
check "clear works after the crash" \
    "SELECT shared_reservoir_clear('crash') IS NOT NULL AND shared_reservoir_seen('crash') = 0"

# The mutex word lives at payload offset 64 (file offset 12288 + 64, asserted
# in src/core/shared_reservoir.hpp). A live process (a sleep) holding it:
# statement_timeout ends the wait; once it is gone its claim is taken over.
file="$(object_dir)/crash"
[ -f "$file" ] || fail "no file at $file"
sleep 60 &
holder=$!
PIDS+=($holder)
put_u32 "$file" $((12288 + 64)) "$holder"
check_error "statement_timeout ends a wait for the reservoir's mutex" "statement timeout" \
    "SELECT shared_reservoir_add('crash', 'blocked')" 300ms
kill "$holder"; wait "$holder" 2>/dev/null || true
check "a dead holder's mutex is taken over within a second" \
    "SELECT shared_reservoir_add('crash', 'unblocked') IS NOT NULL AND shared_reservoir_count('crash') > 0" 1s
echo "all shared reservoir crash checks passed"
