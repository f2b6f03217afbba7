-- Type modifiers: bloom(n, fpr[, layout]) and cbf(capacity[, fpr]) fix a
-- column's geometry; checked on INSERT, UPDATE, INSERT ... SELECT, COPY,
-- literals and casts; bad modifiers are refused when the type is named.
CREATE FUNCTION pg_temp.err(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE q;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

-- What format_type (and \d, and pg_dump) show: the rounded declaration.
CREATE TEMP TABLE tm_shown (
    plain bloom,
    default_layout bloom(1000000, 0.01),
    rounded bloom(1234567, 0.013, 'classic'),
    identifier_layout bloom(1e6, 1e-4, fast_multiblock64),
    canonical_layout bloom(5000, 0.05, 'block<uint64[2], 7>'),
    exact_small bloom(7, 0.5, 'cbf<3>'),
    cbf_default_fpr cbf(1000),
    cbf_fpr cbf(2500, 0.001));
SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute
WHERE attrelid = 'tm_shown'::regclass AND attnum > 0 ORDER BY attnum;

CREATE TABLE tm_bloom (id int, f bloom(1000, 0.01));
CREATE TABLE tm_cbf (id int, f cbf(1000));
\d tm_bloom
\d tm_cbf

-- The filters bloom_empty, bloom_agg and cbf_empty make from the same sizing fit.
INSERT INTO tm_bloom VALUES (1, bloom_empty(1000, 0.01));
INSERT INTO tm_bloom SELECT 2, bloom_agg(g, 1000, 0.01) FROM generate_series(1, 100) g;
INSERT INTO tm_bloom VALUES (3, bloom_empty(1000, 0.01, seed => 7));  -- the seed is not fixed
INSERT INTO tm_cbf VALUES (1, cbf_empty(1000)), (2, cbf_empty(1000, 0.01));
INSERT INTO tm_cbf SELECT 3, cbf_agg(g, 1000) FROM generate_series(1, 100) g;
SELECT count(*) AS bloom_rows FROM tm_bloom;
SELECT count(*) AS cbf_rows FROM tm_cbf;

-- Other geometries do not, by any path.
SELECT pg_temp.err($$INSERT INTO tm_bloom VALUES (9, bloom_empty(2000, 0.01))$$) AS insert_other_n;
SELECT pg_temp.err($$INSERT INTO tm_bloom VALUES (9, bloom_empty(1000, 0.01, 'classic'))$$) AS insert_other_layout;
SELECT pg_temp.err($$INSERT INTO tm_bloom SELECT 9, bloom_agg(g, 1000, 0.001) FROM generate_series(1, 10) g$$) AS insert_select;
SELECT pg_temp.err($$UPDATE tm_bloom SET f = bloom_empty(1000, 0.1) WHERE id = 1$$) AS update;
SELECT pg_temp.err($$INSERT INTO tm_bloom VALUES (9, bloom_empty(10, 0.01)::text::bloom)$$) AS through_text;
SELECT pg_temp.err(format('INSERT INTO tm_bloom VALUES (9, %L)', bloom_empty(10, 0.01)::text)) AS literal;
SELECT pg_temp.err($$SELECT bloom_empty(10, 0.01)::bloom(1000, 0.01)$$) AS explicit_cast;
SELECT pg_temp.err($$SELECT bloom_to_bytea(bloom_empty(10, 0.01))::bloom(1000, 0.01)$$) AS from_bytea;
SELECT pg_temp.err($$INSERT INTO tm_cbf VALUES (9, cbf_empty(100000))$$) AS cbf_insert;
SELECT pg_temp.err($$UPDATE tm_cbf SET f = cbf_empty(1000, 0.001)$$) AS cbf_update;
SELECT pg_temp.err(format('INSERT INTO tm_cbf VALUES (9, %L)', cbf_empty(10)::text)) AS cbf_literal;
SELECT pg_temp.err($$SELECT cbf_empty(10)::bytea::cbf(1000)$$) AS cbf_from_bytea;
-- A block filter of the same counters and hashes as the type's classic ones.
SELECT b->'counters' = c->'counters' AND b->'hashes' = c->'hashes' AS block_same_counters
FROM (SELECT cbf_stats(cbf_empty(1483, 0.01, 'block<7>')) AS b, cbf_stats(cbf_empty(1000)) AS c) s;
SELECT pg_temp.err($$INSERT INTO tm_cbf VALUES (9, cbf_empty(1483, 0.01, 'block<7>'))$$) AS cbf_block_layout;
-- The message names both geometries.
\set VERBOSITY default
INSERT INTO tm_bloom VALUES (9, bloom_empty(2000, 0.01));
INSERT INTO tm_cbf VALUES (9, cbf_empty(100000));
\set VERBOSITY terse

-- A filter of the right geometry passes an explicit cast and a literal.
SELECT bloom_info(bloom_empty(1000, 0.01)::bloom(1000, 0.01))->>'capacity_bits' AS cast_bits;
INSERT INTO tm_bloom SELECT 4, f::text::bloom FROM tm_bloom WHERE id = 2;
SELECT id, bloom_contains(f, 50) AS has_50 FROM tm_bloom ORDER BY id;

-- COPY checks what it reads (the input function gets the column's modifier).
CREATE TEMP TABLE tm_loose (id int, f bloom);
INSERT INTO tm_loose VALUES (1, bloom_empty(1000, 0.01)), (2, bloom_empty(1000, 0.02));
COPY tm_loose TO '/tmp/sketchshare_type_modifiers.copy';
CREATE TEMP TABLE tm_strict (id int, f bloom(1000, 0.01));
SELECT pg_temp.err($$COPY tm_strict FROM '/tmp/sketchshare_type_modifiers.copy'$$) AS copy_mismatch;
SELECT count(*) AS copied_nothing FROM tm_strict;
DELETE FROM tm_loose WHERE id = 2;
COPY tm_loose TO '/tmp/sketchshare_type_modifiers.copy';
COPY tm_strict FROM '/tmp/sketchshare_type_modifiers.copy';
SELECT count(*) AS copied FROM tm_strict;
-- and so does COPY BINARY (the receive function gets it too)
INSERT INTO tm_loose VALUES (2, bloom_empty(1000, 0.02));
COPY tm_loose TO '/tmp/sketchshare_type_modifiers.copy' WITH (FORMAT binary);
SELECT pg_temp.err($$COPY tm_strict FROM '/tmp/sketchshare_type_modifiers.copy' WITH (FORMAT binary)$$) AS binary_mismatch;
DELETE FROM tm_loose WHERE id = 2;
COPY tm_loose TO '/tmp/sketchshare_type_modifiers.copy' WITH (FORMAT binary);
COPY tm_strict FROM '/tmp/sketchshare_type_modifiers.copy' WITH (FORMAT binary);
SELECT count(*) AS copied_binary FROM tm_strict;
-- The copy's file goes (pg_regress runs as a superuser).
COPY (SELECT WHERE false) TO PROGRAM 'rm -f /tmp/sketchshare_type_modifiers.copy';

-- An unmodified column holds any geometry, as before.
INSERT INTO tm_loose VALUES (3, bloom_empty(10, 0.5, 'classic'));
SELECT count(*) AS loose_rows FROM tm_loose;

-- Bad modifiers: refused where the type is named.
SELECT pg_temp.err($$SELECT 'bloom(1000)'::regtype$$) AS bloom_one_argument;
SELECT pg_temp.err($$SELECT 'bloom(1000, 0.01, ''classic'', 4)'::regtype$$) AS bloom_four_arguments;
SELECT pg_temp.err($$SELECT 'bloom(0, 0.01)'::regtype$$) AS n_zero;
SELECT pg_temp.err($$SELECT 'bloom(-5, 0.01)'::regtype$$) AS n_negative;
SELECT pg_temp.err($$SELECT 'bloom(10.5, 0.01)'::regtype$$) AS n_fraction;
SELECT pg_temp.err($$SELECT 'bloom(1e10, 0.01)'::regtype$$) AS n_too_large;
SELECT pg_temp.err($$SELECT 'bloom(many, 0.01)'::regtype$$) AS n_not_a_number;
SELECT pg_temp.err($$SELECT 'bloom(1000, 0)'::regtype$$) AS fpr_zero;
SELECT pg_temp.err($$SELECT 'bloom(1000, 1)'::regtype$$) AS fpr_one;
SELECT pg_temp.err($$SELECT 'bloom(1000, -0.1)'::regtype$$) AS fpr_negative;
SELECT pg_temp.err($$SELECT 'bloom(1000, 0.97)'::regtype$$) AS fpr_rounds_to_one;
SELECT pg_temp.err($$SELECT 'bloom(1000, 1e-16)'::regtype$$) AS fpr_too_small;
SELECT pg_temp.err($$SELECT 'bloom(1000, 0.01, ''nope'')'::regtype$$) AS unknown_layout;
SELECT pg_temp.err($$SELECT 'bloom(1000, 0.01, ''2*block<uint64>'')'::regtype$$) AS layout_with_k;
SELECT pg_temp.err($$SELECT 'bloom(1000, 0.01, ''block<uint64,3>/4'')'::regtype$$) AS layout_with_stride;
SELECT pg_temp.err($$SELECT 'bloom(9990000000, 1e-15)'::regtype$$) AS too_many_bits;
SELECT pg_temp.err($$SELECT 'cbf(1000, 0.01, 4)'::regtype$$) AS cbf_three_arguments;
SELECT pg_temp.err($$SELECT 'cbf(0)'::regtype$$) AS cbf_zero;
SELECT pg_temp.err($$SELECT 'cbf(1000, 2)'::regtype$$) AS cbf_fpr_two;
SELECT pg_temp.err($$SELECT 'cbf(9990000000)'::regtype$$) AS cbf_too_many_counters;
SELECT pg_temp.err($$CREATE TABLE tm_bad (f bloom(0, 0.01))$$) AS create_table;
-- The typmod_in functions called directly, with what the parser never passes:
-- refused as PostgreSQL's own typmod_in functions refuse it, not as XX000.
SELECT pg_temp.err($$SELECT bloom_typmod_in(ARRAY['1000', NULL]::cstring[])$$) AS bloom_null_text;
SELECT pg_temp.err($$SELECT cbf_typmod_in(ARRAY[NULL]::cstring[])$$) AS cbf_null_text;
SELECT pg_temp.err($$SELECT bloom_typmod_in(ARRAY[['1000', '0.01']]::cstring[])$$) AS bloom_two_dimensions;

DROP TABLE tm_bloom, tm_cbf;
