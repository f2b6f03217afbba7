#!/usr/bin/env bash
# Object files changed under a running server: each damage is done while a
# backend has the object mapped (a later statement of the same session, after
# a \! in its psql script), and that statement must fail with XX001 naming the
# object, in the same backend, without a server restart: a truncated or
# extended file, a counting filter's counters (m) or hashes (k) and a Bloom
# filter's bits or hashes edited in the header, a reservoir's k; also through
# the prefetching scan, a cursor's next FETCH, a frozen object, the
# whole-object functions, and a writer. Once the file is put back, the same
# backend uses it again.
set -euo pipefail
: "${SKETCH_ROOT:?}" "${PGHOST:?}" "${PGPORT:?}"
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
start_test sketchshare_shared_file_changes
dir=$(object_dir)
started=$(q "SELECT pg_postmaster_start_time()")

q "SELECT shared_cbf_create('c', 1000)" >/dev/null
q "SELECT shared_cbf_add_many('c', ARRAY['a', 'b', 'c'])" >/dev/null
q "SELECT shared_bloom_create('b', 1000, 0.01)" >/dev/null
q "SELECT shared_bloom_add_many('b', ARRAY['a', 'b', 'c'])" >/dev/null
q "SELECT shared_reservoir_create('r', 10, 16)" >/dev/null
q "SELECT shared_reservoir_add_many('r', ARRAY['a', 'b', 'c'])" >/dev/null
# over 1 MiB: a scan of t looking items up in it reads ahead (SketchPrefetch)
q "SELECT shared_cbf_create('big', 400000)" >/dev/null
q "CREATE TABLE t AS SELECT g AS x FROM generate_series(1, 20000) g" >/dev/null
q "SELECT shared_cbf_add_many('big', ARRAY(SELECT x FROM t WHERE x % 2 = 0))" >/dev/null
q "ANALYZE t" >/dev/null
q "EXPLAIN SELECT count(*) FROM t WHERE shared_cbf_contains('big', x)" | grep -q SketchPrefetch ||
    fail "the scan of t does not read ahead"
for o in c b r big; do cp -p "$dir/$o" "$WORK/$o.good"; done
# put_u32 for the shell of psql's \!; put_u8 FILE OFFSET VALUE: one byte;
# rehash FILE: the header's checksum (XXH3-64 of bytes 8..247, at 248)
# rewritten to match its fields, as a deliberate edit would.
cat >"$WORK/edit" <<'EDIT'
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
put_u8() { printf "\\x$(printf %02x "$3")" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }
rehash() {
    local hex i
    hex=$(dd if="$1" bs=1 skip=8 count=240 status=none | xxhsum -H3 | awk '{print $NF}')
    for i in 7 6 5 4 3 2 1 0; do printf "\\x${hex:$((2 * i)):2}"; done |
        dd of="$1" bs=1 seek=248 conv=notrunc status=none
}
"$@"
EDIT
edit="bash $WORK/edit"

# in_one_backend LABEL OBJECT USE DAMAGE [AFTER]: in one session, USE (a query
# returning one row) maps the object and must succeed; the shell command
# DAMAGE changes its file; USE again (and AFTER, if given) must then fail with
# XX001 naming OBJECT (and saying $PATTERN, if set), never answer; the
# session's backend must still be the same and the postmaster must not have
# restarted. Then the file is put back and the same backend must get USE's
# first answer again.
in_one_backend() {
    local label=$1 object=$2 use=$3 damage=$4 after=${5:-} out first errors
    out=$(psql -X -At -v VERBOSITY=verbose 2>&1 <<SQL | sed 's/^psql:<stdin>:[0-9]*: //' || true
SELECT pg_backend_pid() AS pid \gset
\\echo before
$use;
\\! $damage
\\echo damaged
$use;
${after:+$after;}
\\echo same backend :pid
SELECT 'backend ' || pg_backend_pid();
\\! cp "$WORK/$object.good" "$dir/$object"
\\echo restored
$use;
SQL
    )
    first=$(sed -n '/^before$/{n;p}' <<<"$out")
    grep -q "ERROR" <<<"$first" && fail "$label: the first use failed: $out"
    # every use after the damage fails, with XX001 and the object's name
    errors=$(sed -n '/^damaged$/,/^same backend/p' <<<"$out" | grep -v '^damaged$\|^same backend' |
        grep -v '^DETAIL\|^HINT\|^LOCATION\|^CONTEXT' || true)
    [ -n "$errors" ] || fail "$label: nothing came back after the damage: $out"
    if grep -v "^ERROR:  XX001: .*\"$object\".*${PATTERN:-}" <<<"$errors" | grep -q .; then
        fail "$label: after the damage, not (only) XX001 naming \"$object\" ${PATTERN:+and saying $PATTERN}: $out"
    fi
    grep -q "^same backend \([0-9]*\)$" <<<"$out" || fail "$label: the session ended: $out"
    local pid
    pid=$(sed -n 's/^same backend \([0-9]*\)$/\1/p' <<<"$out")
    grep -q "^backend $pid$" <<<"$out" || fail "$label: the backend changed (crashed?): $out"
    [ "$(q "SELECT pg_postmaster_start_time()")" = "$started" ] || fail "$label: the server restarted"
    [ "$(sed -n '/^restored$/{n;p}' <<<"$out")" = "$first" ] ||
        fail "$label: once the file is back, the same backend does not answer as before: $out"
    echo "ok: $label: $(grep -m1 '^ERROR' <<<"$errors")"
}

size_of() { stat -c %s "$dir/$1"; }

# The header's fields (src/core/shared_file.hpp): the kind's geometry starts
# at byte 56. A cbf's: k (u32) at 56, m (u64) at 64. A Bloom filter's: the
# value header, k at byte 59, bits (u64) at 68. A reservoir's: k (u32) at 60.
c_use="SELECT shared_cbf_contains('c', 'absent')"
in_one_backend "cbf truncated to its header (12 KiB)" c "$c_use" "truncate -s 12288 $dir/c" \
    "SELECT shared_cbf_add('c', 'new'); SELECT shared_cbf_count('c'); SELECT shared_cbf_stats('c')"
in_one_backend "cbf truncated to nothing" c "$c_use" "truncate -s 0 $dir/c" \
    "SELECT shared_cbf_snapshot('c'); SELECT shared_sync('c')"
# (past what a scaling object's next sub-filter, unpublished, may add)
in_one_backend "cbf extended" c "$c_use" "truncate -s $(($(size_of c) + 16777216)) $dir/c"
in_one_backend "cbf with m = 2^36 in its header" c "$c_use" \
    "$edit put_u32 $dir/c 64 0; $edit put_u32 $dir/c 68 16"
in_one_backend "cbf with k = 0 in its header" c "$c_use" \
    "$edit put_u32 $dir/c 56 0" \
    "SELECT shared_cbf_count_of('c', 'absent'); SELECT shared_cbf_remove('c', 'a')"

# the same, with the header's checksum rewritten to match: the geometry's
# own validation refuses it
PATTERN="0 hashes" in_one_backend "cbf with k = 0 in its header, checksum rewritten" c "$c_use" \
    "$edit put_u32 $dir/c 56 0; $edit rehash $dir/c"
PATTERN="more than the limit" in_one_backend "cbf with m = 2^40 in its header, checksum rewritten" c "$c_use" \
    "$edit put_u32 $dir/c 64 0; $edit put_u32 $dir/c 68 256; $edit rehash $dir/c"
# the scheme byte (at 60) names the layout: 1 classic, 2 block
PATTERN="unknown hash scheme 3" in_one_backend "cbf with scheme 3 in its header, checksum rewritten" c "$c_use" \
    "$edit put_u8 $dir/c 60 3; $edit rehash $dir/c"
# relabelled block: c's m, a power of two, is a multiple of 128 as well, so
# only the block sizing (the fewest lines that meet its fpr) tells
PATTERN="counting filter of layout block<[0-9]*> has [0-9]* counters, not the fewest lines" in_one_backend \
    "classic cbf relabelled block (scheme 2), checksum rewritten" c "$c_use" \
    "$edit put_u8 $dir/c 60 2; $edit rehash $dir/c"

b_use="SELECT shared_bloom_contains('b', 'absent')"
in_one_backend "bloom truncated to its header" b "$b_use" "truncate -s 12288 $dir/b" \
    "SELECT shared_bloom_add('b', 'new'); SELECT shared_bloom_snapshot('b')"
# 4,294,934,528 bits, the most a Bloom filter may have
in_one_backend "bloom with the most bits in its header" b "$b_use" \
    "$edit put_u32 $dir/b 68 4294934528" \
    "SELECT shared_bloom_stats('b')"
in_one_backend "bloom with k = 0 in its header" b "$b_use" "$edit put_u8 $dir/b 59 0"
PATTERN="bloom K must be between 1 and" in_one_backend "bloom with k = 0 in its header, checksum rewritten" b \
    "$b_use" "$edit put_u8 $dir/b 59 0; $edit rehash $dir/b"

r_use="SELECT count(*) FROM shared_reservoir_sample('r')"
in_one_backend "reservoir with a larger k in its header" r "$r_use" \
    "$edit put_u32 $dir/r 60 1000000" \
    "SELECT shared_reservoir_add('r', 'x'); SELECT shared_reservoir_stats('r')"
in_one_backend "reservoir truncated to its header" r "$r_use" "truncate -s 12288 $dir/r"

# the prefetching scan reads the object before the function does
scan="SELECT count(*) FROM t WHERE shared_cbf_contains('big', x)"
in_one_backend "scan reading ahead, file truncated to nothing" big "$scan" "truncate -s 0 $dir/big"
in_one_backend "scan reading ahead, file truncated to its header" big "$scan" "truncate -s 12288 $dir/big"

# a cursor: each FETCH is a statement of its own, though its call sites and
# scan were set up by the DECLARE
fetch_after_damage() {
    local label=$1 object=$2 query=$3 damage=$4 out
    out=$(psql -X -At -v VERBOSITY=verbose 2>&1 <<SQL | sed 's/^psql:<stdin>:[0-9]*: //' || true
SELECT pg_backend_pid() AS pid \gset
BEGIN;
DECLARE cur CURSOR FOR $query;
FETCH 3 FROM cur;
\! $damage
\echo damaged
FETCH 3 FROM cur;
ROLLBACK;
SELECT 'same backend ' || (pg_backend_pid() = :pid);
\! cp "$WORK/$object.good" "$dir/$object"
SQL
    )
    [ "$(sed -n '/^damaged$/{n;p}' <<<"$out" | grep -c "^ERROR:  XX001: .*\"$object\"")" = 1 ] ||
        fail "$label: the FETCH after the damage did not fail with XX001 naming \"$object\": $out"
    grep -q "^same backend true$" <<<"$out" || fail "$label: the backend did not carry on: $out"
    [ "$(q "SELECT pg_postmaster_start_time()")" = "$started" ] || fail "$label: the server restarted"
    echo "ok: $label: $(grep -m1 '^ERROR' <<<"$out")"
}
fetch_after_damage "a cursor's next FETCH" c "SELECT shared_cbf_contains('c', x::text) FROM t" "truncate -s 12288 $dir/c"
fetch_after_damage "a cursor reading ahead, its next FETCH" big "SELECT shared_cbf_contains('big', x) FROM t" \
    "truncate -s 0 $dir/big"

# a frozen object is read without the lock
q "SELECT shared_freeze('c')" >/dev/null
cp -p "$dir/c" "$WORK/c.good"
in_one_backend "frozen cbf truncated to its header" c "$c_use" "truncate -s 12288 $dir/c"

# a PL/pgSQL expression (evaluated without a query of its own)
in_one_backend "an expression of a DO block" b \
    "DO \$\$ DECLARE v bool; BEGIN v := shared_bloom_contains('b', 'absent'); RAISE NOTICE 'v = %', v; END \$\$" \
    "truncate -s 12288 $dir/b"

check "the objects answer as before" \
    "SELECT shared_cbf_contains('c', 'a') AND NOT shared_cbf_contains('c', 'absent') AND shared_bloom_contains('b', 'b')
     AND (SELECT count(*) = 3 FROM shared_reservoir_sample('r')) AND shared_cbf_contains('big', 2)"
check "every object's file is fine" "SELECT bool_and(status = 'ok') FROM shared_objects"
[ "$(q "SELECT pg_postmaster_start_time()")" = "$started" ] || fail "the server restarted"
echo "ok: the server never restarted"
