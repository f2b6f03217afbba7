#!/usr/bin/env bash
# Values and shared object files made by earlier releases (test/fixtures/VERSION,
# made by test/fixtures/make_fixtures.sh) read with this library and answer
# what they answered when they were made; a value or file whose format version
# is newer than this library knows is refused with an error that says so.
set -euo pipefail
: "${SKETCH_ROOT:?}" "${PGHOST:?}" "${PGPORT:?}"
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
start_test sketchshare_format_fixtures
fixtures=$SKETCH_ROOT/test/fixtures

# load VERSION: the version's values into a fresh table fixture, its object
# files attached under their names (copied first where the server may read them).
load() {
    local dir=$fixtures/$1 obj name
    q "DROP TABLE IF EXISTS fixture" >/dev/null
    psql -X -q -v ON_ERROR_STOP=1 -f "$fixtures/table.sql" \
        -c "\\copy fixture FROM '$dir/values.csv' (FORMAT csv, HEADER)"
    for obj in "$dir"/*.obj; do
        name=$(basename "$obj" .obj)
        cp "$obj" "$WORK/$name"
        chmod 644 "$WORK/$name"
        q "SELECT shared_drop('$name', true)" >/dev/null
        q "SELECT shared_attach('$name', '$WORK/$name')" >/dev/null
    done
}

versions=0
for dir in "$fixtures"/*/; do
    version=$(basename "$dir")
    load "$version"
    check "$version: every value was loaded" "SELECT count(*) >= 13 FROM fixture"
    psql -X -At -v ON_ERROR_STOP=1 -f "$dir/answers.sql" >"$WORK/answers.$version" 2>&1 ||
        { cat "$WORK/answers.$version"; fail "$version: reading the fixtures"; }
    diff -u "$dir/answers.out" "$WORK/answers.$version" ||
        fail "$version: the fixtures answer differently (diff above: recorded, now)"
    echo "ok: $version: $(wc -l <"$dir/answers.out") lines of answers as recorded"
    if [ "$version" = 0.1.0 ]; then
        check "0.1.0: shared filters read as fixed-size, nothing counted" \
            "SELECT bool_and(expansion = 0 AND items_held = 0) FROM shared_objects WHERE name IN ('bloom_obj', 'cbf_obj')"
    fi
    versions=$((versions + 1))
done
[ "$versions" -ge 1 ] || fail "no fixtures in $fixtures"

# A format version no library has written yet (255), in each type's text and
# binary input and in an object file's header.
bloom="(SELECT bin FROM fixture WHERE name = 'classic')"
check_error "a bloom of a newer format (binary)" "format version 255" \
    "SELECT overlay($bloom PLACING '\\xff' FROM 1)::bloom"
check_error "a bloom of a newer format (text)" "format version 255" \
    "SELECT overlay($bloom PLACING '\\xff' FROM 1)::text::bloom"
cbf="(SELECT bin FROM fixture WHERE name = 'counts')"
check_error "a cbf of a newer format (binary)" "format version 255" \
    "SELECT overlay($cbf PLACING '\\xff' FROM 1)::cbf"
check_error "a cbf of a newer format (text)" "format version 255" \
    "SELECT overlay($cbf PLACING '\\xff' FROM 1)::text::cbf"
check_error "a reservoir of a newer format (binary)" "format version 255" \
    "SELECT overlay(bin PLACING '\\xff' FROM 1)::reservoir FROM fixture WHERE name = 'uniform'"
check_error "a reservoir of a newer format (text)" "format version 255" \
    "SELECT regexp_replace(txt, '\"version\": [0-9]+', '\"version\": 255')::reservoir FROM fixture WHERE name = 'uniform'"
# The file's format version is the 32-bit word after the 8-byte magic.
for obj in "$fixtures/$version"/*.obj; do
    name=$(basename "$obj" .obj)
    cp "$obj" "$WORK/newer"
    chmod 644 "$WORK/newer"
    put_u32 "$WORK/newer" 8 255
    check_error "an object file of a newer format ($name)" 'has format version 255; this build reads version' \
        "SELECT shared_attach('newer_$name', '$WORK/newer')"
    rm -f "$WORK/newer"
done
echo "all format fixture checks passed"
