#!/usr/bin/env bash
# A FIFO where a file is read (a path given to shared_attach, or one put in
# place of an object's file) is refused at once with a clear error: opening
# it must not wait for a writer, which no cancel, statement_timeout or
# terminate could end.
set -euo pipefail
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
start_test sketchshare_fifo

# within SECONDS SQL: run SQL in a new session; fail if it is still running
# after SECONDS (the backend is then released by opening the FIFOs for
# writing, so that the run can end). Prints psql's output.
within() {
    local out rc=0
    out=$(timeout "$1" psql -X -At -c "$2" 2>&1) || rc=$?
    if [ "$rc" = 124 ]; then
        for f in "$WORK"/fifo "$folder"/x; do [ -p "$f" ] && timeout 2 sh -c ": > '$f'" || true; done
        fail "still waiting after $1 s: $2" >&2
    fi
    echo "$out"
}

folder="$(q "SHOW data_directory")/sketchshare/$(q "SELECT oid FROM pg_database WHERE datname = current_database()")"

mkfifo "$WORK/fifo"
chmod 666 "$WORK/fifo"
out=$(within 10 "SELECT shared_attach('a', '$WORK/fifo')")
grep -q 'ERROR: .*is not a regular file' <<<"$out" || fail "attach of a FIFO: $out"
echo "ok: attaching a FIFO: $out"
check "the refused attach left no object" "SELECT count(*) = 0 FROM shared_objects WHERE name = 'a'"

# A FIFO in place of an object file, read through the shared_objects view
# and through a call in a new session.
q "SELECT shared_cbf_create('x', 1000)" >/dev/null
rm "$folder/x"
mkfifo "$folder/x"
chown "$SERVER_OWNER" "$folder/x"
chmod 600 "$folder/x"
out=$(within 10 "SELECT name, status FROM shared_objects WHERE name = 'x'")
grep -q '^x|.*is not a regular file' <<<"$out" || fail "shared_objects over a FIFO: $out"
echo "ok: shared_objects: $out"
out=$(within 10 "SELECT shared_cbf_contains('x', 1)")
grep -q 'ERROR: .*is not a regular file' <<<"$out" || fail "a call on a FIFO: $out"
echo "ok: a call: $out"
check "the object can be dropped" "SELECT shared_drop('x')"
rm -f "$folder/x"  # a drop removes only regular files and symbolic links

# A directory in place of an object's file (open for writing fails with
# EISDIR rather than finding something that is not a regular file): the
# object can still be dropped, as a drop works whatever the file's state.
q "SELECT shared_cbf_create('d', 1000)" >/dev/null
rm "$folder/d"
mkdir "$folder/d"
chown "$SERVER_OWNER" "$folder/d"
out=$(within 10 "SELECT shared_cbf_contains('d', 1)")
grep -q 'ERROR: .*"d".*Is a directory' <<<"$out" || fail "a call on a directory: $out"
echo "ok: a call: $out"
check "the object over a directory can be dropped" "SELECT shared_drop('d')"
rmdir "$folder/d"  # a drop removes only regular files and symbolic links
