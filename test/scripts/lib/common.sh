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

# check_error LABEL PATTERN SQL [TIMEOUT]: SQL must fail (within TIMEOUT) with
# PATTERN (grep) in its message, else the test fails with what came back.
check_error() {
    local out
    out=$(PGOPTIONS="-c statement_timeout=${4:-0}" psql -X -At -v ON_ERROR_STOP=1 -c "$3" 2>&1) &&
        fail "$1: no error ($3 -> $out)"
    grep -q "$2" <<<"$out" || fail "$1: expected '$2', got: $out"
    echo "ok: $1: $(echo "$out" | head -1)"
}

# pgbench_bin: pgbench from psql's installation, else the system's.
pgbench_bin() {
    local bin
    bin=$(dirname "$(command -v psql)")/pgbench
    [ -x "$bin" ] || bin=/usr/lib/postgresql/15/bin/pgbench
    echo "$bin"
}

# pgbench_failures LOG: fails the test unless the pgbench run logged in LOG
# counted no failed transaction. pgbench counts a deadlock or a serialization
# failure as a failed transaction and still exits 0, and no load of these
# tests may lose one that way; a log without the count (another pgbench, or
# a run that ended early) fails too, rather than passing unread.
pgbench_failures() {
    grep -q "number of failed transactions: 0 " "$1" ||
        fail "pgbench transactions failed (a deadlock?) or went uncounted: $(grep -E 'failed' "$1" | tr '\n' ' ')"
}

# run_pgbench ARGS...: pgbench with ARGS; says how long it took, and shows
# its output and fails the test when it fails or a transaction failed.
run_pgbench() {
    local start
    start=$(date +%s%N)
    "$(pgbench_bin)" -n "$@" >"$WORK/pgbench.log" 2>&1 || { cat "$WORK/pgbench.log"; fail "pgbench $*"; }
    pgbench_failures "$WORK/pgbench.log"
    echo "pgbench ran in $(( ($(date +%s%N) - start) / 1000000 )) ms"
}

# load_batches CLIENTS BATCHES SIZE COLUMNS: CLIENTS pgbench clients share
# BATCHES transactions; each takes the next batch number b from a sequence and
# adds a row (b, COLUMNS) to the table results, COLUMNS being aggregates over
# the batch's items g = b * SIZE .. b * SIZE + SIZE - 1. Every batch must run
# exactly once.
load_batches() {
    local clients=$1 batches=$2 size=$3
    [ $((batches % clients)) -eq 0 ] || fail "load_batches: $batches batches do not split over $clients clients"
    q "CREATE SEQUENCE batches START 0 MINVALUE 0" >/dev/null
    cat >"$WORK/load.sql" <<SQL
INSERT INTO results
SELECT b, $4
FROM (SELECT nextval('batches') AS b) s, generate_series(s.b * $size, s.b * $size + $size - 1) g
GROUP BY b;
SQL
    run_pgbench -c "$clients" -j "$clients" -t $((batches / clients)) -f "$WORK/load.sql"
    check "$batches batches ran" "SELECT count(*) = $batches AND count(DISTINCT batch) = $batches FROM results"
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
# own, NAME (made afresh with the extension, exported as PGDATABASE and DB,
# committing synchronously),
# and a folder of its own, WORK (open to the server's OS user, SERVER_OWNER,
# which writes exports there). Whichever way the script ends, end_test cleans up.
start_test() {
    DB=$1
    shift
    EXIT_SQL=("$@")
    WORK=$(mktemp -d "/tmp/$DB.XXXXXX")
    chmod 777 "$WORK"
    trap end_test EXIT
    psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
    # The throwaway cluster commits asynchronously, and a crash test's SIGKILL
    # restarts the server, which loses commits not yet written: every session
    # of a test's database commits synchronously, so what a test set up before
    # its crash is there after it (the extension, the objects' catalog rows).
    psql -X -q -d postgres -c "ALTER DATABASE $DB SET synchronous_commit = on"
    export PGDATABASE=$DB
    q "CREATE EXTENSION sketchshare" >/dev/null
    SERVER_OWNER=$(stat -c %U "$(q "SHOW data_directory")")  # the OS user that runs the server
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

# The crash tests: loaders run in the background while a backend is killed.

# start_loader N SQL: run SQL in the background as loader N; its notices (the
# progress: 'done B' after batch B) go to WORK/loaderN.log.
start_loader() {
    psql -X -q -c "$2" >"$WORK/loader$1.out" 2>"$WORK/loader$1.log" &
    PIDS+=($!)
}

# await_batch B SECONDS: wait up to SECONDS until loader 1 has finished batch
# B, so the crash comes in the middle of the load (later checks catch a
# loader that never got going).
await_batch() {
    for _ in $(seq 1 $(($2 * 10))); do
        grep -q "done $1" "$WORK/loader1.log" 2>/dev/null && return 0
        sleep 0.1
    done
}

# sigkill_backend TEXT DELAY: the crash. SIGKILL the backend whose query
# contains TEXT, DELAY seconds after finding it; then wait for the loaders to
# end and for the postmaster, which restarts every backend, to be back.
sigkill_backend() {
    local victim
    victim=$(q "SELECT pid FROM pg_stat_activity WHERE query LIKE '%$1%' AND pid <> pg_backend_pid() LIMIT 1")
    [ -n "$victim" ] || { cat "$WORK"/loader*.log; fail "no backend is running $1"; }
    sleep "$2"
    echo "== SIGKILL backend $victim"
    kill -9 "$victim"
    wait "${PIDS[@]}" 2>/dev/null || true
    PIDS=()
    await_server
}

# last_batch: the last batch loader 1 saw finish (every add in batches 0..it
# returned before the crash); fails the test when there is none.
last_batch() {
    local b
    b=$(grep -o "done [0-9]*" "$WORK/loader1.log" | tail -1 | awk '{print $2}') || true
    if [ -z "$b" ]; then  # (on stderr: the caller takes stdout)
        cat "$WORK/loader1.log" >&2
        echo "FAILED: loader 1 finished no batch" >&2
        exit 1
    fi
    echo "$b"
}

# as_owner CMD...: run CMD as the server's OS user (SERVER_OWNER, set by
# start_test), so that what it writes in the data directory is the server's.
as_owner() { if [ "$(id -u)" -eq 0 ]; then runuser -u "$SERVER_OWNER" -- "$@"; else "$@"; fi; }

# The folder of the running server's own binaries (they load the library
# installed beside them; psql on PATH may be Debian's wrapper).
server_bin() {
    local data
    data=$(q "SHOW data_directory")
    dirname "$(as_owner readlink -f "/proc/$(as_owner head -1 "$data/postmaster.pid")/exe")"
}

# await_file FILE: wait up to 10 s for FILE to exist (a background session's signal).
await_file() {
    for _ in $(seq 1 100); do [ -e "$1" ] && return 0; sleep 0.1; done
    return 1
}

# object_dir: this database's folder of shared object files on the server.
object_dir() {
    echo "$(q "SHOW data_directory")/sketchshare/$(q "SELECT oid FROM pg_database WHERE datname = current_database()")"
}

# get_u32 FILE OFFSET: the 4 little-endian bytes at OFFSET of an object file.
get_u32() { as_owner od -An -tu4 -j "$2" -N4 "$1" | tr -d ' '; }

# put_u32 FILE OFFSET VALUE [COUNT]: write VALUE as 4 little-endian bytes at
# OFFSET of an object file, COUNT times in a row (default 1): a holder's
# process id in lock words, damage in a payload.
put_u32() {
    local word i
    word=$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($3 & 255)) $((($3 >> 8) & 255)) $((($3 >> 16) & 255)) $((($3 >> 24) & 255)))
    for ((i = 0; i < ${4:-1}; i++)); do printf "$word"; done |
        dd of="$1" bs=4 oflag=seek_bytes seek="$2" conv=notrunc status=none
}
