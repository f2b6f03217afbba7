# Shared by scripts/demo.sh, scripts/test.sh and bench/run.sh: install what is
# missing, build and install the extension, run a throwaway cluster.
# Works as root (the server then runs as the unprivileged `postgres` user,
# since PostgreSQL refuses root) and as a user with sudo.

set -euo pipefail

SKETCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# PG_MAJOR=15 (the default): the system's PostgreSQL, Debian's packages.
# Another major (18): built from Debian's source package into a cache outside
# the clone (scripts/pg_from_source.sh; the Debian suite that serves it is in
# PG_SOURCE_SUITES), and the extension built for it in a copy of the sources,
# .build-pgMAJOR (BUILD_ROOT), so that the two builds do not overwrite each
# other's objects.
PG_MAJOR=${PG_MAJOR:-15}
SYSTEM_MAJOR=15
declare -A PG_SOURCE_SUITES=([18]=forky)
BUILD_ROOT=$SKETCH_ROOT
if [ "$PG_MAJOR" = "$SYSTEM_MAJOR" ]; then
    PG_BIN=/usr/lib/postgresql/$PG_MAJOR/bin
    export PG_CONFIG=${PG_CONFIG:-$PG_BIN/pg_config}
    [ -x "$PG_CONFIG" ] || PG_CONFIG=$(command -v pg_config || echo "$PG_BIN/pg_config")
else
    [ -n "${PG_SOURCE_SUITES[$PG_MAJOR]:-}" ] || { echo "PostgreSQL $PG_MAJOR: no Debian suite known to serve it" >&2; exit 1; }
    PG_BIN=${SKETCH_PG_CACHE:-/var/cache/sketchshare}/pg$PG_MAJOR/bin
    export PG_CONFIG=$PG_BIN/pg_config
    BUILD_ROOT=$SKETCH_ROOT/.build-pg$PG_MAJOR
fi

# SKETCH_PG_SANDBOX=DIR installs the extension into a private copy of the
# PostgreSQL installation under DIR and runs throwaway clusters from there, so
# several work trees can build and test side by side (PostgreSQL finds its
# libraries relative to its binaries). Unset: the system installation.
SANDBOX=${SKETCH_PG_SANDBOX:-}
if [ -n "$SANDBOX" ]; then
    PG_BIN=$SANDBOX$PG_BIN
fi

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# The OS user that owns throwaway clusters.
server_user() {
    if [ "$(id -u)" -eq 0 ]; then echo postgres; else id -un; fi
}

as_server_user() {
    if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# Debian packages the build, the tests and the benchmarks need (clang and its
# runtimes: the sanitizer builds and the fuzzers; debhelper and
# postgresql-server-dev-all, with its pg_buildext: the Debian package's build,
# test/scripts/debian_package.sh).
SKETCH_PACKAGES=(make g++ postgresql-$PG_MAJOR postgresql-server-dev-$PG_MAJOR libxxhash-dev
                 googletest libgtest-dev libbenchmark-dev xxhash postgresql-$PG_MAJOR-hll python3 gnuplot-nox
                 clang libfuzzer-14-dev libclang-rt-14-dev debhelper postgresql-server-dev-all)

install_dependencies() {
    local missing=()
    for pkg in "${SKETCH_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || missing+=("$pkg")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "== installing: ${missing[*]}"
        as_root apt-get update -qq
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi
}

# PostgreSQL PG_MAJOR, when it is not the system's: built once into its cache.
build_postgres() {
    [ "$PG_MAJOR" = "$SYSTEM_MAJOR" ] && return 0
    [ -f "$(dirname "$(dirname "$PG_CONFIG")")/.built" ] && return 0
    as_root env SKETCH_PG_CACHE="${SKETCH_PG_CACHE:-}" bash "$SKETCH_ROOT/scripts/pg_from_source.sh" "$PG_MAJOR" \
        "${PG_SOURCE_SUITES[$PG_MAJOR]}" >/dev/null
}

# The sources, copied into BUILD_ROOT for another major's build: files keep
# their times, so make rebuilds only what changed.
sync_build_root() {
    [ "$BUILD_ROOT" = "$SKETCH_ROOT" ] && return 0
    mkdir -p "$BUILD_ROOT"
    (cd "$SKETCH_ROOT" && git ls-files -z --cached --others --exclude-standard | tar --null -cf - -T -) |
        tar -xf - -C "$BUILD_ROOT"
}

build_and_install() {
    echo "== building sketchshare for PostgreSQL $("$PG_CONFIG" --version | sed 's/^PostgreSQL //')"
    sync_build_root
    make -C "$BUILD_ROOT" -s -j"$(nproc)" PG_CONFIG="$PG_CONFIG"
    if [ -n "$SANDBOX" ]; then
        # PostgreSQL finds its files relative to its binaries: a copy of its
        # installation (the folder above bindir, and sharedir) runs as well.
        if [ ! -x "$PG_BIN/postgres" ]; then
            local dir
            for dir in "$(dirname "$("$PG_CONFIG" --bindir)")" "$("$PG_CONFIG" --sharedir)"; do
                [ -e "$SANDBOX$dir" ] && continue
                mkdir -p "$SANDBOX$(dirname "$dir")"
                cp -a "$dir" "$SANDBOX$(dirname "$dir")/"
            done
        fi
        make -C "$BUILD_ROOT" -s install DESTDIR="$SANDBOX" PG_CONFIG="$PG_CONFIG" >/dev/null
    else
        as_root make -C "$BUILD_ROOT" -s install PG_CONFIG="$PG_CONFIG" >/dev/null
    fi
}

# Starts a throwaway cluster unless PG* variables point at a server (pass
# "own" to always start one). Exports PGHOST, PGPORT, PGUSER, PGDATABASE.
CLUSTER_DIR=""
cluster_start() {
    local mode=${1:-auto}
    if [ "$mode" != own ] && { [ -n "${PGHOST:-}" ] || [ -n "${PGPORT:-}" ] || [ -n "${PGDATABASE:-}" ]; }; then
        echo "== using the server that PG* variables point at"
        return 0
    fi
    CLUSTER_DIR=$(mktemp -d /tmp/sketchshare-cluster.XXXXXX)
    chmod 755 "$CLUSTER_DIR"
    [ "$(id -u)" -eq 0 ] && chown postgres: "$CLUSTER_DIR"
    local port
    port=$(( 20000 + RANDOM % 20000 ))
    echo "== starting a throwaway cluster in $CLUSTER_DIR (port $port, OS user $(server_user))"
    as_server_user "$PG_BIN/initdb" -D "$CLUSTER_DIR/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$CLUSTER_DIR/initdb.log" 2>&1 ||
        { cat "$CLUSTER_DIR/initdb.log"; return 1; }
    cat >>"$CLUSTER_DIR/data/postgresql.conf" <<CONF
port = $port
listen_addresses = ''
unix_socket_directories = '$CLUSTER_DIR'
fsync = off
synchronous_commit = off
full_page_writes = off
shared_buffers = 512MB
work_mem = 64MB
max_worker_processes = 8
max_parallel_workers = 4
max_parallel_workers_per_gather = 2
max_connections = 40
log_min_messages = warning
CONF
    as_server_user "$PG_BIN/pg_ctl" -D "$CLUSTER_DIR/data" -l "$CLUSTER_DIR/server.log" -w start >/dev/null
    export PGHOST=$CLUSTER_DIR PGPORT=$port PGUSER=postgres PGDATABASE=postgres
    trap cluster_stop EXIT
}

cluster_stop() {
    [ -n "$CLUSTER_DIR" ] || return 0
    as_server_user "$PG_BIN/pg_ctl" -D "$CLUSTER_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$CLUSTER_DIR"
    CLUSTER_DIR=""
}

# The GUC that forces parallel plans was renamed in PostgreSQL 16.
force_parallel_guc() {
    local num
    num=$(psql -XAtc "SHOW server_version_num")
    if [ "$num" -ge 160000 ]; then echo debug_parallel_query; else echo force_parallel_mode; fi
}

# citus_available: true when Citus is installed, after building it with
# ../shared/citus/install.sh beside the repository when that is there (it does
# nothing when Citus is installed already); under SKETCH_PG_SANDBOX, copies
# Citus's files into the sandbox. Otherwise prints why not and returns 1.
citus_available() {
    local libdir sharedir installer=$SKETCH_ROOT/../shared/citus/install.sh
    libdir=$("$PG_CONFIG" --pkglibdir)
    sharedir=$("$PG_CONFIG" --sharedir)
    if [ ! -f "$libdir/citus.so" ]; then
        [ -f "$installer" ] || { echo "Citus is not installed and $installer is missing"; return 1; }
        as_root env PG_CONFIG="$PG_CONFIG" bash "$installer" >"${TMPDIR:-/tmp}/sketchshare-citus-install.log" 2>&1 ||
            { echo "building Citus with $installer failed (log: ${TMPDIR:-/tmp}/sketchshare-citus-install.log)"; return 1; }
    fi
    if [ -n "$SANDBOX" ] && [ ! -f "$SANDBOX$libdir/citus.so" ]; then
        cp -a "$libdir"/citus*.so "$libdir/citus_decoders" "$SANDBOX$libdir/"
        [ -d "$libdir/bitcode/citus" ] && cp -a "$libdir"/bitcode/citus* "$SANDBOX$libdir/bitcode/"
        cp -a "$sharedir"/extension/citus* "$SANDBOX$sharedir/extension/"
    fi
    return 0
}
