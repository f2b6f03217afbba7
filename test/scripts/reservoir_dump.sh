#!/usr/bin/env bash
# Stored reservoirs survive pg_dump / restore and binary COPY into a database
# where their item type has a different OID: the external forms name the item
# type (schema-qualified) and carry items through the item type's own I/O.
# Reservoirs whose item type was dropped or altered after they were stored
# (DROP TYPE, DROP DOMAIN, ALTER TYPE ... ALTER ATTRIBUTE) do not break the
# dump: they read, dump and restore as reservoirs of their items' text forms.
set -euo pipefail
BIN=$("${PG_CONFIG:-pg_config}" --bindir)
PSQL=(psql -X -q -v ON_ERROR_STOP=1)
SRC=reservoir_dump_src
DST=reservoir_dump_dst
"${PSQL[@]}" -d postgres -c "DROP DATABASE IF EXISTS $SRC" -c "DROP DATABASE IF EXISTS $DST" \
    -c "CREATE DATABASE $SRC" -c "CREATE DATABASE $DST"
"${PSQL[@]}" -d "$SRC" <<'SQL'
CREATE EXTENSION sketchshare;
CREATE SCHEMA app;
CREATE TYPE app.mood AS ENUM ('sad', 'ok', 'happy');
CREATE TYPE app.pair AS (a int, b text);
CREATE TABLE app.samples (name text PRIMARY KEY, r reservoir);
SET sketchshare.seed = 'dump';
INSERT INTO app.samples
SELECT 'moods', reservoir_agg((ARRAY['sad', 'ok', 'happy']::app.mood[])[1 + x % 3], 5) FROM generate_series(1, 100) x
UNION ALL SELECT 'weighted', reservoir_agg(x, 4, x) FROM generate_series(1::bigint, 1000) x
UNION ALL SELECT 'text', reservoir_agg(md5(x::text) || E'\n\t"', 3) FROM generate_series(1, 50) x
UNION ALL SELECT 'pairs', reservoir_agg(ROW(x, x::text)::app.pair, 2) FROM generate_series(1, 9) x;
-- item types changed or dropped under stored values
CREATE TYPE app.gone AS ENUM ('red', 'green');
CREATE TYPE app.shape AS (a int, b text);
-- (a domain over oid: one over a type with its own aggregate overload, such as int,
-- takes that overload and its samples are of the base type, docs/citus.md)
CREATE DOMAIN app.positive AS oid CHECK (VALUE > 0);
INSERT INTO app.samples
SELECT 'gone', reservoir_agg(c, 5) FROM unnest(ARRAY['red', 'green', 'red']::app.gone[]) c
UNION ALL SELECT 'shape', reservoir_agg(ROW(x, 's' || x)::app.shape, 3, x) FROM generate_series(1, 3) x
UNION ALL SELECT 'positive', reservoir_agg(x::app.positive, 4) FROM generate_series(1, 2) x;
DROP TYPE app.gone;
ALTER TYPE app.shape ALTER ATTRIBUTE a TYPE bigint;
DROP DOMAIN app.positive;
SQL
# Unrelated types first, so app.mood gets another OID in the destination.
"${PSQL[@]}" -d "$DST" -c "CREATE TYPE filler_a AS ENUM ('x'); CREATE TYPE filler_b AS (a int, b int);"
"$BIN/pg_dump" -d "$SRC" | "${PSQL[@]}" -d "$DST" >/dev/null

src_oid=$(psql -X -At -d "$SRC" -c "SELECT 'app.mood'::regtype::oid")
dst_oid=$(psql -X -At -d "$DST" -c "SELECT 'app.mood'::regtype::oid")
echo "app.mood: OID $src_oid in the source, $dst_oid after restore"
[ "$src_oid" != "$dst_oid" ]

QUERY="SELECT name, r::text FROM app.samples ORDER BY name"
diff <(psql -X -At -d "$SRC" -c "$QUERY") <(psql -X -At -d "$DST" -c "$QUERY")
psql -X -At -d "$DST" -c "SELECT reservoir_items(r, NULL::app.mood) FROM app.samples WHERE name = 'moods'"
test "$(psql -X -At -d "$DST" -c "SELECT bool_and(m IN ('sad', 'ok', 'happy')) AND count(*) = 5
    FROM app.samples, unnest(reservoir_items(r, NULL::app.mood)) m WHERE name = 'moods'")" = t
# the values whose type went: their items as text, on both sides
ITEMS="SELECT name, reservoir_stats(r) ->> 'type', reservoir_seen(r),
    array(SELECT i FROM unnest(reservoir_items(r, NULL::text)) i ORDER BY 1)
    FROM app.samples WHERE name IN ('gone', 'shape', 'positive') ORDER BY name"
expected="gone|pg_catalog.text|3|{green,red,red}
positive|pg_catalog.text|2|{1,2}
shape|pg_catalog.text|3|{\"(1,s1)\",\"(2,s2)\",\"(3,s3)\"}"
diff <(echo "$expected") <(psql -X -At -d "$SRC" -c "$ITEMS")
diff <(echo "$expected") <(psql -X -At -d "$DST" -c "$ITEMS")

# binary COPY between the databases (reservoir_send / reservoir_recv)
"${PSQL[@]}" -d "$DST" -c "CREATE TABLE app.copied (LIKE app.samples)"
psql -X -d "$SRC" -c "COPY app.samples TO STDOUT (FORMAT binary)" |
    "${PSQL[@]}" -d "$DST" -c "COPY app.copied FROM STDIN (FORMAT binary)"
QUERY2="SELECT name, r::text FROM app.%s ORDER BY name"
diff <(psql -X -At -d "$SRC" -c "$(printf "$QUERY2" samples)") <(psql -X -At -d "$DST" -c "$(printf "$QUERY2" copied)")

"${PSQL[@]}" -d postgres -c "DROP DATABASE $SRC" -c "DROP DATABASE $DST"
echo "reservoir values survived dump/restore and binary COPY"
