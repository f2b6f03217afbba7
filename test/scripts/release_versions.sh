#!/usr/bin/env bash
# The release's version is one number everywhere: sketchshare.control's
# default_version, the Makefile's EXTVERSION, META.json (valid JSON, PGXN
# meta-spec 1.0.0), debian/changelog and CHANGELOG.md; and the chain of
# scripts reaches it: every upgrade script starts from a release whose install
# script is kept in sql-history/, and one ends at this version.
set -euo pipefail
: "${SKETCH_ROOT:?}"
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
cd "$SKETCH_ROOT"

version=$(sed -n "s/^default_version = '\(.*\)'/\1/p" sketchshare.control)
[ -n "$version" ] || fail "no default_version in sketchshare.control"
echo "ok: default_version is $version"
make_version=$(sed -n 's/^EXTVERSION *= *//p' Makefile)
[ "$make_version" = "$version" ] || fail "Makefile's EXTVERSION is $make_version"
echo "ok: the Makefile's EXTVERSION too"

meta=$(python3 - "$version" <<'PY'
import json, sys
version = sys.argv[1]
try:
    meta = json.load(open("META.json"))
except ValueError as e:
    print("not valid JSON: %s" % e)
    sys.exit(0)
problems = []
def expect(what, got, want):
    if got != want:
        problems.append("%s is %r, not %r" % (what, got, want))
for key in ("name", "abstract", "version", "maintainer", "license", "provides", "meta-spec"):
    if key not in meta:
        problems.append("no %s" % key)
expect("name", meta.get("name"), "sketchshare")
expect("version", meta.get("version"), version)
expect("license", meta.get("license"), "postgresql")
expect("meta-spec version", meta.get("meta-spec", {}).get("version"), "1.0.0")
provided = meta.get("provides", {}).get("sketchshare", {})
expect("provides.sketchshare.version", provided.get("version"), version)
expect("provides.sketchshare.file", provided.get("file"), "sketchshare--%s.sql" % version)
expect("the PostgreSQL prerequisite",
       meta.get("prereqs", {}).get("runtime", {}).get("requires", {}).get("PostgreSQL"), "15.0.0")
print("; ".join(problems))
PY
) || fail "$meta"
[ -z "$meta" ] || fail "META.json: $meta"
echo "ok: META.json is valid and says $version (release, provides, file)"

deb=$(dpkg-parsechangelog -l debian/changelog -S Version)
[ "${deb%-*}" = "$version" ] || fail "debian/changelog is at $deb"
echo "ok: debian/changelog is at $deb"
grep -q "^## $version\b" CHANGELOG.md || fail "CHANGELOG.md has no section for $version"
echo "ok: CHANGELOG.md has a section for $version"
grep -q 'PostgreSQL License' LICENSE || fail "LICENSE is not the PostgreSQL License"
grep -q 'LICENSE' sketchshare.control || fail "sketchshare.control does not name the license"
echo "ok: LICENSE, named in sketchshare.control"

reached=no
for step in sketchshare--*--*.sql; do
    from=${step#sketchshare--}
    from=${from%%--*}
    to=${step##*--}
    to=${to%.sql}
    [ -f "sql-history/sketchshare--$from.sql" ] || fail "$step starts from $from, whose install script is not in sql-history/"
    head -1 "$step" | grep -qx -- "-- sketchshare $from -> $to (ALTER EXTENSION sketchshare UPDATE)" ||
        fail "$step does not begin with its header line"
    [ "$to" != "$version" ] || reached=yes
done
[ "$reached" = yes ] || fail "no upgrade script ends at $version"
[ ! -e "sql-history/sketchshare--$version.sql" ] ||
    fail "sql-history/ keeps released install scripts; $version's is assembled from src/sql"
echo "ok: every upgrade script starts from a kept release, and one ends at $version"
