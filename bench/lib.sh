# What the benchmark scripts share (sourced): scripts/lib.sh, their options,
# and the pgbench side of the shared-object benchmarks.
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"

# bench_options ARGS...: --rows, --seconds, --rounds, --runs, --mode and
# --clients set ROWS, SECS, ROUNDS, RUNS, MODE and CLIENTS (a list: "2 8";
# each script sets its defaults first and
# says in its header which it reads); other words are left in BENCH_ARGS.
bench_options() {
    BENCH_ARGS=()
    while [ $# -gt 0 ]; do
        case $1 in
            --rows) ROWS=$2; shift 2 ;;
            --seconds) SECS=$2; shift 2 ;;
            --rounds) ROUNDS=$2; shift 2 ;;
            --runs) RUNS=$2; shift 2 ;;
            --mode) MODE=$2; shift 2 ;;
            --clients) CLIENTS=$2; shift 2 ;;
            --*) echo "unknown option $1"; exit 2 ;;
            *) BENCH_ARGS+=("$1"); shift ;;
        esac
    done
}

# pgbench_cluster: builds and installs the extension, starts a throwaway
# cluster with it and a shared counting filter 'seen' of 10M items; sets
# PGBENCH, and WORK (a folder for pgbench scripts).
pgbench_cluster() {
    install_dependencies
    build_and_install
    cluster_start own
    PGBENCH=$PG_BIN/pgbench
    WORK=$(mktemp -d /tmp/sketchshare-bench.XXXXXX)
    chmod 755 "$WORK"
    q "CREATE EXTENSION sketchshare" >/dev/null
    q "SELECT shared_cbf_create('seen', 10000000, 0.01)" >/dev/null
}

q() { psql -X -At -v ON_ERROR_STOP=1 -c "$1"; }

# hold_mapped NAME...: a session in the background maps the shared counting
# filters NAME (a lookup in each) and stays idle until the cluster stops, as
# some session of a server in use would. Between two pgbench runs no other
# process maps them, and a kernel that reclaims page cache no process maps
# (DAMON does on this machine class) drops their pages: the next run would
# then start by reading or zeroing the whole file in again, page by page.
# The lookups are of an integer, the items' type of every bench object (one
# of text in an object of integers fails with 42804); the holder is waited
# for, so a failed lookup stops the bench rather than leaving it unheld.
hold_mapped() {
    local sql="" name app="hold_mapped $*"
    for name in "$@"; do sql+="SELECT shared_cbf_contains('$name', 0); "; done
    PGAPPNAME=$app psql -X -q -v ON_ERROR_STOP=1 -c "$sql" -c "SELECT pg_sleep(86400)" \
        >/dev/null 2>"$WORK/hold_mapped.log" &
    for _ in $(seq 1 100); do
        [ "$(q "SELECT count(*) FROM pg_stat_activity
                WHERE application_name = '$app' AND query LIKE '%pg_sleep%'")" = 1 ] && return 0
        sleep 0.1
    done
    echo "hold_mapped: the session holding $* did not start: $(cat "$WORK/hold_mapped.log")"
    exit 1
}

tps() {  # tps SCRIPT CLIENTS: transactions per second of $WORK/SCRIPT.sql
    "$PGBENCH" -n -M "$MODE" -c "$2" -j "$2" -T "$SECS" -f "$WORK/$1.sql" 2>/dev/null |
        awk '/^tps = / {print int($3)}'
}

median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
