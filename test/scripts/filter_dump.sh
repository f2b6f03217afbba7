#!/usr/bin/env bash
# Stored bloom and cbf values (beside reservoirs) survive pg_dump / restore,
# plain and custom format, and binary COPY: every restored value is equal (=)
# to the source's, byte for byte in its text form, and to the value the same
# aggregate builds afresh in the restored database. Small filters (plain
# aggregate states) and large ones (the buffered states, compressed or stored
# out of line uncompressed), several layouts, a seed, a NULL.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
BIN=$("${PG_CONFIG:-pg_config}" --bindir)
PSQL=(psql -X -q -v ON_ERROR_STOP=1)
SRC=filter_dump_src
DST=filter_dump_dst
"${PSQL[@]}" -d postgres -c "DROP DATABASE IF EXISTS $SRC" -c "DROP DATABASE IF EXISTS $DST" -c "CREATE DATABASE $SRC"

# How each row is built: the script rebuilds it in the destination to compare.
BUILD="
SELECT 'small', bloom_agg(x, 1000, 0.01), cbf_agg(x, 1000), reservoir_agg(x, 10000) FROM generate_series(1, 500) x
UNION ALL SELECT 'large', bloom_agg(x, 2000000, 0.01), cbf_agg(x, 200000), reservoir_agg(x, 2, x) FROM generate_series(1, 5000) x
UNION ALL SELECT 'text_layout', bloom_agg(md5(x::text), 5000, 0.001, 'block<uint64,5>'), cbf_agg(md5(x::text), 5000, 0.001),
                 reservoir_agg(md5(x::text), 3) FROM generate_series(1, 800) x
UNION ALL SELECT 'stride', bloom_agg(x, 300000, 0.02, '2*fast_multiblock64<5>/1'), cbf_agg(x % 7, 100),
                 reservoir_agg(NULL::int, 3) FROM generate_series(1, 3000) x
UNION ALL SELECT 'seeded', bloom_add(bloom_empty(100, 0.01, 'classic', -42), 7), cbf_add(cbf_add(cbf_empty(50), 'a'::text), 'a'::text),
                 NULL
UNION ALL SELECT 'null', NULL, NULL, NULL"

"${PSQL[@]}" -d "$SRC" <<SQL
CREATE EXTENSION sketchshare;
CREATE TABLE filters (name text PRIMARY KEY, b bloom, c cbf, r reservoir);
SET sketchshare.seed = 'filter_dump';
INSERT INTO filters $BUILD;
-- columns of one geometry: pg_dump writes their type modifiers, the restore checks each value
CREATE TABLE fixed (b bloom(5000, 0.001, 'block<uint64,5>'), c cbf(5000, 0.001));
INSERT INTO fixed SELECT b, c FROM filters WHERE name = 'text_layout';
SQL

QUERY="SELECT name, md5(b::text), md5(c::text), md5(r::text) FROM filters ORDER BY name"
# restored_equal DB: DB's filters hold the source's values, and the values the
# aggregates build in DB (reservoirs are random: only their bloom and cbf).
restored_equal() {
    diff <(psql -X -At -d "$SRC" -c "$QUERY") <(psql -X -At -d "$1" -c "$QUERY") || fail "$1: values differ from the source's"
    PGDATABASE=$1 check "$1: = the aggregates rebuilt there" "
        SELECT count(*) = 6 AND bool_and(f.b IS NOT DISTINCT FROM n.b AND f.c IS NOT DISTINCT FROM n.c
                                         AND (f.r IS NULL) = (n.r IS NULL))
        FROM filters f JOIN ($BUILD) n(name, b, c, r) USING (name)"
    PGDATABASE=$1 check "$1: members found" "
        SELECT bool_and(b @> 499 AND c @> 499 AND cbf_count_of(c, 499) = 1) FROM filters WHERE name IN ('small', 'large')"
    PGDATABASE=$1 check "$1: the columns of one geometry and their value" "
        SELECT (SELECT string_agg(format_type(atttypid, atttypmod), ' ' ORDER BY attnum) FROM pg_attribute
                WHERE attrelid = 'fixed'::regclass AND attnum > 0) = 'bloom(5000,0.001,''block<uint64,5>'') cbf(5000,0.001)'
           AND (SELECT count(*) FROM fixed f, filters g WHERE g.name = 'text_layout' AND f.b = g.b AND f.c = g.c) = 1"
}

"${PSQL[@]}" -d postgres -c "CREATE DATABASE $DST"
"$BIN/pg_dump" -d "$SRC" | "${PSQL[@]}" -d "$DST" >/dev/null
restored_equal "$DST"

"${PSQL[@]}" -d postgres -c "DROP DATABASE $DST" -c "CREATE DATABASE $DST"
"$BIN/pg_dump" -Fc -d "$SRC" | "$BIN/pg_restore" -d "$DST"
restored_equal "$DST"

# binary COPY (bloom_send / cbf_send / reservoir_send, then the receive functions)
"${PSQL[@]}" -d "$DST" -c "TRUNCATE filters"
psql -X -d "$SRC" -c "COPY filters TO STDOUT (FORMAT binary)" |
    "${PSQL[@]}" -d "$DST" -c "COPY filters FROM STDIN (FORMAT binary)"
restored_equal "$DST"

"${PSQL[@]}" -d postgres -c "DROP DATABASE $SRC" -c "DROP DATABASE $DST"
echo "bloom, cbf and reservoir values survived dump/restore and binary COPY"
