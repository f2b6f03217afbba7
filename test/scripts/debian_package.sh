#!/usr/bin/env bash
# The Debian package: dpkg-buildpackage -us -uc -b builds it (pg_buildext,
# debian/) in a scratch copy of the tree; it holds the library and every
# install and upgrade script; installed, CREATE EXTENSION (and the update from
# 0.1.0) works from its files alone.
# Installing it: as root against the system installation (SKETCH_PG_SANDBOX
# unset, as in CI) with dpkg -i, after which the package is removed and the
# tree's build installed again, so the tests that follow use the tree's; with
# SKETCH_PG_SANDBOX set, dpkg-deb -x into a private copy of PostgreSQL that
# holds no other sketchshare, where a throwaway cluster of its own runs.
# The build compiles the whole tree (about 6 CPU minutes), more on a busy
# machine; scripts/test.sh builds it while the other script tests run and
# names the folder that holds it in SKETCH_DEB_BUILT (with the build's exit
# status in its file "status"), so that this test only checks it.
# time limit: 2400
set -euo pipefail
: "${SKETCH_ROOT:?}" "${PGHOST:?}" "${PGPORT:?}"
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
source "$SKETCH_ROOT/scripts/lib.sh"
source "$SKETCH_ROOT/test/scripts/lib/debian_build.sh"
DB=sketchshare_debian_package
WORK=$(mktemp -d /tmp/$DB.XXXXXX)
chmod 755 "$WORK"
cleanup() { rm -rf "$WORK"; }
trap cleanup EXIT
version=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$SKETCH_ROOT/sketchshare.control")
revision=$(dpkg-parsechangelog -l "$SKETCH_ROOT/debian/changelog" -S Version)
[ "${revision%-*}" = "$version" ] || fail "debian/changelog is at $revision, the extension at $version"
package=postgresql-$PG_MAJOR-sketchshare
deb=${package}_${revision}_$(dpkg --print-architecture).deb

if [ -n "${SKETCH_DEB_BUILT:-}" ]; then
    built=$SKETCH_DEB_BUILT
    [ "$(cat "$built/status" 2>/dev/null)" = 0 ] ||
        { tail -40 "$built/build.log"; fail "dpkg-buildpackage (run by scripts/test.sh)"; }
    echo "ok: $deb was built while the other tests ran"
else
    built=$WORK
    echo "== dpkg-buildpackage"
    start=$SECONDS
    debian_build "$WORK" || { tail -40 "$WORK/build.log"; fail "dpkg-buildpackage"; }
    echo "ok: built $deb in $((SECONDS - start)) s"
fi
[ -f "$built/$deb" ] || { ls "$built"; fail "no $deb"; }

dpkg-deb -c "$built/$deb" | awk '{print $NF}' >"$WORK/contents"
for f in "lib/postgresql/$PG_MAJOR/lib/sketchshare.so" \
         "share/postgresql/$PG_MAJOR/extension/sketchshare.control" \
         "share/postgresql/$PG_MAJOR/extension/sketchshare--$version.sql" \
         "share/postgresql/$PG_MAJOR/extension/sketchshare--0.1.0.sql" \
         "share/postgresql/$PG_MAJOR/extension/sketchshare--0.1.0--0.2.0.sql" \
         "share/doc/$package/copyright" \
         "share/doc/$package/README.md.gz"; do
    grep -q "^\./usr/$f\$" "$WORK/contents" || { cat "$WORK/contents"; fail "the package lacks /usr/$f"; }
done
echo "ok: the package holds the library, the control file, the install and upgrade scripts, the docs"
dpkg-deb -f "$built/$deb" Depends | grep -q "postgresql-$PG_MAJOR" ||
    fail "the package does not depend on PostgreSQL $PG_MAJOR: $(dpkg-deb -f "$built/$deb" Depends)"

if [ -z "$SANDBOX" ]; then
    echo "== dpkg -i $deb"
    dpkg -i "$built/$deb" >"$WORK/install.log" 2>&1 || { cat "$WORK/install.log"; fail "dpkg -i"; }
    cleanup() {
        psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" || true
        dpkg -r "$package" >/dev/null || true
        build_and_install >/dev/null
        rm -rf "$WORK"
    }
    dpkg -S "/usr/lib/postgresql/$PG_MAJOR/lib/sketchshare.so" | grep -q "^$package: " ||
        fail "the installed library is not the package's"
    echo "ok: the system's sketchshare files are the package's"
else
    # A copy of the system's PostgreSQL without any sketchshare, and the
    # package's files over it.
    root=$WORK/root
    mkdir -p "$root/usr/lib/postgresql" "$root/usr/share/postgresql"
    cp -a "/usr/lib/postgresql/$PG_MAJOR" "$root/usr/lib/postgresql/"
    cp -a "/usr/share/postgresql/$PG_MAJOR" "$root/usr/share/postgresql/"
    rm -f "$root/usr/lib/postgresql/$PG_MAJOR/lib/sketchshare.so" "$root/usr/share/postgresql/$PG_MAJOR/extension/sketchshare"*
    dpkg-deb -x "$built/$deb" "$root"
    PG_BIN=$root/usr/lib/postgresql/$PG_MAJOR/bin
    cluster_start own >/dev/null
    trap 'cluster_stop; cleanup' EXIT
    check "the server runs from the copy that holds the package's files" \
        "SELECT setting = '$root/usr/lib/postgresql/$PG_MAJOR/lib' FROM pg_config WHERE name = 'PKGLIBDIR'"
fi
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
export PGDATABASE=$DB

q "CREATE EXTENSION sketchshare" >/dev/null
check "CREATE EXTENSION from the package's files makes version $version" \
    "SELECT extversion = '$version' FROM pg_extension WHERE extname = 'sketchshare'"
check "the package's library answers" \
    "SELECT bloom_contains(bloom_agg(i, 100, 0.01), 7) AND reservoir_seen(reservoir_agg(i, 5)) = 100 FROM generate_series(1, 100) i"
check "... and makes shared objects" \
    "SELECT shared_cbf_create('pkg', 100) IS NOT NULL AND shared_cbf_add('pkg', 1) AND shared_drop('pkg')"
check "the package offers 0.1.0 and $version" \
    "SELECT array_agg(version ORDER BY version) = '{0.1.0,$version}' FROM pg_available_extension_versions WHERE name = 'sketchshare'"
q "DROP EXTENSION sketchshare" >/dev/null
q "CREATE EXTENSION sketchshare VERSION '0.1.0'" >/dev/null
q "ALTER EXTENSION sketchshare UPDATE" >/dev/null
check "0.1.0 installs and updates to $version from the package's files" \
    "SELECT extversion = '$version' FROM pg_extension WHERE extname = 'sketchshare'"
echo "all Debian package checks passed"
