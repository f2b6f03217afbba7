#!/usr/bin/env bash
# pg_from_source.sh MAJOR SUITE: builds PostgreSQL MAJOR from Debian's source
# package postgresql-MAJOR of the suite SUITE (18: forky, 17: trixie) into
# $SKETCH_PG_CACHE/pgMAJOR (default /var/cache/sketchshare/pgMAJOR), outside
# the clone, and prints that folder. Does nothing when it is built already.
# Needs root or sudo (apt-get).
#
# The suite gets a deb-src line of its own in /etc/apt/sources.list.d, and no
# deb line: apt never installs a binary package of a newer Debian from it.
# The upstream sources are built as they are (Debian's patches left out), with
# the options the extension and its tests need: readline (psql), zlib
# (pg_dump), lz4 and zstd (TOAST compression, as Debian's own packages), ICU;
# contrib's dblink for the tests.
set -euo pipefail
major=${1:?usage: pg_from_source.sh MAJOR SUITE}
suite=${2:?usage: pg_from_source.sh MAJOR SUITE}
cache=${SKETCH_PG_CACHE:-/var/cache/sketchshare}
prefix=$cache/pg$major
stamp=$prefix/.built

if [ -f "$stamp" ]; then echo "$prefix"; exit 0; fi
if [ "$(id -u)" -ne 0 ]; then sudo=sudo; else sudo=; fi
$sudo mkdir -p "$cache"
$sudo chmod 755 "$cache"

# One build at a time: a second caller waits for the first and then finds it done.
exec 9>"$cache/.lock-pg$major"
flock 9
if [ -f "$stamp" ]; then echo "$prefix"; exit 0; fi

export DEBIAN_FRONTEND=noninteractive
list=/etc/apt/sources.list.d/sketchshare-$suite-src.sources
if [ ! -f "$list" ]; then
    $sudo tee "$list" >/dev/null <<EOF
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $suite
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
fi
$sudo apt-get update -q >/dev/null
$sudo apt-get install -y -q --no-install-recommends bison flex dpkg-dev gcc make \
    libreadline-dev zlib1g-dev liblz4-dev libzstd-dev libicu-dev pkg-config >/dev/null

work=$(mktemp -d /tmp/pg$major-build.XXXXXX)
chmod 755 "$work"  # apt downloads as its own user
trap 'rm -rf "$work"' EXIT
cd "$work"
apt-get source -q --download-only "postgresql-$major/$suite" >/dev/null
dpkg-source -q --skip-patches -x postgresql-"$major"_*.dsc src >/dev/null
cd src
log=$work/build.log
echo "== building PostgreSQL $(sed -n 's/^Version: //p' ../postgresql-"$major"_*.dsc) into $prefix (log: $log)" >&2
if ! { ./configure --prefix="$prefix" --with-lz4 --with-zstd --without-llvm --disable-nls &&
       make -j2 &&
       $sudo make install &&
       make -C contrib/dblink -j2 &&
       $sudo make -C contrib/dblink install; } >"$log" 2>&1; then
    tail -40 "$log" >&2
    echo "PostgreSQL $major build failed" >&2
    trap - EXIT
    exit 1
fi
$sudo touch "$stamp"
echo "$prefix"
