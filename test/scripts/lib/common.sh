# Helpers sourced by the script tests in test/scripts (this folder is not run
# as a test itself: scripts/test.sh runs test/scripts/*.sh only).

# fail MESSAGE: end the test; test.sh shows the log's tail, so say what failed.
fail() { echo "FAILED: $*"; exit 1; }

q() { psql -X -At -v ON_ERROR_STOP=1 -c "$1"; }

# check LABEL SQL [TIMEOUT]: SQL must return t (within TIMEOUT, e.g. 1s), else
# the test fails with the label and what came back.
check() {
    local got
    got=$(PGOPTIONS="-c statement_timeout=${3:-0}" q "$2") || fail "$1 ($2 -> the error above)"
    [ "$got" = t ] || fail "$1 ($2 -> $got)"
    echo "ok: $1"
}

# After a backend crash the postmaster restarts every backend: wait until the
# server accepts connections again (up to 20 s).
await_server() {
    for _ in $(seq 1 100); do
        psql -X -At -c "SELECT 1" >/dev/null 2>&1 && return 0
        sleep 0.2
    done
    fail "the server did not come back"
}

# Background processes a test starts; end_test kills those still running.
PIDS=()

# start_test NAME [EXIT_SQL...]: each script test works in a database of its
# own, NAME (made afresh with the extension, exported as PGDATABASE and DB),
# and a folder of its own, WORK (open to the server's OS user, which writes
# exports there). Whichever way the script ends, end_test cleans up.
start_test() {
    DB=$1
    shift
    EXIT_SQL=("$@")
    WORK=$(mktemp -d "/tmp/$DB.XXXXXX")
    chmod 777 "$WORK"
    trap end_test EXIT
    psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
    export PGDATABASE=$DB
    q "CREATE EXTENSION sketchshare" >/dev/null
}

# On exit: kill PIDS, remove WORK, drop DB and run each EXIT_SQL (e.g. DROP
# ROLE) in the postgres database, so no run leaves anything behind.
end_test() {
    local p sql args=()
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    rm -rf "$WORK"
    for sql in "DROP DATABASE IF EXISTS $DB" "${EXIT_SQL[@]}"; do args+=(-c "$sql"); done
    psql -X -q -d postgres "${args[@]}" >/dev/null 2>&1 || true
}
