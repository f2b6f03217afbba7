-- bloom: layouts, sizing, items, operators, I/O
SET extra_float_digits = 0;

-- Sizing: the default layout and explicit ones (K' chosen when omitted).
SELECT bloom_capacity_for(1000000, 0.01) AS default_bits,
       bloom_capacity_for(1000000, 0.01, 'classic') AS classic_bits,
       bloom_capacity_for(1000000, 0.01, 'block<uint64,5>') AS block_bits,
       bloom_capacity_for(1000000, 0.01, 'fast_multiblock32<8>') AS fm32_8_bits;
SELECT round(bloom_fpr_for(1000000, 9585059, 'classic<7>')::numeric, 5) AS classic7,
       round(bloom_fpr_for(1000000, 10000000, 'fast_multiblock32')::numeric, 5) AS fm32_best,
       bloom_fpr_for(0, 100, 'classic<3>') AS no_items,
       bloom_fpr_for(10, 0, 'classic<3>') AS no_bits,
       bloom_fpr_for(9223372036854775807, 1000, 'classic<7>') AS saturated;
-- fpr_for and capacity_for agree
SELECT bloom_fpr_for(50000, bloom_capacity_for(50000, 0.001, l), l) <= 0.001 AS meets_target, l
FROM unnest(ARRAY['classic<7>', 'block<uint64,5>', 'multiblock<uint64[8],3>', 'fast_multiblock32<8>',
                  'fast_multiblock64<5>/1', 'cbf<7>']) AS l;

-- Every layout family, canonical names, K' chosen for n and fpr.
SELECT l AS spec, i->>'layout' AS layout, i->'k' AS k, i->'kp' AS kp, i->'stride' AS stride,
       i->'capacity_bits' AS bits, i->'bits_set' AS set
FROM unnest(ARRAY['classic', 'classic<7>', 'block<uint8>', 'block<uint16,3>', 'block<uint32>', 'block<uint64,5>',
                  'block<uint64[2]>', 'block<uint64[4]>', 'block<uint64[8],9>', 'multiblock<uint8>',
                  'multiblock<uint16>', 'multiblock<uint32,8>', 'multiblock<uint64>', 'multiblock<uint64[2]>',
                  'multiblock<uint64[4]>', 'multiblock<uint64[8],3>', 'fast_multiblock32', 'fast_multiblock32<8>',
                  'fast_multiblock64', 'fast_multiblock64<5>/1', '2*fast_multiblock32<7>/4', 'block<uint64,5>/8',
                  ' Block < uint64_t , 5 > ', 'cbf<7>']) AS l,
     LATERAL (SELECT bloom_info(bloom_empty(10000, 0.01, l)) AS i) x;

-- The default layout and the whole info record.
SELECT bloom_info(bloom_empty(1000000, 0.01));
SELECT bloom_info(bloom_empty(1000, 0.0001, 'classic', 42));
SELECT bloom_info(bloom_empty_bits(1000, 'block<uint64,5>'));
SELECT bloom_info(bloom_empty_bits(1000, 'cbf<3>')) ->> 'capacity_bits' AS cbf_bits_power_of_two;

-- Items: no false negatives; sketch_hash's canonical forms (any integer width).
SELECT bloom_contains(bloom_add(bloom_empty(100, 0.01), 42), 42) AS has_42,
       bloom_contains(bloom_add(bloom_empty(100, 0.01), 42), 43) AS has_43,
       bloom_contains(bloom_add(bloom_empty(100, 0.01), 42::int2), 42::bigint) AS int2_as_bigint,
       bloom_contains(bloom_add(bloom_empty(100, 0.01), 'abc'), 'abc') AS literal,
       bloom_contains(bloom_add(bloom_empty(100, 0.01), 'abc'::varchar), 'abc'::text) AS varchar_as_text,
       bloom_add(bloom_empty(100, 0.01), 42) @> 42 AS op_contains,
       bloom_add(bloom_empty(100, 0.01), 'x') @> 'x' AS op_literal,
       bloom_add(bloom_empty(100, 0.01), NULL::int) = bloom_empty(100, 0.01) AS null_adds_nothing,
       bloom_contains(bloom_empty(100, 0.01), NULL::int) IS NULL AS null_lookup;
-- A seed changes the probes; the filter remembers it.
SELECT bloom_contains(bloom_add(bloom_empty(100, 0.01, NULL, 7), 'a'), 'a') AS seeded,
       bloom_add(bloom_empty(100, 0.01, NULL, 7), 'a') <> bloom_add(bloom_empty(100, 0.01, NULL, 8), 'a') AS seeds_differ;

-- Every layout: all members found, FPR near its target, estimated count near n.
CREATE TEMP TABLE layouts(spec text);
INSERT INTO layouts VALUES ('classic'), ('block<uint8>'), ('block<uint16>'), ('block<uint32>'), ('block<uint64>'),
    ('block<uint64[2]>'), ('block<uint64[4]>'), ('block<uint64[8]>'), ('multiblock<uint8>'), ('multiblock<uint16>'),
    ('multiblock<uint32>'), ('multiblock<uint64>'), ('multiblock<uint64[2]>'), ('multiblock<uint64[4]>'),
    ('multiblock<uint64[8]>'), ('fast_multiblock32'), ('fast_multiblock64'), ('fast_multiblock32/4'),
    ('fast_multiblock64/1'), ('2*block<uint64,3>/2'), ('cbf<7>');
CREATE TEMP TABLE built AS
SELECT spec, (SELECT bloom_agg(i, 10000, 0.01, spec) FROM generate_series(1, 10000) i) AS f FROM layouts;
-- false positives over 50000 non-members: within 4 sd (+5%) of bloom_fpr_for at the real capacity
SELECT spec,
       (SELECT count(*) FROM generate_series(1, 10000) i WHERE NOT f @> i) AS false_negatives,
       abs(fp - expected) <= 4 * sqrt(expected) + 0.05 * expected AS fpr_as_predicted,
       expected < 500 AS meets_1pct,
       abs(bloom_estimated_count(f) / 10000 - 1) < 0.05 AS count_within_5pct
FROM built,
     LATERAL (SELECT count(*) AS fp FROM generate_series(10001, 60000) i WHERE f @> i) m,
     LATERAL (SELECT 50000 * bloom_fpr_for(10000, (bloom_info(f)->>'capacity_bits')::bigint, bloom_info(f)->>'layout') AS expected) e
ORDER BY spec;

-- Operators and combination.
WITH a AS (SELECT bloom_agg(i, 1000, 0.01, 'block<uint64,5>') AS f FROM generate_series(1, 500) i),
     b AS (SELECT bloom_agg(i, 1000, 0.01, 'block<uint64,5>') AS f FROM generate_series(501, 1000) i),
     ab AS (SELECT bloom_agg(i, 1000, 0.01, 'block<uint64,5>') AS f FROM generate_series(1, 1000) i)
SELECT (a.f | b.f) = ab.f AS union_is_filter_of_both,
       bloom_union(a.f, b.f) = ab.f AS union_fn,
       (ab.f & a.f) = a.f AS intersect_with_superset,
       bloom_intersect(a.f, b.f) <> a.f AS intersect_shrinks,
       (a.f & b.f) @> 7 AS intersect_may_keep_nothing,
       bloom_estimated_count(a.f | b.f)::int BETWEEN 950 AND 1050 AS union_count
FROM a, b, ab;

-- Text, binary and bytea forms round-trip.
CREATE TEMP TABLE io AS SELECT bloom_agg(i, 100, 0.01, 'fast_multiblock32<5>/1') AS f FROM generate_series(1, 50) i;
SELECT f::text::bloom = f AS text_round_trip,
       f::bytea::bloom = f AS bytea_round_trip,
       length(f::bytea) AS binary_bytes,
       substr(f::bytea, 1, 28) AS header
FROM io;
SELECT bloom_out(bloom_empty_bits(64, 'classic<2>')) AS smallest_text;
-- (the file goes in the throwaway cluster's own data directory, gone with it)
SELECT current_setting('data_directory') || '/bloom_io_' || current_database() || '.bin' AS path \gset
COPY io TO :'path' WITH (FORMAT binary);
CREATE TEMP TABLE io2 (f bloom);
COPY io2 FROM :'path' WITH (FORMAT binary);
SELECT io.f = io2.f AS binary_round_trip FROM io, io2;
-- Big values are TOASTed and still read back.
CREATE TEMP TABLE big AS SELECT bloom_agg(i, 200000, 0.01) AS f FROM generate_series(1, 1000) i;
SELECT count(*) FILTER (WHERE f @> i) AS found FROM big, generate_series(1, 1000) i;
-- The same values in every stored form (large ones are read into memory on
-- huge pages by the extension's own detoasting): each reads as the value
-- built in memory, through every kind of function.
CREATE TEMP TABLE bloom_forms (form text, n bigint, items int, f bloom);
ALTER TABLE bloom_forms ALTER COLUMN f SET STORAGE external;
INSERT INTO bloom_forms SELECT 'external', 2000000, 1000, bloom_agg(i, 2000000, 0.01, 'classic') FROM generate_series(1, 1000) i;
ALTER TABLE bloom_forms ALTER COLUMN f SET STORAGE extended;
ALTER TABLE bloom_forms ALTER COLUMN f SET COMPRESSION pglz;
INSERT INTO bloom_forms SELECT 'pglz', 2000000, 1000, bloom_agg(i, 2000000, 0.01, 'classic') FROM generate_series(1, 1000) i;
ALTER TABLE bloom_forms ALTER COLUMN f SET COMPRESSION lz4;
INSERT INTO bloom_forms SELECT 'lz4', 2000000, 1000, bloom_agg(i, 2000000, 0.01, 'classic') FROM generate_series(1, 1000) i;
ALTER TABLE bloom_forms ALTER COLUMN f SET STORAGE main;
ALTER TABLE bloom_forms ALTER COLUMN f SET COMPRESSION pglz;
INSERT INTO bloom_forms SELECT 'inline pglz', 20000, 10, bloom_agg(i, 20000, 0.01, 'classic') FROM generate_series(1, 10) i;
ALTER TABLE bloom_forms ALTER COLUMN f SET COMPRESSION lz4;
INSERT INTO bloom_forms SELECT 'inline lz4', 20000, 10, bloom_agg(i, 20000, 0.01, 'classic') FROM generate_series(1, 10) i;
INSERT INTO bloom_forms SELECT 'short header', 1, 1, bloom_agg(i, 1, 0.01, 'classic') FROM generate_series(1, 1) i;
SELECT form, pg_column_compression(f) AS compression, pg_column_size(f) < 8000 AS inline_size,
       f = ref AS reads, (f | f) = ref AS union_reads, (f & ref) = ref AS intersect_reads,
       bloom_add(f, -1) = bloom_add(ref, -1) AND bloom_add(f, -1) <> f AS add_copies,
       bloom_info(f) = bloom_info(ref) AS info, f::text::bloom = ref AS text_round_trip,
       f::bytea::bloom = ref AS binary_round_trip
FROM bloom_forms, LATERAL (SELECT bloom_agg(i, n, 0.01, 'classic') AS ref FROM generate_series(1, items) i) r
ORDER BY form;
-- Lookups row by row read every stored form as its value: through a
-- subquery (the same bytes on every row; an in-line compressed one is
-- decompressed once, not per row) and in a join whose rows take turns among
-- the forms (the bytes change from row to row)
SELECT form, (SELECT count(*) FILTER (WHERE bloom_contains((SELECT f FROM bloom_forms b WHERE b.form = o.form), i))
              FROM generate_series(1, 2000) i) AS found,
       (SELECT count(*) FILTER (WHERE bloom_contains((SELECT f FROM bloom_forms b WHERE b.form = o.form), i)
                                      <> bloom_contains(ref, i))
        FROM generate_series(1, 2000) i) AS differ
FROM bloom_forms o, LATERAL (SELECT bloom_agg(i, n, 0.01, 'classic') AS ref FROM generate_series(1, items) i) r
ORDER BY form;
SELECT count(*) AS lookups, count(*) FILTER (WHERE bloom_contains(b.f, i) <> bloom_contains(r.ref, i)) AS differ
FROM generate_series(1, 2000) i CROSS JOIN bloom_forms b,
     LATERAL (SELECT bloom_agg(j, b.n, 0.01, 'classic') AS ref FROM generate_series(1, b.items) j) r;
-- bloom_contains_many reads them alike (it keeps the filter of a subquery
-- once per call site too), and checks a compressed one's items once
SELECT form, (SELECT count(*) FILTER (WHERE bloom_contains_many((SELECT f FROM bloom_forms b WHERE b.form = o.form), ARRAY[i, i + 2000])
                                      <> ARRAY[bloom_contains(ref, i), bloom_contains(ref, i + 2000)])
              FROM generate_series(1, 2000) i) AS differ
FROM bloom_forms o, LATERAL (SELECT bloom_agg(i, n, 0.01, 'classic') AS ref FROM generate_series(1, items) i) r
ORDER BY form;
SELECT count(*) AS lookups,
       count(*) FILTER (WHERE bloom_contains_many(b.f, ARRAY[i, -i]) <> bloom_contains_many(r.ref, ARRAY[i, -i])) AS differ
FROM generate_series(1, 2000) i CROSS JOIN bloom_forms b,
     LATERAL (SELECT bloom_agg(j, b.n, 0.01, 'classic') AS ref FROM generate_series(1, b.items) j) r;
SELECT count(*) FILTER (WHERE (bloom_contains_many((SELECT f FROM bloom_forms WHERE form = 'inline lz4'), ARRAY[i::text]))[1])
FROM generate_series(1, 3) i;
-- Version 3: a value records the n and fpr it was sized for (bloom_empty,
-- bloom_agg, cbf_to_bloom); bloom_empty_bits records none (version 2 form)
SELECT bloom_info(f)->>'version' AS version, bloom_info(f)->'capacity' AS capacity, bloom_info(f)->'fp_rate' AS fp_rate,
       get_byte(f::bytea, 0) AS first_byte, length(f::bytea) - (bloom_info(f)->>'bytes')::int AS header_bytes,
       f::text::bloom = f AS text_round_trip, f::bytea::bloom = f AS bytea_round_trip,
       bloom_info(f::text::bloom)->'capacity' AS capacity_read_back,
       bloom_contains(f::text::bloom, 7) AS item_read_back
FROM (SELECT bloom_add(bloom_empty(100, 0.01), 7) AS f) s;
SELECT bloom_info(f)->>'version' AS version, bloom_info(f)->'capacity' AS capacity, length(f::bytea) - 128 AS header_bytes
FROM (SELECT bloom_add(bloom_empty_bits(1024, 'block<uint64,5>'), 7) AS f) s;
-- a union keeps the first value's n and fpr; equality compares the filters, not them
SELECT bloom_info(sized | bits)->'capacity' AS kept, bloom_info(bits | sized)->'capacity' AS none_kept, sized = bits AS equal
FROM (SELECT bloom_empty(100, 0.01, 'classic<7>') AS sized,
             bloom_empty_bits(bloom_capacity_for(100, 0.01, 'classic<7>'), 'classic<7>') AS bits) s;
-- bloom_add and bloom_add_many warn when they take a value past its capacity:
-- a classic filter sized exactly holding its n does not warn
CREATE TEMP TABLE at_n AS SELECT bloom_add_many(bloom_empty(1000, 0.01, 'classic'), array_agg(i)) AS f FROM generate_series(1, 1000) i;
SELECT bloom_add(f, 0) @> 0 AS at_n_quiet FROM at_n;
SELECT bloom_add_many(f, ARRAY[-1, -2]) @> -1 AS many_at_n_quiet FROM at_n;
-- 300 more items: one warning
SELECT bloom_add_many(f, ARRAY(SELECT generate_series(1001, 1300))) @> 1300 AS many_past FROM at_n;
CREATE TEMP TABLE past_n AS SELECT bloom_add_many(f, ARRAY(SELECT generate_series(1001, 1300))) AS f FROM at_n;
SELECT bloom_add(f, 5000) @> 5000 AS add_past FROM past_n;
-- adds to a value already past its capacity warn once per statement, not per row
SELECT count(*) FILTER (WHERE bloom_add(f, i) @> i) AS adds FROM past_n, generate_series(1, 50) i;
-- a value without a capacity never warns
SELECT bloom_add_many(bloom_empty_bits(1024, 'classic<3>'), ARRAY(SELECT generate_series(1, 2000))) IS NOT NULL AS no_capacity_quiet;
-- a union warns as an add does (as cbf_merge does): two halves of n are quiet,
-- n and 300 more one warning, by function or operator; an intersection, which
-- only takes items away, never warns, even of a value past its capacity
SELECT bloom_union(bloom_add_many(bloom_empty(1000, 0.01, 'classic'), ARRAY(SELECT generate_series(1, 500))),
                   bloom_add_many(bloom_empty(1000, 0.01, 'classic'), ARRAY(SELECT generate_series(501, 1000)))) @> 1000 AS union_at_n_quiet;
SELECT bloom_union(f, bloom_add_many(bloom_empty(1000, 0.01, 'classic'), ARRAY(SELECT generate_series(1001, 1300)))) @> 1300 AS union_past
FROM at_n;
SELECT (f | bloom_add_many(bloom_empty(1000, 0.01, 'classic'), ARRAY(SELECT generate_series(1001, 1300)))) @> 1300 AS operator_past
FROM at_n;
SELECT bloom_intersect(f, f) @> 1300 AS intersect_quiet FROM past_n;
