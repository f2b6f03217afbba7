-- cbf: counting Bloom filters as SQL values
-- geometry: k = round(-log2 fpr), m = next_pow2(ceil(capacity * k / ln 2)), at least 64
SELECT cbf_stats(cbf_empty(1000, 0.01));
SELECT cbf_stats(cbf_empty(10, 0.5));
SELECT c, p, (cbf_stats(cbf_empty(c, p)) ->> 'hashes')::int AS k, (cbf_stats(cbf_empty(c, p)) ->> 'counters')::bigint AS m
FROM (VALUES (1::bigint, 0.01::float8), (1000, 0.001), (1000000, 0.01), (5, 0.99), (5, 1e-12)) v(c, p);
SELECT cbf_empty(1000) = cbf_empty(1000, 0.01) AS default_fpr;
-- past 2^-32, k stays 32 and m grows until the filter meets fpr; a rate no
-- filter within the limit meets is refused, in the shared objects too
SELECT p, (cbf_stats(cbf_empty(1000, p)) ->> 'counters')::bigint AS m
FROM (VALUES (1e-12::float8), (1e-14), (1e-20)) v(p);
SELECT cbf_empty(1000, 1e-300);
SELECT shared_cbf_create('tiny_rate', 1000, 4.9e-324);

-- add, contains, count_of, remove (the spec's scenarios)
CREATE TABLE cbf_steps AS
SELECT cbf_empty(1000) AS f0,
       cbf_add(cbf_empty(1000), 'x'::text) AS f1,
       cbf_add(cbf_add(cbf_add(cbf_empty(1000), 'x'::text), 'x'::text), 'x'::text) AS f3;
SELECT cbf_count_of(f0, 'x') AS c0, cbf_count_of(f1, 'x') AS c1, cbf_count_of(f3, 'x') AS c3,
       cbf_count_of(cbf_remove(f3, 'x'), 'x') AS c2,
       cbf_count_of(cbf_remove(cbf_remove(cbf_remove(f3, 'x'), 'x'), 'x'), 'x') AS back_to_0,
       cbf_contains(f1, 'x') AS has_x, cbf_contains(f1, 'y') AS has_y, f1 @> 'x' AS op_x, f1 @> 'y' AS op_y
FROM cbf_steps;
-- removing what is absent changes nothing; removing the last occurrence empties the filter
SELECT cbf_remove(f1, 'never added') = f1 AS remove_absent_is_noop,
       cbf_remove(f1, 'x')::bytea = overlay(f0::bytea PLACING substr(f1::bytea, 1, 44) FROM 1 FOR 44) AS remove_last_empties,
       cbf_remove(cbf_remove(f1, 'x'), 'x') = cbf_remove(f1, 'x') AS second_remove_noop
FROM cbf_steps;
-- saturation: 20 adds stick at 15; remove cannot lower a 15
WITH RECURSIVE hot(i, f) AS (
    SELECT 0, cbf_empty(1000)
    UNION ALL SELECT i + 1, cbf_add(f, 'hot'::text) FROM hot WHERE i < 20)
SELECT cbf_count_of(f, 'hot') AS after_20_adds,
       cbf_count_of(cbf_remove(f, 'hot'), 'hot') AS after_remove,
       cbf_contains(cbf_remove(f, 'hot'), 'hot') AS still_present,
       (cbf_stats(f) ->> 'saturated')::int AS saturated
FROM hot WHERE i = 20;
-- (10, 0.5): k = 1, m = 64, exact counts for items on distinct counters
SELECT cbf_count_of(f, 'a') AS a, cbf_count_of(f, 'b') AS b, cbf_count_of(f, 'c') AS c,
       cbf_stats(f) ->> 'counters_set' AS counters_set
FROM (SELECT cbf_add(cbf_add(cbf_add(cbf_add(cbf_add(cbf_add(cbf_empty(10, 0.5),
        'a'::text), 'b'::text), 'b'::text), 'c'::text), 'c'::text), 'c'::text) AS f) s;

-- the documented layout: probe i of an item is counter (h1 + i*h2) mod m, with h1 the low and
-- h2 the high half of sketch_hash (h2 made odd); counter c is a nibble of byte 44 + c/2
WITH d AS (SELECT sketch_hash('alice') AS h, cbf_add(cbf_empty(1000), 'alice')::bytea AS b),
     p AS (SELECT i, ((get_byte(h, 14) * 256 + get_byte(h, 15))
                      + i * ((get_byte(h, 6) * 256 + get_byte(h, 7)) | 1)) % 16384 AS c, b FROM d, generate_series(0, 6) i)
SELECT count(*) AS probes,
       count(*) FILTER (WHERE (get_byte(b, 44 + c / 2) >> (4 * (c % 2)::int)) & 15 = 1) AS counters_at_1,
       (SELECT count(*) FROM d, generate_series(44, length(b) - 1) j WHERE get_byte(b, j) <> 0) AS nonzero_bytes_at_most_7
FROM p;
-- items hash as sketch_hash does: integer widths agree, literals are text
SELECT cbf_contains(cbf_add(cbf_empty(100), 42::int2), 42::bigint) AS int_widths,
       cbf_contains(cbf_add(cbf_empty(100), 'abc'), 'abc'::varchar) AS literal_text,
       cbf_add(cbf_empty(100), 'a') @> 'a'::name AS name_as_text,
       cbf_add(cbf_empty(100), '2026-11-30'::date) @> '2026-11-30'::date AS date_item;
-- a filter records the class of its items: an item of another one is refused
SELECT cbf_contains(cbf_add(cbf_empty(100), 42), '42');

-- aggregates: serial and parallel plans must agree exactly
CREATE TABLE cbf_items AS
SELECT i AS id, (i % 5000)::bigint AS x, 'user-' || (i % 5000) AS s, i % 7 AS g
FROM generate_series(1, 15000) i;
ANALYZE cbf_items;
CREATE TABLE cbf_built AS
SELECT cbf_agg(x, 10000) AS by_int, cbf_agg(s, 10000, 0.001) AS by_text FROM cbf_items;
SELECT md5(by_int::bytea) AS int_digest, md5(by_text::bytea) AS text_digest FROM cbf_built;
-- every item seen 3 times counts 3; no false negatives; the count is close to 5000
SELECT count(*) FILTER (WHERE cbf_count_of(by_int, x) = 3) AS count_of_3,
       count(*) FILTER (WHERE cbf_contains(by_int, x)) AS int_found,
       count(*) FILTER (WHERE cbf_contains(by_text, s)) AS text_found
FROM cbf_built, (SELECT DISTINCT x, s FROM cbf_items) d;
SELECT cbf_count(by_int) AS count_int, abs(cbf_count(by_int) - 5000) < 500 AS within_10pct,
       cbf_count(by_text) AS count_text FROM cbf_built;
-- the filter equals the one built by hand, one cbf_add at a time
CREATE FUNCTION cbf_fold() RETURNS cbf LANGUAGE plpgsql AS $$
DECLARE
    f cbf := cbf_empty(10000);
    r record;
BEGIN
    FOR r IN SELECT x FROM cbf_items LOOP f := cbf_add(f, r.x); END LOOP;
    RETURN f;
END $$;
SELECT cbf_fold() = by_int AS agg_equals_fold FROM cbf_built;
-- a large filter (the aggregate buffers hashes in an expanded state) gives the same counters
CREATE TABLE cbf_built_large AS SELECT cbf_agg(x, 300000) AS f FROM cbf_items;
SELECT md5(f::bytea) AS large_digest, cbf_count(f) AS estimate, (cbf_stats(f) ->> 'counters')::int AS m,
       (SELECT count(*) FROM (SELECT DISTINCT x FROM cbf_items) d WHERE cbf_count_of(f, x) = 3) AS count_of_3
FROM cbf_built_large;
SELECT cbf_union_agg(f) = (SELECT f FROM cbf_built_large) AS union_of_large_groups
FROM (SELECT g, cbf_agg(x, 300000) AS f FROM cbf_items GROUP BY g) per_group;
-- 8 MiB of counters: huge-page-aligned memory
SELECT md5(f::bytea) AS huge_digest, cbf_count(f) AS estimate,
       (SELECT count(*) FROM (SELECT DISTINCT x FROM cbf_items) d WHERE cbf_count_of(f, x) = 3) AS count_of_3
FROM (SELECT cbf_agg(x, 1000000) AS f FROM cbf_items) s;
-- 16 MiB of counters: once a state has taken m / 1024 items (32768 here) its
-- adds are gathered by region, applied when a batch of m / 16 probes fills
-- (about 300000 items) and when the state leaves the aggregate. Items 0..6
-- come 10000 times each (saturated counters), the others about 4 times. The
-- counters equal those of per-group states that stay below the switch
-- (prefetching adds) merged with cbf_union_agg.
CREATE TABLE cbf_regions_items AS
SELECT i, (CASE WHEN i % 10 = 0 THEN i % 7 ELSE i % 150000 END)::bigint AS x
FROM generate_series(1, 700000) i;
CREATE TABLE cbf_regions_built AS SELECT cbf_agg(x, 2500000) AS f FROM cbf_regions_items;
SELECT md5(f::bytea) AS regions_digest, (cbf_stats(f) ->> 'counters')::int AS m,
       (cbf_stats(f) ->> 'saturated')::int AS saturated, cbf_count_of(f, 3::bigint) AS count_of_3
FROM cbf_regions_built;
SET enable_hashagg = off;  -- one 16 MiB state at a time
SELECT cbf_union_agg(f) = (SELECT f FROM cbf_regions_built) AS union_of_small_groups
FROM (SELECT i % 32 AS part, cbf_agg(x, 2500000) AS f FROM cbf_regions_items GROUP BY i % 32) per_part;
RESET enable_hashagg;
SELECT v, cbf_count(cbf_agg(v, 300000) OVER (ORDER BY v)) AS running_count,
       cbf_count(cbf_agg(v, 300000) OVER (ORDER BY v ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)) AS last_2
FROM generate_series(1, 4) v ORDER BY v;
-- per-group filters merged with cbf_union_agg equal the whole-table filter
SELECT cbf_union_agg(f) = (SELECT by_int FROM cbf_built) AS union_of_groups
FROM (SELECT g, cbf_agg(x, 10000) AS f FROM cbf_items GROUP BY g) per_group;
SELECT g, cbf_count(cbf_agg(x, 10000)) AS distinct_estimate, cbf_count_of(cbf_agg(x, 10000), 7::bigint) AS count_of_7
FROM cbf_items GROUP BY g ORDER BY g;
-- tiny filters (stored with a short header) through the same paths
SELECT md5(cbf_agg(x, 1, 0.5)::bytea) AS tiny_digest, cbf_stats(cbf_agg(x, 1, 0.5)) -> 'counters_set' AS counters_set,
       cbf_count_of(cbf_agg(x, 1, 0.5), 7::bigint) AS count_of_7
FROM cbf_items WHERE x < 20;
CREATE TABLE cbf_tiny AS SELECT g, cbf_agg(x, 1, 0.5) AS f FROM cbf_items WHERE x < 20 GROUP BY g;
SELECT pg_column_size(f) AS stored_size, length(f::bytea) AS bytes FROM cbf_tiny WHERE g = 0;
SELECT cbf_union_agg(f) = (SELECT cbf_agg(x, 1, 0.5) FROM cbf_items WHERE x < 20) AS union_of_tiny FROM cbf_tiny;
-- NULL items are skipped; all-NULL input gives an empty filter, no rows give NULL
SELECT cbf_agg(v, 100) = cbf_add(cbf_empty(100), 1) AS nulls_skipped
FROM (VALUES (1), (NULL), (NULL)) t(v);
SELECT cbf_stats(cbf_agg(v, 100))->'counters_set' = '0' AS all_null_is_empty FROM (VALUES (NULL::int)) t(v);
SELECT cbf_agg(x, 100) IS NULL AS no_rows_is_null, cbf_union_agg(NULL::cbf) IS NULL AS union_no_rows
FROM cbf_items WHERE false;
-- cbf_agg as a window aggregate: the state keeps growing after each result
SELECT v, cbf_count(cbf_agg(v, 100) OVER (ORDER BY v)) AS running_count,
       cbf_count_of(cbf_agg(v % 3, 100) OVER (ORDER BY v), 0) AS zeros_so_far
FROM generate_series(1, 9) v ORDER BY v;
-- a moving frame restarts the aggregate for each row
SELECT v, cbf_count(cbf_agg(v, 100) OVER (ORDER BY v ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)) AS last_3,
       cbf_contains(cbf_agg(v, 100) OVER (ORDER BY v ROWS BETWEEN 2 PRECEDING AND CURRENT ROW), 1) AS has_1
FROM generate_series(1, 5) v ORDER BY v;
-- grouping sets: the grand total equals the whole-table filter
SELECT g, cbf_agg(x, 10000) = (SELECT by_int FROM cbf_built) AS equals_whole, cbf_count(cbf_agg(x, 10000)) AS estimate
FROM cbf_items GROUP BY GROUPING SETS ((g), ()) ORDER BY g NULLS LAST;
-- hashed grouping
SET enable_sort = off;
SELECT count(*) AS groups, count(*) FILTER (WHERE cbf_contains(f, g::bigint)) AS contains_own_key
FROM (SELECT x % 50 AS g, cbf_agg(x, 1000) AS f FROM cbf_items GROUP BY x % 50) h;
RESET enable_sort;

-- measured false-positive rate at design load, within 4 binomial sigmas of (1 - e^{-kn/m})^k
CREATE TABLE cbf_fpr AS
SELECT cbf_agg(i, 10000) AS f FROM generate_series(1, 10000) i;
WITH s AS (SELECT (cbf_stats(f) ->> 'hashes')::float8 AS k, (cbf_stats(f) ->> 'counters')::float8 AS m,
                  (SELECT count(*) FROM generate_series(10001, 110000) i WHERE cbf_contains(f, i)) AS hits
           FROM cbf_fpr),
     e AS (SELECT hits, power(1 - exp(-k * 10000 / m), k) AS p FROM s)
SELECT hits, round(p * 100000) AS expected, abs(hits - p * 100000) <= 4 * sqrt(100000 * p * (1 - p)) AS within_4_sigma
FROM e;
-- churn at (4000, 0.001): 6000 items added, the first 4000 removed again; every live item stays
CREATE TABLE cbf_churn AS
SELECT cbf_agg(i, 4000, 0.001) AS f FROM generate_series(1, 6000) i;
CREATE FUNCTION cbf_remove_range(f cbf, lo int, hi int) RETURNS cbf LANGUAGE plpgsql AS $$
BEGIN
    FOR i IN lo..hi LOOP f := cbf_remove(f, i); END LOOP;
    RETURN f;
END $$;
WITH c AS MATERIALIZED (SELECT cbf_remove_range(f, 1, 4000) AS g FROM cbf_churn)
SELECT count(*) FILTER (WHERE cbf_contains(g, i) AND i > 4000) AS live_found,
       count(*) FILTER (WHERE cbf_contains(g, i) AND i <= 4000) AS removed_still_found,
       (SELECT cbf_count(g) FROM c) AS estimate
FROM c, generate_series(1, 6000) i;

-- merge: + and cbf_merge
SELECT cbf_count_of(a + b, 'x') AS two_plus_one, cbf_count_of(cbf_merge(a, b), 'x') AS same_by_function
FROM (SELECT cbf_add(cbf_add(cbf_empty(1000), 'x'), 'x') AS a, cbf_add(cbf_empty(1000), 'x') AS b) s;
SELECT cbf_count_of(cbf_union_agg(f), 'y') AS ten_plus_ten
FROM (SELECT cbf_agg('y'::text, 1000) AS f FROM generate_series(1, 10) UNION ALL
      SELECT cbf_agg('y'::text, 1000) FROM generate_series(1, 10)) s;
SELECT count(*) FILTER (WHERE cbf_contains(m, i)) AS all_found
FROM (SELECT (SELECT cbf_agg(i, 2000) FROM generate_series(1, 1000) i) +
             (SELECT cbf_agg(i, 2000) FROM generate_series(1001, 2000) i) AS m) s, generate_series(1, 2000) i;

-- text, binary and bytea forms round-trip
SELECT cbf_add(cbf_empty(10, 0.5), 'a') AS text_form;
SELECT cbf_out(by_int)::text::cbf = by_int AS text_round_trip, by_int::bytea::cbf = by_int AS bytea_round_trip,
       length(by_int::bytea) AS bytes, (cbf_stats(by_int) ->> 'bytes')::int AS stats_bytes
FROM cbf_built;
SELECT cbf_send(by_int) = by_int::bytea AS send_is_bytes FROM cbf_built;
SELECT '/tmp/cbf_regress_' || pg_backend_pid() || '.bin' AS path \gset
SELECT 'cat ' || :'path' || ' && rm -f ' || :'path' AS read_and_remove \gset
COPY (SELECT by_int, by_text FROM cbf_built) TO :'path' (FORMAT binary);
CREATE TABLE cbf_copied (a cbf, b cbf);
COPY cbf_copied FROM PROGRAM :'read_and_remove' (FORMAT binary);
SELECT a = by_int AS binary_a, b = by_text AS binary_b FROM cbf_copied, cbf_built;

-- stored values: out-of-line (TOAST) and short-header values work everywhere
CREATE TABLE cbf_store (id int, f cbf);
INSERT INTO cbf_store SELECT 1, cbf_agg(i, 200000) FROM generate_series(1, 1000) i;
INSERT INTO cbf_store SELECT 2, cbf_agg(i, 200000) FROM generate_series(1001, 2000) i;
INSERT INTO cbf_store SELECT 3, cbf_add(cbf_empty(10, 0.5), 'small');
INSERT INTO cbf_store SELECT 4, cbf_add(cbf_empty(10, 0.5), 'tiny');
SELECT id, pg_column_size(f) < length(f::bytea) AS compressed, length(f::bytea) AS bytes FROM cbf_store ORDER BY id;
SELECT count(*) FILTER (WHERE cbf_contains((SELECT f FROM cbf_store WHERE id = 1), i)) AS from_first,
       count(*) FILTER (WHERE cbf_contains((SELECT f FROM cbf_store WHERE id = 2), i)) AS from_second
FROM generate_series(1, 2000) i;
SELECT s.id, (SELECT count(*) FROM generate_series(1, 2000) i WHERE cbf_contains(s.f, i)) AS found
FROM cbf_store s WHERE s.id <= 2 ORDER BY s.id;
SELECT cbf_count(cbf_union_agg(f)) AS union_of_stored FROM cbf_store WHERE id <= 2;
SELECT cbf_union_agg(f) @> 'small' AS small, cbf_union_agg(f) @> 'tiny' AS tiny FROM cbf_store WHERE id >= 3;
-- large stored filters (8 MiB of counters: cached on huge pages), uncompressed and pglz-compressed
CREATE TABLE cbf_store_large (id int, f cbf);
ALTER TABLE cbf_store_large ALTER COLUMN f SET STORAGE external;
INSERT INTO cbf_store_large SELECT 1, cbf_agg(i, 1200000) FROM generate_series(1, 1000) i;
ALTER TABLE cbf_store_large ALTER COLUMN f SET STORAGE extended;
INSERT INTO cbf_store_large SELECT 2, cbf_agg(i, 1200000) FROM generate_series(1, 1000) i;
SELECT id, pg_column_size(f) < length(f::bytea) AS compressed, length(f::bytea) AS bytes FROM cbf_store_large ORDER BY id;
SELECT count(*) FILTER (WHERE cbf_contains((SELECT f FROM cbf_store_large WHERE id = 1), i)) AS from_uncompressed,
       count(*) FILTER (WHERE cbf_contains((SELECT f FROM cbf_store_large WHERE id = 2), i)) AS from_compressed,
       count(*) FILTER (WHERE cbf_count_of((SELECT f FROM cbf_store_large WHERE id = 2), i) = 1) AS counted_once
FROM generate_series(1, 2000) i;
-- the same values in every stored form (large ones are read into memory on
-- huge pages by the extension's own detoasting): each reads as the value
-- built in memory, through every kind of function
CREATE TEMP TABLE cbf_forms (form text, capacity bigint, items int, f cbf);
INSERT INTO cbf_forms SELECT 'external', 1200000, 1000, cbf_agg(i, 1200000) FROM generate_series(1, 1000) i;
ALTER TABLE cbf_forms ALTER COLUMN f SET STORAGE extended;
ALTER TABLE cbf_forms ALTER COLUMN f SET COMPRESSION pglz;
INSERT INTO cbf_forms SELECT 'pglz', 1200000, 1000, cbf_agg(i, 1200000) FROM generate_series(1, 1000) i;
ALTER TABLE cbf_forms ALTER COLUMN f SET COMPRESSION lz4;
INSERT INTO cbf_forms SELECT 'lz4', 1200000, 1000, cbf_agg(i, 1200000) FROM generate_series(1, 1000) i;
ALTER TABLE cbf_forms ALTER COLUMN f SET STORAGE main;
ALTER TABLE cbf_forms ALTER COLUMN f SET COMPRESSION pglz;
INSERT INTO cbf_forms SELECT 'inline pglz', 2000, 10, cbf_agg(i, 2000) FROM generate_series(1, 10) i;
ALTER TABLE cbf_forms ALTER COLUMN f SET COMPRESSION lz4;
INSERT INTO cbf_forms SELECT 'inline lz4', 2000, 10, cbf_agg(i, 2000) FROM generate_series(1, 10) i;
INSERT INTO cbf_forms SELECT 'short header', 1, 1, cbf_agg(i, 1, 0.5) FROM generate_series(1, 1) i;
SELECT form, pg_column_compression(f) AS compression, pg_column_size(f) < 8000 AS inline_size,
       f = ref AS reads, f + f = ref + ref AS merge_reads, cbf_send(f) = ref::bytea AS send_reads,
       cbf_add(f, -1) = cbf_add(ref, -1) AND cbf_add(f, -1) <> f AS add_copies,
       cbf_remove(cbf_add(f, -1), -1) = ref AS remove_copies,
       cbf_stats(f) = cbf_stats(ref) AS stats, cbf_to_bloom(f) = cbf_to_bloom(ref) AS to_bloom,
       f::text::cbf = ref AS text_round_trip, f::bytea::cbf = ref AS bytea_round_trip
FROM cbf_forms, LATERAL (SELECT cbf_agg(i, capacity, CASE WHEN capacity = 1 THEN 0.5 ELSE 0.01 END) AS ref
                         FROM generate_series(1, items) i) r
ORDER BY form;
-- Lookups row by row read every stored form as its value: through a
-- subquery (the same bytes on every row; one compressed in its row is
-- decompressed and checked once, not per row) and in a join whose rows take
-- turns among the forms (the bytes change from row to row, the in-line ones
-- among them of one geometry)
SELECT form, (SELECT count(*) FILTER (WHERE cbf_contains((SELECT f FROM cbf_forms c WHERE c.form = o.form), i))
              FROM generate_series(1, 2000) i) AS found,
       (SELECT count(*) FILTER (WHERE cbf_count_of((SELECT f FROM cbf_forms c WHERE c.form = o.form), i)
                                      <> cbf_count_of(ref, i))
        FROM generate_series(1, 2000) i) AS differ
FROM cbf_forms o, LATERAL (SELECT cbf_agg(i, capacity, CASE WHEN capacity = 1 THEN 0.5 ELSE 0.01 END) AS ref
                           FROM generate_series(1, items) i) r
ORDER BY form;
SELECT count(*) AS lookups, count(*) FILTER (WHERE cbf_count_of(c.f, i) <> cbf_count_of(r.ref, i)) AS differ
FROM generate_series(1, 2000) i CROSS JOIN cbf_forms c,
     LATERAL (SELECT cbf_agg(j, c.capacity, CASE WHEN c.capacity = 1 THEN 0.5 ELSE 0.01 END) AS ref
              FROM generate_series(1, c.items) j) r;
-- a filter compressed in its row is checked against the call site's items
-- as any other (the first row refuses them, and no later one reads it unchecked)
SELECT count(*) FILTER (WHERE cbf_contains((SELECT f FROM cbf_forms WHERE form = 'inline lz4'), i::text))
FROM generate_series(1, 3) i;
-- cbf_contains_many reads them alike (it keeps the filter of a subquery once
-- per call site too), and checks a compressed one's items once
SELECT form, (SELECT count(*) FILTER (WHERE cbf_contains_many((SELECT f FROM cbf_forms c WHERE c.form = o.form), ARRAY[i, i + 2000])
                                      <> ARRAY[cbf_contains(ref, i), cbf_contains(ref, i + 2000)])
              FROM generate_series(1, 2000) i) AS differ
FROM cbf_forms o, LATERAL (SELECT cbf_agg(i, capacity, CASE WHEN capacity = 1 THEN 0.5 ELSE 0.01 END) AS ref
                           FROM generate_series(1, items) i) r
ORDER BY form;
SELECT count(*) AS lookups,
       count(*) FILTER (WHERE cbf_contains_many(c.f, ARRAY[i, -i]) <> cbf_contains_many(r.ref, ARRAY[i, -i])) AS differ
FROM generate_series(1, 2000) i CROSS JOIN cbf_forms c,
     LATERAL (SELECT cbf_agg(j, c.capacity, CASE WHEN c.capacity = 1 THEN 0.5 ELSE 0.01 END) AS ref
              FROM generate_series(1, c.items) j) r;
SELECT count(*) FILTER (WHERE (cbf_contains_many((SELECT f FROM cbf_forms WHERE form = 'inline lz4'), ARRAY[i::text]))[1])
FROM generate_series(1, 3) i;

-- bad input: clear errors
SELECT cbf_empty(0);
SELECT cbf_empty(-1);
SELECT cbf_empty(100, 0);
SELECT cbf_empty(100, 1);
SELECT cbf_empty(100, 'NaN');
SELECT cbf_empty(100, -0.5);
SELECT cbf_empty(1000000000000);
SELECT cbf_agg(i, 0) FROM generate_series(1, 3) i;
SELECT cbf_agg(i, NULL) FROM generate_series(1, 3) i;
SELECT cbf_agg(i, 100, NULL) FROM generate_series(1, 3) i;
SELECT cbf_agg(i, 100 + i) FROM generate_series(1, 3) i;
-- a NULL capacity or fpr after the first row is a NULL, not a different one
-- (small and large states)
SELECT cbf_agg(i, CASE WHEN i = 2 THEN NULL ELSE 100 END) FROM generate_series(1, 3) i;
SELECT cbf_agg(i, 1000000, CASE WHEN i = 2 THEN NULL ELSE 0.01 END) FROM generate_series(1, 3) i;
SELECT cbf_empty(1000) + cbf_empty(1000, 0.001);
SELECT cbf_merge(cbf_empty(1000), cbf_empty(100000));
SELECT cbf_union_agg(f) FROM (VALUES (cbf_empty(1000)), (cbf_empty(5000))) v(f);
SELECT 'abc'::cbf;
SELECT '\x0'::cbf;
SELECT '\xzz'::cbf;
SELECT overlay(cbf_empty(1000)::bytea::text placing 'G' from 301)::cbf;
SELECT overlay(cbf_empty(1000)::text placing '*' from 301)::cbf;
SELECT f::text::cbf = f AS text_round_trip, f::bytea::text::cbf = f AS hex_input,
       ('\x' || upper(substr(f::bytea::text, 3)))::cbf = f AS upper_case_hex_input,
       f::text = 'b64:' || translate(encode(f::bytea, 'base64'), E'\n', '') AS same_as_encode
FROM (SELECT cbf_agg(i, 5000) AS f FROM generate_series(1, 3000) i) s;
SELECT '\x01'::cbf;
SELECT ''::cbf;
-- wrong version, bad k, m not a power of two, size not matching m, unknown flags
SELECT overlay(cbf_empty(10, 0.5)::bytea PLACING '\x03' FROM 1 FOR 1)::cbf;
SELECT overlay(cbf_empty(10, 0.5)::bytea PLACING '\x00' FROM 2 FOR 1)::cbf;
SELECT overlay(cbf_empty(10, 0.5)::bytea PLACING '\x21' FROM 2 FOR 1)::cbf;
SELECT overlay(cbf_empty(10, 0.5)::bytea PLACING '\x41' FROM 9 FOR 1)::cbf;
SELECT (cbf_empty(10, 0.5)::bytea || '\x00'::bytea)::cbf;
SELECT substr(cbf_empty(10, 0.5)::bytea, 1, 60)::cbf;
SELECT overlay(cbf_empty(10, 0.5)::bytea PLACING '\x01' FROM 4 FOR 1)::cbf;
SELECT overlay(cbf_empty(10, 0.5)::bytea PLACING '\x05' FROM 5 FOR 1)::cbf;
SELECT overlay(cbf_empty(10, 0.5)::bytea PLACING '\x03' FROM 3 FOR 1)::cbf;
SELECT ('\x' || repeat('00', 76))::cbf;
SELECT overlay(cbf_empty(10, 0.5)::bytea PLACING '\x000000000000f87f' FROM 25 FOR 8)::cbf;
SELECT overlay(cbf_empty(10, 0.5)::bytea PLACING '\x0000000000000000' FROM 17 FOR 8)::cbf;
SELECT overlay(cbf_empty(10, 0.5)::bytea PLACING '\x01' FROM 41 FOR 1)::cbf;
-- the SQLSTATEs: parameter out of range and mismatch, bad text, bad binary, too large
\set VERBOSITY sqlstate
SELECT cbf_empty(0);
SELECT cbf_empty(1000) + cbf_empty(1000, 0.001);
SELECT 'abc'::cbf;
SELECT '\x01'::cbf;
SELECT '\x01'::bytea::cbf;
SELECT cbf_empty(100000000);
\set VERBOSITY default
-- support functions outside an aggregate
SELECT cbf_agg_trans(NULL, 1, 100);
SELECT cbf_agg_combine(cbf_empty(10), cbf_empty(10));
SELECT cbf_union_trans(cbf_empty(10), cbf_empty(10));
SELECT cbf_agg_final(cbf_empty(10));

-- past capacity: a filter whose rate passes the one asked for gets one warning
-- per value (per group here), not per row; one within it gets none
SELECT g, cbf_count(cbf_agg(i, 100, 0.01)) > 0 AS built
FROM generate_series(1, 2) g, generate_series(1, 100 + (g - 1) * 400) i GROUP BY g ORDER BY g;

-- adds to a value warn when they take it past its capacity (its estimated
-- rate and count both above what it was sized for); at capacity they do not
SELECT cbf_stats(cbf_add_many(cbf_empty(100), array_agg(i)))->>'count' AS at_capacity
FROM generate_series(1, 100) i;
CREATE TEMP TABLE cbf_full AS
SELECT g, cbf_add_many(cbf_empty(100), (SELECT array_agg(i) FROM generate_series(1, 100) i)) AS f
FROM generate_series(1, 3) g;
-- each of the 3 values passes its capacity in this statement: 3 warnings
UPDATE cbf_full SET f = cbf_add_many(f, ARRAY(SELECT i FROM generate_series(101, 120) i));
-- values already past it: one warning for the statement, not one per value
UPDATE cbf_full SET f = cbf_add(f, 1000 + g);
-- 1000 adds to one value in one statement: one warning, when the add takes it past
DO $$
DECLARE f cbf := cbf_empty(100);
BEGIN
    FOR i IN 1..1000 LOOP f := cbf_add(f, i); END LOOP;
END $$;
-- a merge whose sum is past the capacity warns; removes never do
SELECT cbf_merge(cbf_add_many(cbf_empty(100), ARRAY(SELECT i FROM generate_series(1, 60) i)),
                 cbf_add_many(cbf_empty(100), ARRAY(SELECT i FROM generate_series(61, 120) i))) IS NOT NULL AS merged;
SELECT cbf_remove(f, 1) IS NOT NULL AS removed FROM cbf_full WHERE g = 1;
-- a filter of 1024 lines (classic; block: 848) is judged from 64 of them:
-- quiet at its capacity, a warning past it (the classic one has twice the
-- counters its capacity needs, m a power of two: still within its rate at 13000)
SELECT layout, cbf_stats(cbf_add_many(cbf_empty(10000, 0.01, layout), ARRAY(SELECT i FROM generate_series(1, 10000) i)))->>'capacity'
FROM (VALUES ('classic'), ('block')) v(layout);
SELECT layout, n, cbf_stats(cbf_add_many(cbf_empty(10000, 0.01, layout), ARRAY(SELECT i FROM generate_series(1, n) i)))->>'capacity'
FROM (VALUES ('classic', 13000), ('block', 13000), ('classic', 20000)) v(layout, n);
-- a full filter (every counter set) is far past its capacity, not at it: its
-- count says so, and it warns, built by the aggregate (from every counter) or
-- by an add (from the 64 lines it samples, every one of them full here)
WITH s AS MATERIALIZED (SELECT cbf_agg(i, 100) AS f FROM generate_series(1, 5000) i)
SELECT cbf_stats(f)->>'counters_set' = cbf_stats(f)->>'counters' AS full, cbf_count(f) > 1000 AS far_past FROM s;
WITH s AS MATERIALIZED (
    SELECT layout, cbf_add_many(cbf_empty(10000, 0.01, layout), ARRAY(SELECT i FROM generate_series(1, 400000) i)) AS f
    FROM (VALUES ('classic'), ('block')) v(layout))
SELECT layout, cbf_count(f) > 100000 AS far_past, (cbf_stats(f)->>'fill_ratio')::float8 = 1 AS full FROM s ORDER BY layout;
