# A throwaway Citus cluster for the citus_* script tests: a coordinator and
# two workers on loopback ports, run from the PostgreSQL installation that
# psql comes from (the sandbox's under SKETCH_PG_SANDBOX), as the server's OS
# user. Sourced after common.sh; scripts/test.sh runs these tests only where
# citus_available says Citus can be had.

CITUS_BIN=${SKETCH_PG_SANDBOX:-}$("${PG_CONFIG:-pg_config}" --bindir)
CITUS_DIR=""
CITUS_PORTS=()

# The OS user that runs the nodes (PostgreSQL refuses root).
citus_as_server() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

# citus_node_start N PORT: initdb and start node N (0 = the coordinator).
citus_node_start() {
    local data=$CITUS_DIR/node$1
    citus_as_server "$CITUS_BIN/initdb" -D "$data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 \
        >"$CITUS_DIR/initdb$1.log" 2>&1 || { cat "$CITUS_DIR/initdb$1.log"; fail "initdb of node $1"; }
    cat >>"$data/postgresql.conf" <<CONF
port = $2
listen_addresses = '127.0.0.1'
unix_socket_directories = '$CITUS_DIR'
shared_preload_libraries = 'citus'
fsync = off
synchronous_commit = off
full_page_writes = off
shared_buffers = 256MB
work_mem = 64MB
max_connections = 60
log_min_messages = warning
citus.shard_count = 8
CONF
    citus_as_server "$CITUS_BIN/pg_ctl" -D "$data" -l "$CITUS_DIR/node$1.log" -w start >/dev/null ||
        { tail -20 "$CITUS_DIR/node$1.log"; fail "node $1 did not start"; }
}

# qn N SQL: q on node N.
qn() { local n=$1; shift; PGHOST=$CITUS_DIR PGPORT=${CITUS_PORTS[$n]} PGUSER=postgres PGDATABASE=postgres q "$@"; }

# citus_start: the three nodes, registered with each other, with citus and
# sketchshare created (CREATE EXTENSION on the coordinator reaches the
# workers); PG* then point at the coordinator. citus_stop runs on exit.
citus_start() {
    CITUS_DIR=$(mktemp -d /tmp/sketchshare-citus.XXXXXX)
    chmod 755 "$CITUS_DIR"
    [ "$(id -u)" -eq 0 ] && chown postgres: "$CITUS_DIR"
    trap citus_stop EXIT
    local base=$(( 40000 + RANDOM % 20000 )) n
    CITUS_PORTS=("$base" $((base + 1)) $((base + 2)))
    echo "== starting a Citus cluster in $CITUS_DIR (ports ${CITUS_PORTS[*]})"
    for n in 0 1 2; do
        citus_node_start "$n" "${CITUS_PORTS[$n]}"
        qn "$n" "CREATE EXTENSION citus" >/dev/null
    done
    qn 0 "SELECT citus_set_coordinator_host('127.0.0.1', ${CITUS_PORTS[0]})" >/dev/null
    qn 0 "SELECT citus_add_node('127.0.0.1', ${CITUS_PORTS[1]})" >/dev/null
    qn 0 "SELECT citus_add_node('127.0.0.1', ${CITUS_PORTS[2]})" >/dev/null
    qn 0 "CREATE EXTENSION sketchshare" >/dev/null
    for n in 1 2; do
        [ "$(qn "$n" "SELECT count(*) FROM pg_extension WHERE extname = 'sketchshare'")" = 1 ] ||
            fail "sketchshare was not created on worker $n"
    done
    export PGHOST=$CITUS_DIR PGPORT=${CITUS_PORTS[0]} PGUSER=postgres PGDATABASE=postgres
}

citus_stop() {
    [ -n "$CITUS_DIR" ] || return 0
    local n
    for n in 0 1 2; do
        [ -d "$CITUS_DIR/node$n" ] &&
            citus_as_server "$CITUS_BIN/pg_ctl" -D "$CITUS_DIR/node$n" -m immediate -w stop >/dev/null 2>&1 || true
    done
    rm -rf "$CITUS_DIR"
    CITUS_DIR=""
}
