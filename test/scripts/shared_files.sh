#!/usr/bin/env bash
# Object files on disk: damaged (truncated, extended, wrong magic, wrong
# version, damaged header) and symlinked files give clear errors and are left
# untouched; interrupted creates; orphans; export/attach; mode 0600; no
# mapping or descriptor leaks over many create/drop cycles; a role without a
# grant is refused.
set -euo pipefail
: "${SKETCH_ROOT:?}" "${PGHOST:?}" "${PGPORT:?}"
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
start_test sketchshare_shared_files "DROP ROLE IF EXISTS sketchshare_files_nobody"
dir=$(object_dir)
dboid=$(basename "$dir")

q "SELECT shared_cbf_create('victim', 1000)" >/dev/null
q "SELECT shared_cbf_add_many('victim', ARRAY['a', 'b', 'c'])" >/dev/null
file="$dir/victim"
[ "$(stat -c %a "$file")" = 600 ] || fail "mode is $(stat -c %a "$file"), not 600"
[ "$(stat -c %a "$dir")" = 700 ] || fail "folder mode is $(stat -c %a "$dir"), not 700"
echo "ok: file mode 0600, folder 0700"
cp -p "$file" "$WORK/good"

# expect_error LABEL PATTERN: a fresh backend's use of 'victim' fails with
# PATTERN in the message, and the file is byte-for-byte what it was.
expect_error() {
    local before after out
    before=$(sha256sum <"$file" 2>/dev/null || readlink "$file")
    out=$(psql -X -At -c "SELECT shared_cbf_contains('victim', 'a')" 2>&1 || true)
    grep -q "$2" <<<"$out" || fail "$1: expected '$2', got: $out"
    after=$(sha256sum <"$file" 2>/dev/null || readlink "$file")
    [ "$before" = "$after" ] || fail "$1: the file was modified"
    status=$(q "SELECT status FROM shared_objects WHERE name = 'victim'")
    grep -q "$2" <<<"$status" || fail "$1: shared_objects.status says: $status"
    echo "ok: $1: $(echo "$out" | head -1)"
}
restore() { cp -p "$WORK/good" "$file"; }

size=$(stat -c %s "$file")
as_owner truncate -s $((size - 100)) "$file"; expect_error "truncated" "is truncated"; restore
as_owner truncate -s 100 "$file"; expect_error "truncated to 100 bytes" "truncated"; restore
# (past what a scaling object's next sub-filter, unpublished, may add)
as_owner truncate -s $((size + 16777216)) "$file"; expect_error "extended" "is extended"; restore
printf 'XXXXXXXX' | dd of="$file" bs=1 seek=0 conv=notrunc status=none; expect_error "wrong magic" "wrong magic"; restore
printf '\x02' | dd of="$file" bs=1 seek=8 conv=notrunc status=none; expect_error "wrong version" "format version 2"; restore
printf '\xff' | dd of="$file" bs=1 seek=100 conv=notrunc status=none; expect_error "damaged header" "checksum"; restore
# the magic read on a machine of the other byte order
python3 - "$file" <<'PY'
import sys
with open(sys.argv[1], "r+b") as f:
    magic = f.read(8)
    f.seek(0)
    f.write(magic[::-1])
PY
expect_error "other byte order" "other byte order"; restore
printf '\0\0\0\0\0\0\0\0' | dd of="$file" bs=1 seek=0 conv=notrunc status=none
expect_error "header without magic" "interrupted create"; restore
# a symlink planted at the path, even to a valid object file
as_owner cp "$WORK/good" "$WORK/target"
rm "$file"; ln -s "$WORK/target" "$file"
expect_error "symlink" "symbolic link"
rm "$file"; restore
check "restored file works again" "SELECT shared_cbf_contains('victim', 'a') AND NOT shared_cbf_contains('victim', 'zz')"

# Interrupted creates. Bytes of a capacity-1000 cbf file:
bytes=$(q "SELECT bytes FROM shared_objects WHERE name = 'victim'")
as_owner head -c "$bytes" /dev/zero >"$WORK/zero"
as_owner cp "$WORK/zero" "$dir/zeroed"
check "a full-size all-zero file is re-initialised" \
    "SELECT shared_cbf_create('zeroed', 1000) IS NOT NULL AND NOT shared_cbf_contains('zeroed', 'a')"
# no process holds these files (their creators are gone): replaced whatever
# their size and content (shared_interrupted_create.sh has one in progress)
as_owner head -c 100 /dev/zero >"$dir/partial"
printf '\x01\0\0\0\x02' | dd of="$dir/partial" bs=1 seek=8 conv=notrunc status=none
check "a short file with a partly written header is replaced" "SELECT shared_cbf_create('partial', 1000) IS NOT NULL"
check "...by a working object" "SELECT shared_cbf_add('partial', 1) AND status = 'ok' FROM shared_objects WHERE name = 'partial'"
# An orphan: a complete file no committed object names (a crash between
# creating the file and committing) is replaced.
as_owner cp "$WORK/good" "$dir/orphan"
check "an orphan file is replaced" "SELECT shared_cbf_create('orphan', 10) IS NOT NULL AND NOT shared_cbf_contains('orphan', 'a')"
check "...with the new geometry" "SELECT capacity = 10 FROM shared_objects WHERE name = 'orphan'"
# a foreign file at the path is never replaced
echo "not an object" | as_owner tee "$dir/foreign" >/dev/null
check_error "a foreign file is left alone" "not a sketchshare object file" "SELECT shared_cbf_create('foreign', 10)"
[ "$(cat "$dir/foreign")" = "not an object" ] || fail "foreign file modified"
# a missing file is written again from the object's image (docs/operations.md,
# "Backups and copies"); without an image it stays missing
q "SELECT shared_cbf_add('orphan', 'kept')" >/dev/null
q "SELECT shared_sync('orphan')" >/dev/null
as_owner mv "$dir/orphan" "$WORK/orphan-moved"
check "a missing file is written from the object's image" "SELECT shared_cbf_contains('orphan', 'kept')"
[ -f "$dir/orphan" ] || fail "the missing file was not written"
q "UPDATE sketchshare_shared.objects SET image = NULL WHERE name = 'orphan'" >/dev/null
as_owner rm "$dir/orphan"
check_error "a missing file with no image" "is missing" "SELECT shared_cbf_count('orphan')"
check "an object whose file is missing can still be dropped" "SELECT shared_drop('orphan')"

# Export and attach (frozen, read-only copies).
check_error "export of an unfrozen object" "is not frozen" "SELECT shared_export('victim', '$WORK/export.cbf')"
q "SELECT shared_freeze('victim')" >/dev/null
q "SELECT shared_export('victim', '$WORK/export.cbf')" >/dev/null
[ "$(stat -c %a "$WORK/export.cbf")" = 600 ] || fail "export mode"
check_error "export over an existing file" "already exists" "SELECT shared_export('victim', '$WORK/export.cbf')"
check "export then attach" "SELECT shared_attach('copied', '$WORK/export.cbf') IS NOT NULL"
check "the copy answers like the original" \
    "SELECT shared_cbf_contains('copied', 'b') AND NOT shared_cbf_contains('copied', 'zz') AND shared_cbf_count('copied') = shared_cbf_count('victim')"
check "the copy is read-only and frozen" \
    "SELECT readonly AND frozen FROM shared_objects WHERE name = 'copied'"
check_error "an attached copy refuses changes" "is frozen" "SELECT shared_cbf_add('copied', 'x')"
check "snapshots of both are equal" "SELECT shared_cbf_snapshot('copied') = shared_cbf_snapshot('victim')"
# attach refuses an unfrozen file, a symlink and garbage
q "SELECT shared_cbf_create('live', 100)" >/dev/null
cp "$dir/live" "$WORK/live.cbf"; chmod 644 "$WORK/live.cbf"
check_error "attach of an unfrozen file" "not frozen" "SELECT shared_attach('live2', '$WORK/live.cbf')"
ln -s "$WORK/export.cbf" "$WORK/link.cbf"
check_error "attach through a symlink" "symbolic link" "SELECT shared_attach('viaslink', '$WORK/link.cbf')"
echo "garbage" >"$WORK/garbage.cbf"; chmod 644 "$WORK/garbage.cbf"
check_error "attach of garbage" "truncated" "SELECT shared_attach('garbage', '$WORK/garbage.cbf')"
# The header's item class (mutable, outside its checksum) naming a built-in
# type by an oid past those initdb fixes, as no build writes it: refused by
# the attach, as a value's input refuses it, not taken and then refused by
# every later use of the object.
cp "$WORK/export.cbf" "$WORK/badclass.cbf"; chmod 644 "$WORK/badclass.cbf"
printf '\x9f\x86\x01\x00\x05\0\0\0' | dd of="$WORK/badclass.cbf" bs=1 seek=264 conv=notrunc status=none
check_error "attach of a file recording an unknown item class" "records an item class this build does not know" \
    "SELECT shared_attach('badclass', '$WORK/badclass.cbf')"
check "failed attaches leave no object" \
    "SELECT count(*) = 0 FROM shared_objects WHERE name IN ('live2', 'viaslink', 'garbage', 'badclass')"
[ ! -e "$dir/live2" ] && [ ! -e "$dir/viaslink" ] && [ ! -e "$dir/garbage" ] && [ ! -e "$dir/badclass" ] ||
    fail "failed attaches left files"
echo "ok: ...and no files"
# An export copied into the folder of shared objects and attached under its
# own file name: the attach would replace that file with its copy of it, so
# it removed its source and then found it missing. Refused, the file kept.
as_owner cp -p "$WORK/export.cbf" "$dir/inplace"
check_error "attach of the file the object would be copied to" "is the file the object would be copied to" \
    "SELECT shared_attach('inplace', '$dir/inplace')"
cmp -s "$WORK/export.cbf" "$dir/inplace" || fail "the refused attach changed or removed its file"
check "the refused attach made no object" "SELECT count(*) = 0 FROM shared_objects WHERE name = 'inplace'"
check "attached under another name, the file is copied" \
    "SELECT shared_attach('inplace_copy', '$dir/inplace') IS NOT NULL AND shared_cbf_contains('inplace_copy', 'b')"
as_owner rm "$dir/inplace"
# A copy (export, attach) of a large object stops at a cancel or
# statement_timeout, between its 2 MiB pieces, and leaves no file behind: it
# ran to its end, then failed with the copy in place, so that the export's
# retry was refused ("already exists"). 256 MiB, whose copy takes far
# longer than the timeout.
q "SELECT shared_cbf_create('large', 30000000)" >/dev/null
q "SELECT shared_freeze('large')" >/dev/null
check_error "an export past statement_timeout" "statement timeout" \
    "SELECT shared_export('large', '$WORK/large.cbf')" 20ms
[ ! -e "$WORK/large.cbf" ] || fail "the interrupted export left its file ($(stat -c %s "$WORK/large.cbf") bytes)"
q "SELECT shared_export('large', '$WORK/large.cbf')" >/dev/null
check_error "an attach past statement_timeout" "statement timeout" \
    "SELECT shared_attach('large_copy', '$WORK/large.cbf')" 20ms
check "the interrupted attach made no object" "SELECT count(*) = 0 FROM shared_objects WHERE name = 'large_copy'"
[ ! -e "$dir/large_copy" ] || fail "the interrupted attach left its file"
# So does the write of a missing file from the object's image (256 MiB):
# it ran to its end before the cancel was raised. The file is removed, and
# the next use writes it again.
check "the large object has an image" "SELECT image IS NOT NULL FROM sketchshare_shared.objects WHERE name = 'large'"
as_owner mv "$dir/large" "$WORK/large-moved"
check_error "a write from the image past statement_timeout" "statement timeout" "SELECT shared_cbf_count('large')" 20ms
[ ! -e "$dir/large" ] || fail "the interrupted write from the image left its file ($(stat -c %s "$dir/large") bytes)"
check "the next use writes it from the image" "SELECT shared_cbf_count('large') = 0"
check "...whole" "SELECT status = 'ok' FROM shared_objects WHERE name = 'large'"
# A use that meets another backend writing the file from the image waits for
# it; if that write is then stopped (its file removed), the waiter writes the
# file itself instead of failing with "is missing". It succeeds whatever the
# timing: alone, after the other's write, or after its cancel.
as_owner rm "$dir/large"
PGOPTIONS="-c statement_timeout=150ms" psql -X -At -c "SELECT shared_cbf_count('large')" >"$WORK/first.log" 2>&1 &
first=$!
sleep 0.03
check "a use concurrent with a stopped write from the image" "SELECT shared_cbf_count('large') = 0"
wait "$first" || true
check "...leaves the file whole" "SELECT status = 'ok' FROM shared_objects WHERE name = 'large'"
as_owner rm -f "$WORK/large-moved"
q "SELECT shared_drop('large')" >/dev/null
rm -f "$WORK/large.cbf"

# No mapping or descriptor leaks across many create/drop cycles in one backend.
psql -X -At >"$WORK/leak.out" 2>&1 <<'SQL' &
SELECT pg_backend_pid();
DO $$ BEGIN
  FOR i IN 1..300 LOOP
    PERFORM shared_cbf_create('cycle' || i, 1000);
    PERFORM shared_cbf_add('cycle' || i, i);
    PERFORM shared_drop('cycle' || i);
  END LOOP;
END $$;
SELECT shared_cbf_add('victim2', 1) FROM (SELECT shared_cbf_create('victim2', 10)) x;
SELECT pg_sleep(3);
SQL
bg=$!
for _ in $(seq 1 100); do
    [ "$(q "SELECT count(*) FROM shared_objects WHERE name = 'victim2'")" = 1 ] && break
    sleep 0.1
done
pid=$(head -1 "$WORK/leak.out")
maps=$(grep -c "sketchshare/$dboid/" "/proc/$pid/maps" || true)
fds=$(ls -l "/proc/$pid/fd" | grep -c "sketchshare/$dboid/" || true)
wait $bg || true
[ "$maps" -le 1 ] || fail "backend $pid still maps $maps object files after 300 create/drop cycles"
[ "$fds" -le 1 ] || fail "backend $pid holds $fds object file descriptors after 300 create/drop cycles"
echo "ok: after 300 create/drop cycles the backend maps $maps object file(s) and holds $fds descriptors"
check "no files left by the cycles" "SELECT count(*) = 0 FROM shared_objects WHERE name LIKE 'cycle%'"
[ "$(ls "$dir" | grep -c '^cycle')" = 0 ] || fail "cycle files left in $dir"

# Another backend's drop, re-create and grant are noticed by a backend that
# keeps the object mapped (the file's dropped flag and acl generation).
out=$(psql -X -At 2>&1 <<'SQL'
SELECT shared_cbf_create('gen', 100);
SELECT shared_cbf_add('gen', 'old');
\! psql -X -q -c "SELECT shared_drop('gen')" -c "SELECT shared_cbf_create('gen', 200)" -c "SELECT shared_cbf_add('gen', 'new')" >/dev/null
SELECT 'after re-create: ' || shared_cbf_contains('gen', 'old') || ' ' || shared_cbf_contains('gen', 'new') || ' ' || (shared_cbf_stats('gen')->>'capacity');
\! psql -X -q -c "SELECT shared_drop('gen')" >/dev/null
SELECT shared_cbf_contains('gen', 'new');
SQL
)
grep -q "after re-create: false true 200" <<<"$out" || fail "re-create by another backend not noticed: $out"
grep -q 'shared object "gen" does not exist' <<<"$out" || fail "drop by another backend not noticed: $out"
echo "ok: another backend's drop and re-create are noticed"
q "CREATE ROLE sketchshare_files_nobody" >/dev/null
out=$(psql -X -At 2>&1 <<'SQL'
SET ROLE sketchshare_files_nobody;
SELECT shared_cbf_contains('live', 1);
\! psql -X -q -c "SELECT shared_grant('live', 'sketchshare_files_nobody', 'read')" >/dev/null
SELECT 'granted: ' || shared_cbf_contains('live', 1);
\! psql -X -q -c "SELECT shared_revoke('live', 'sketchshare_files_nobody', 'read')" >/dev/null
SELECT shared_cbf_contains('live', 1);
SQL
)
[ "$(echo "$out" | grep -c 'permission denied for shared object "live"')" = 2 ] || fail "grants by another backend: $out"
grep -q "granted: false" <<<"$out" || fail "grant by another backend not noticed: $out"
echo "ok: another backend's grant and revoke are noticed"

# A role without a grant is refused, with 42501 naming the object.
out=$(psql -X -At -v VERBOSITY=verbose -c "SET ROLE sketchshare_files_nobody" -c "SELECT shared_cbf_contains('live', 1)" 2>&1 || true)
grep -q '42501' <<<"$out" || fail "no grant: $out"
grep -q 'permission denied for shared object "live"' <<<"$out" || fail "no grant: $out"
echo "ok: a role without a grant: $(echo "$out" | grep ERROR | head -1)"
# A reservoir's payload is not covered by the header's checksum (it changes
# with every add): values in it that address memory are checked before use.
# Each damage below is refused (XX001, "is damaged") by a fresh backend's
# sample and add; the server does not restart. Offsets from the payload
# (12288): seen 0, count 8; the journal's valid 128 and position 132; slots
# from 256, stride round8(8 + item_size) = 64; a weighted reservoir's keys
# after k + 1 slots, then its heap. (An item's stored length needs no check:
# reads clamp it to item_size.)
started=$(q "SELECT pg_postmaster_start_time()")
# damaged LABEL OBJECT OFFSET VALUE ADD: writes VALUE as 8 little-endian bytes at OFFSET of
# the payload; a fresh backend's sample and ADD are refused; then restores it.
damaged() {
    local label=$1 name=$2 at=$((12288 + $3)) out stmt
    cp -p "$dir/$name" "$WORK/$name.good"
    put_u32 "$dir/$name" "$at" $(($4 & 0xffffffff))
    put_u32 "$dir/$name" $((at + 4)) $(($4 >> 32))
    for stmt in "SELECT count(*) FROM shared_reservoir_sample('$name')" "$5"; do
        out=$(psql -X -At -c "$stmt" 2>&1 || true)
        grep -q "shared reservoir \"$name\" is damaged" <<<"$out" || fail "$label: $stmt gave: $out"
    done
    cp -p "$WORK/$name.good" "$dir/$name"
    echo "ok: $label: $(echo "$out" | head -1)"
}
q "SELECT shared_reservoir_create('ru', 5, 56)" >/dev/null
q "SELECT shared_reservoir_create('rw', 5, 56, weighted => true)" >/dev/null
q "SELECT shared_reservoir_add_many('ru', array_agg(g::text)) FROM generate_series(1, 100) g" >/dev/null
q "SELECT shared_reservoir_add_many('rw', array_agg(g::text), array_agg(g::float8)) FROM generate_series(1, 100) g" >/dev/null
add_u="SELECT shared_reservoir_add('ru', 'x')"
add_w="SELECT shared_reservoir_add('rw', 'x', 2.0)"
damaged "a huge count" ru 8 5000000000 "$add_u"
damaged "a journal's position out of range" ru 128 $(((1000000 << 32) | 1)) "$add_u"
damaged "a heap root out of range" rw $((256 + 6 * 64 + 5 * 8)) 99 "$add_w"
damaged "a heap that is not a permutation (the first use's full check)" rw $((256 + 6 * 64 + 5 * 8 + 4)) 0 "$add_w"
check "the reservoirs read again once restored" "SELECT (SELECT count(*) FROM shared_reservoir_sample('ru')) = 5 AND (SELECT count(*) FROM shared_reservoir_sample('rw')) = 5"
[ "$(q "SELECT pg_postmaster_start_time()")" = "$started" ] || fail "the server restarted"
echo "ok: no restart"

q "SELECT shared_drop(name) FROM shared_objects" >/dev/null

# DROP EXTENSION removes the files at commit (shared_drop_extension.sh), and a
# backend that has an object mapped must not go on using it once the extension
# is created again: session a (a dblink connection, open throughout) maps
# 'cycle' (the add, a statement of its own after the create's commit, keeps
# it mapped); this session drops and re-creates the extension, then creates a
# new 'cycle'; a must find the old one gone, then see the new one, never its
# old mapping.
in_a() { echo "SELECT '$1:' || v FROM dblink('a', \$q\$$2\$q\$) AS r(v text);"; }
psql -X -At >"$WORK/cycle.log" 2>&1 <<SQL
CREATE EXTENSION dblink;
SELECT dblink_connect('a', 'dbname=$PGDATABASE host=$PGHOST port=$PGPORT user=$(q "SELECT current_user")');
$(in_a created "SELECT shared_cbf_create('cycle', 1000)::text")
$(in_a added "SELECT shared_cbf_add('cycle', 42)::text")
DROP EXTENSION sketchshare CASCADE;
CREATE EXTENSION sketchshare;
$(in_a old "SELECT shared_cbf_contains('cycle', 42)::text")
SELECT shared_cbf_create('cycle', 1000)::text || shared_cbf_add('cycle', 43)::text;
$(in_a new "SELECT shared_cbf_contains('cycle', 42)::text || shared_cbf_contains('cycle', 43)::text")
SELECT dblink_disconnect('a');
SQL
grep -q '^added:true$' "$WORK/cycle.log" || fail "session a did not create 'cycle': $(cat "$WORK/cycle.log")"
grep -q 'shared object "cycle" does not exist' "$WORK/cycle.log" && ! grep -q '^old:' "$WORK/cycle.log" ||
    fail "extension re-created: session a still found the old 'cycle': $(cat "$WORK/cycle.log")"
echo "ok: extension dropped and re-created: the old object is gone for session a"
grep -q '^new:falsetrue$' "$WORK/cycle.log" || fail "session a does not see the new 'cycle': $(cat "$WORK/cycle.log")"
echo "ok: session a sees the new 'cycle' (43), not the old one (42)"
q "SELECT shared_drop('cycle')" >/dev/null
echo "all file checks passed"
