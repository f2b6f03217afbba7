# Helpers sourced by the script tests in test/scripts (this folder is not run
# as a test itself: scripts/test.sh runs test/scripts/*.sh only).

q() { psql -X -At -v ON_ERROR_STOP=1 -c "$1"; }

# check LABEL SQL [TIMEOUT]: SQL must return t (within TIMEOUT, e.g. 1s), else
# the test fails with the label and what came back.
check() {
    local got
    got=$(PGOPTIONS="-c statement_timeout=${3:-0}" q "$2")
    if [ "$got" != t ]; then echo "FAILED: $1 ($2 -> $got)"; exit 1; fi
    echo "ok: $1"
}

# After a backend crash the postmaster restarts every backend: wait until the
# server accepts connections again (up to 20 s).
await_server() {
    for _ in $(seq 1 100); do
        psql -X -At -c "SELECT 1" >/dev/null 2>&1 && return 0
        sleep 0.2
    done
    echo "FAILED: the server did not come back"
    exit 1
}
