#!/usr/bin/env bash
# docs/operations.md promises every SQLSTATE the extension raises: each one
# the code under src/ raises (an ERRCODE_* name, a MAKE_SQLSTATE or a literal
# SQLSTATE of a RAISE ... USING ERRCODE) must have a row in its table, a line
# that starts with the code in backquotes.
set -euo pipefail
: "${SKETCH_ROOT:?}"
source "$SKETCH_ROOT/test/scripts/lib/common.sh"

errcodes=$("${PG_CONFIG:-pg_config}" --includedir-server)/utils/errcodes.h
[ -f "$errcodes" ] || fail "no $errcodes (PostgreSQL's server headers)"
table=$SKETCH_ROOT/docs/operations.md

# ERRCODE_NAME -> its five characters, from PostgreSQL's own header.
sqlstate_of() {
    sed -n "s/^#define $1 MAKE_SQLSTATE('\(.\)','\(.\)','\(.\)','\(.\)','\(.\)').*/\1\2\3\4\5/p" "$errcodes"
}

raised=()
for name in $(grep -rhoE '\bERRCODE_[A-Z0-9_]+' "$SKETCH_ROOT/src" | sort -u); do
    code=$(sqlstate_of "$name")
    [ -n "$code" ] || fail "$name, raised in src/, is not in $errcodes"
    raised+=("$code $name")
done
while read -r code; do
    raised+=("$code literal")
done < <(grep -rhoE "MAKE_SQLSTATE\('.','.','.','.','.'\)" "$SKETCH_ROOT/src" |
             sed "s/MAKE_SQLSTATE('\(.\)','\(.\)','\(.\)','\(.\)','\(.\)')/\1\2\3\4\5/";
         grep -rhoiE "ERRCODE\s*=\s*'[0-9A-Z]{5}'" "$SKETCH_ROOT/src" | grep -oE "[0-9A-Z]{5}")
[ ${#raised[@]} -gt 10 ] || fail "found only ${#raised[@]} SQLSTATEs in src/ (did the code's form change?)"

missing=0
for entry in "${raised[@]}"; do
    code=${entry%% *}
    if grep -q "^| \`$code\`" "$table"; then
        echo "ok: $entry"
    else
        echo "MISSING from the SQLSTATE table of docs/operations.md: $entry"
        missing=$((missing + 1))
    fi
done
[ "$missing" -eq 0 ] || fail "$missing SQLSTATE(s) raised in src/ are not in docs/operations.md's table"
echo "all ${#raised[@]} SQLSTATEs raised in src/ are in docs/operations.md's table"
