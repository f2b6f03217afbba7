#!/usr/bin/env bash
# Dropping an object and creating its name again.
# 1. A file damaged in any of the ways shared_objects.status names (cut
#    shorter than a header, wrong magic, the other byte order, a symlink
#    planted at the path) goes with the drop, so the name can be created
#    again (docs/operations.md, "Damaged files": drop the object and create it again); a symlink's target
#    is left alone. So does a file without the magic that no process holds
#    (what a create whose process is gone left).
# 2. A create that commits while the drop of the previous object of that name
#    is still finishing (its commit is visible, its file not yet removed):
#    a backend that kept the old object mapped must move to the new one, and
#    the new object's file must survive the old one's removal.
set -euo pipefail
: "${SKETCH_ROOT:?}" "${PGHOST:?}" "${PGPORT:?}"
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
start_test sketchshare_shared_drop_recreate
dir=$(object_dir)

# recreate LABEL DAMAGE: create 'victim', damage its file with the shell
# command DAMAGE (run with $f set to the file), drop it, then create it again.
recreate() {
    local f="$dir/victim" out
    q "SELECT shared_cbf_create('victim', 1000)" >/dev/null
    q "SELECT shared_cbf_add('victim', 'a')" >/dev/null
    eval "$2"
    out=$(psql -X -At -c "SELECT shared_cbf_contains('victim', 'a')" 2>&1 || true)
    grep -q "ERROR" <<<"$out" || fail "$1: the damaged file was used: $out"
    check "$1: the damaged object can be dropped" "SELECT shared_drop('victim')"
    check "$1: ... and created again" "SELECT shared_cbf_create('victim', 1000) IS NOT NULL"
    check "$1: ... as a new, working object" \
        "SELECT NOT shared_cbf_contains('victim', 'a') AND shared_cbf_add('victim', 'b') AND status = 'ok' FROM shared_objects WHERE name = 'victim'"
    q "SELECT shared_drop('victim')" >/dev/null
}
recreate "truncated to 100 bytes" 'as_owner truncate -s 100 "$f"'
recreate "truncated to 1 byte" 'as_owner truncate -s 1 "$f"'
recreate "wrong magic" 'printf XXXXXXXX | dd of="$f" conv=notrunc status=none'
recreate "other byte order" 'python3 -c "import sys; f = open(sys.argv[1], \"r+b\"); m = f.read(8); f.seek(0); f.write(m[::-1])" "$f"'
recreate "a symlink at the path" 'as_owner cp "$f" "$WORK/target"; rm "$f"; ln -s "$WORK/target" "$f"'
[ -f "$WORK/target" ] && [ ! -L "$WORK/target" ] || fail "the symlink's target was removed"
echo "ok: the symlink's target is left alone"

# An all-zero file at the path when the drop commits, which no process
# holds, is what a create whose process is gone left: the drop removes it.
# (One that a create in progress holds stays: shared_interrupted_create.sh.)
q "SELECT shared_cbf_create('zeroed', 1000)" >/dev/null
size=$(stat -c %s "$dir/zeroed")
psql -X -q -At >/dev/null <<SQL
BEGIN;
SELECT shared_drop('zeroed');
\! rm "$dir/zeroed" && head -c $size /dev/zero >"$WORK/zero" && chmod 600 "$WORK/zero" && chown $SERVER_OWNER "$WORK/zero" && mv "$WORK/zero" "$dir/zeroed"
COMMIT;
SQL
[ ! -e "$dir/zeroed" ] || fail "the drop left an all-zero file no process holds"
echo "ok: the drop removes an all-zero file no process holds"
check "... and the name can be created again" "SELECT shared_cbf_create('zeroed', 1000) IS NOT NULL AND shared_cbf_add('zeroed', 1)"
q "SELECT shared_drop('zeroed')" >/dev/null

# 2. The race. The drop of 'r' is the first action of a transaction that
# drops 500 objects: its file is the last one removed after the commit (the
# actions run newest first), which leaves a window in which the commit is
# visible and the old file still there. Another backend polls until the
# drop's commit is visible, then creates 'r' again at once, so its create
# meets the old file. Session c (a dblink connection, open throughout) has
# the old 'r' mapped; its next add must reach the new 'r'.
q "CREATE EXTENSION dblink" >/dev/null
q "SELECT count(shared_cbf_create('pad' || g, 10)) FROM generate_series(1, 500) g" >/dev/null
drops="SELECT shared_drop('r');"$'\n'"SELECT count(shared_drop('pad' || g)) FROM generate_series(1, 500) g;"
for round in 1 2 3; do
    q "SELECT shared_cbf_create('r', 1000)" >/dev/null
    psql -X -q -At >"$WORK/race.log" 2>&1 <<SQL &
SELECT dblink_connect('c', 'dbname=$PGDATABASE host=$PGHOST port=$PGPORT user=$(q "SELECT current_user")');
SELECT * FROM dblink('c', \$q\$SELECT shared_cbf_add('r', 'old')::text\$q\$) AS t(v text);
\! touch "$WORK/mapped"
\! while [ ! -e "$WORK/recreated" ]; do sleep 0.05; done
SELECT 'c added: ' || v FROM dblink('c', \$q\$SELECT shared_cbf_add('r', 'from c')::text\$q\$) AS t(v text);
SQL
    PIDS+=($!)
    await_file "$WORK/mapped" || true
    psql -X -q -At >"$WORK/create.log" 2>&1 <<'SQL' &
DO $$ BEGIN
  FOR i IN 1..100000 LOOP
    IF NOT EXISTS (SELECT FROM sketchshare_shared.objects WHERE name = 'r') THEN
      PERFORM shared_cbf_create('r', 2000);
      RETURN;
    END IF;
    PERFORM pg_sleep(0.0002);
  END LOOP;
  RAISE EXCEPTION 'r was never dropped';
END $$;
SQL
    creator=$!
    psql -X -q -At -c "BEGIN" -c "$drops" -c "COMMIT" >/dev/null
    wait $creator || fail "round $round: the re-create failed: $(cat "$WORK/create.log")"
    touch "$WORK/recreated"
    wait "${PIDS[-1]}" || true
    rm -f "$WORK/mapped" "$WORK/recreated"
    grep -q '^c added: true$' "$WORK/race.log" || fail "round $round: session c: $(cat "$WORK/race.log")"
    check "round $round: the new 'r' has its file" "SELECT status = 'ok' AND capacity = 2000 FROM shared_objects WHERE name = 'r'"
    check "round $round: session c's add reached the new 'r', not the dropped one" \
        "SELECT shared_cbf_contains('r', 'from c') AND NOT shared_cbf_contains('r', 'old')"
    q "SELECT shared_drop('r')" >/dev/null
    q "SELECT count(shared_cbf_create('pad' || g, 10)) FROM generate_series(1, 500) g" >/dev/null
done
echo "all drop and re-create checks passed"
