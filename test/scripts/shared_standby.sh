#!/usr/bin/env bash
# A hot standby made by pg_basebackup: it has the catalog rows (WAL) and the
# object files as the base backup copied them, never updated after (the data
# is not WAL-logged). Reads work there with that data; every change is refused
# (25006: a standby's transactions are read-only), so its copy never drifts; an
# object created after the backup has its row there (with its image) but no
# file, which its first use writes from the image. Promoted (a failover), it
# goes on from its copies; an object's file removed while no session maps it
# is written from the image, which a shared_sync on the old primary made later.
set -euo pipefail
: "${SKETCH_ROOT:?}" "${PGHOST:?}" "${PGPORT:?}"
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
start_test sketchshare_standby
bin=$(server_bin)

q "SELECT shared_cbf_create('seen', 100000), shared_bloom_create('urls', 100000, 0.001)" >/dev/null
q "SELECT shared_cbf_add_many('seen', array_agg(g)), shared_bloom_add_many('urls', array_agg(g))
   FROM generate_series(1, 1000) g" >/dev/null
q "SELECT shared_reservoir_create('picks', 10)" >/dev/null
q "SELECT count(shared_reservoir_add('picks', g::text)) FROM generate_series(1, 100) g" >/dev/null

standby=$WORK/standby
mkdir -p "$standby" && chmod 777 "$standby"
as_owner "$bin/pg_basebackup" -D "$standby/data" -R -X stream -c fast
echo "ok: base backup taken"
stop_standby() { as_owner "$bin/pg_ctl" -D "$standby/data" -m immediate -w stop >/dev/null 2>&1 || true; end_test; }
trap stop_standby EXIT
# Added on the primary after the backup: never on the standby.
q "SELECT shared_cbf_add_many('seen', array_agg(g)), shared_bloom_add_many('urls', array_agg(g))
   FROM generate_series(1001, 2000) g" >/dev/null
# urls's image has them (a shared_sync); the standby's file, the backup's copy, not.
q "SELECT shared_sync('urls')" >/dev/null
q "SELECT shared_cbf_create('later', 10)" >/dev/null

# The backup may have copied lock words while an add held them: process ids of
# the primary's run, which on the standby may name unrelated live processes.
# Plant the id of one in the writer word, a reader slot, every item stripe
# (offsets: src/core/shared_file.hpp) and a reservoir's mutex (12288 + 64:
# src/core/shared_reservoir.hpp); the standby's run clears them when it first
# maps each file, so nothing below waits on that process.
sleep 600 &
PIDS+=($!)
copies="$standby/data/sketchshare/$(q "SELECT oid FROM pg_database WHERE datname = current_database()")"
put_u32 "$copies/seen" 384 $!
put_u32 "$copies/seen" $((4096 + 4 * 17)) $!
for name in seen urls picks; do put_u32 "$copies/$name" 8192 $! 1024; done
put_u32 "$copies/picks" $((12288 + 64)) $!

port=$((PGPORT + 11))
as_owner "$bin/pg_ctl" -D "$standby/data" -l "$standby/log" -w \
    -o "-p $port -k $standby -c listen_addresses='' -c shared_buffers=16MB" start >/dev/null ||
    { cat "$standby/log"; fail "the standby did not start"; }
export PGHOST=$standby PGPORT=$port
for _ in $(seq 1 100); do
    [ "$(q "SELECT pg_is_in_recovery()" 2>/dev/null)" = t ] && break
    sleep 0.2
done
check "the standby is in recovery" "SELECT pg_is_in_recovery()"

for _ in $(seq 1 100); do
    [ "$(q "SELECT count(*) FROM shared_objects WHERE name = 'later'")" = 1 ] && break
    sleep 0.2
done
check "the catalog rows came by WAL, the files by the backup" \
    "SELECT array_agg(name || ':' || (CASE WHEN status LIKE 'missing: written from its image%' THEN 'image' ELSE status END) ORDER BY name)
            = '{later:image,picks:ok,seen:ok,urls:ok}' FROM shared_objects"
check "the object created after the backup is written from its image at first use" "SELECT shared_cbf_count('later') = 0"
check "... and listed as such" "SELECT status = 'ok' FROM shared_objects WHERE name = 'later'"
check "the items added before the backup are there" \
    "SELECT bool_and(shared_cbf_contains('seen', g) AND shared_bloom_contains('urls', g)) FROM generate_series(1, 1000) g"
# at 1000 of 100000 items the cbf's fpr is about 1e-14 (k = 7), the bloom's below 1e-6
check "the items added after it are not" \
    "SELECT count(*) FILTER (WHERE shared_cbf_contains('seen', g) OR shared_bloom_contains('urls', g)) = 0
     FROM generate_series(1001, 2000) g"
check "snapshots (under the exclusive lock) and stats read the copy, its lock words cleared" \
    "SELECT cbf_count(shared_cbf_snapshot('seen')) BETWEEN 950 AND 1050 AND shared_bloom_stats('urls')->>'frozen' = 'false'" 5s
check "the reservoir's sample reads the copy, its mutex freed" \
    "SELECT count(*) = 10 AND shared_reservoir_seen('picks') = 100 FROM shared_reservoir_sample('picks')" 5s
for call in "shared_cbf_add('seen', 5000)" "shared_cbf_add_many('seen', ARRAY[5000])" "shared_cbf_remove('seen', 1)" \
            "shared_cbf_clear('seen')" "shared_bloom_add('urls', 5000)" "shared_bloom_merge('urls', bloom_empty(10, 0.1))" \
            "shared_freeze('seen')" "shared_reservoir_add('picks', 'x')"; do
    out=$(psql -X -At -v ON_ERROR_STOP=1 -c "\\set VERBOSITY verbose" -c "SELECT $call" 2>&1) &&
        fail "$call changed the standby's copy ($out)"
    grep -q "25006" <<<"$out" || fail "$call: expected 25006, got: $out"
    echo "ok: $call refused: $(echo "$out" | head -1)"
done
check "the refused changes left the copy as it was" \
    "SELECT shared_cbf_contains('seen', 1) AND NOT shared_cbf_contains('seen', 5000) AND NOT shared_bloom_contains('urls', 5000)"

# Promoted, the standby changes its copies: immediate adds take the shared
# lock and an item stripe, a remove the exclusive lock, none of them held by
# the planted id; a transactional add commits into the copy.
as_owner "$bin/pg_ctl" -D "$standby/data" -w promote >/dev/null
check "the standby is promoted" "SELECT NOT pg_is_in_recovery()"
check "after promotion adds and a remove run at once" \
    "SELECT shared_cbf_add('seen', 5000, false) AND shared_bloom_add('urls', 5000, false) AND shared_cbf_remove('seen', 5000)
            AND NOT shared_cbf_contains('seen', 5000) AND shared_bloom_contains('urls', 5000)" 5s
check "and a transactional add commits" "SELECT shared_cbf_add('seen', 5001)" 5s
check "into the copy" "SELECT shared_cbf_contains('seen', 5001)" 5s
check "and so does a reservoir's add" \
    "SELECT shared_reservoir_add('picks', 'promoted') IS NOT NULL AND shared_reservoir_seen('picks') = 101" 5s

# A failover: the promoted server goes on from the backup's copies, though the
# old primary's shared_sync stored a later image of urls (used only for a
# missing file). Its file removed while no session maps it, the first use
# writes it from that image (docs/operations.md), without what was added
# since the promotion.
check "after promotion urls is still the backup's copy" "SELECT NOT shared_bloom_contains('urls', 1500)"
as_owner "$bin/pg_ctl" -D "$standby/data" -m fast -w stop >/dev/null
as_owner rm "$copies/urls"
as_owner "$bin/pg_ctl" -D "$standby/data" -l "$standby/log" -w \
    -o "-p $port -k $standby -c listen_addresses='' -c shared_buffers=16MB" start >/dev/null ||
    { cat "$standby/log"; fail "the promoted standby did not start again"; }
check "its file removed, urls is written from the image: the old primary's synced items are there" \
    "SELECT bool_and(shared_bloom_contains('urls', g)) FROM generate_series(1, 2000) g"
check "... and not the add made after the promotion" "SELECT NOT shared_bloom_contains('urls', 5000)"
