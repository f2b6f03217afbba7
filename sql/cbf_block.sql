-- cbf layouts: classic (the default) and block<K> (all K counters of an item in one 64-byte line)
SELECT cbf_stats(cbf_empty(1000, 0.01, 'block'));
SELECT cbf_stats(cbf_empty(1000, 0.01, 'block<6>')) ->> 'layout' AS block6,
       cbf_stats(cbf_empty(1000, 0.01, 'classic<5>')) ->> 'layout' AS classic5,
       cbf_stats(cbf_empty(1000, 0.01)) ->> 'layout' AS default_layout,
       cbf_empty(1000, 0.01, 'classic') = cbf_empty(1000, 0.01) AS classic_is_the_default,
       cbf_empty(1000, 0.01, ' Block < 6 > ') = cbf_empty(1000, 0.01, 'block<6>') AS spelling_is_free;

-- sizing helpers: cbf_capacity_for is what cbf_empty allocates, and meets the fpr by cbf_fpr_for
SELECT l, cbf_capacity_for(100000, 0.01, l) AS counters,
       cbf_capacity_for(100000, 0.01, l) = (cbf_stats(cbf_empty(100000, 0.01, l)) ->> 'counters')::bigint AS same_as_empty,
       cbf_fpr_for(100000, cbf_capacity_for(100000, 0.01, l), cbf_stats(cbf_empty(100000, 0.01, l)) ->> 'layout') <= 0.01 AS meets_fpr
FROM unnest(ARRAY['classic', 'classic<7>', 'block', 'block<8>', 'block<4>']) l;
SELECT cbf_capacity_for(100000, 0.01) AS default_classic,
       round(cbf_fpr_for(100000, 1048576, 'block<8>')::numeric, 5) AS block8_at_1m,
       cbf_fpr_for(100000, 1048576, 'block') <= cbf_fpr_for(100000, 1048576, 'block<8>') AS best_k_no_worse;

-- the operations on a block filter
CREATE TABLE blk AS SELECT cbf_agg(i, 10000, 0.01, 'block<8>') AS f FROM generate_series(1, 5000) i;
SELECT bool_and(cbf_contains(f, i)) AS no_false_negatives,
       count(*) FILTER (WHERE cbf_contains(f, i + 100000)) < 200 AS few_false_positives,
       cbf_count(f) BETWEEN 4800 AND 5200 AS count_estimate
FROM blk, generate_series(1, 5000) i GROUP BY f;
SELECT cbf_count_of(f, 1) AS once, cbf_count_of(cbf_add(cbf_add(f, 1), 1), 1) AS thrice,
       cbf_count_of(cbf_remove(f, 1), 1) AS removed, cbf_remove(cbf_add(f, 77777), 77777) = f AS remove_undoes_add,
       cbf_remove(f, 99999999) = f AS remove_absent_is_noop
FROM blk;
-- saturation at 15, and a remove leaves counters at 15
WITH RECURSIVE hot(i, f) AS (
    SELECT 0, cbf_empty(1000, 0.01, 'block')
    UNION ALL SELECT i + 1, cbf_add(f, 'hot'::text) FROM hot WHERE i < 20)
SELECT cbf_count_of(f, 'hot') AS after_20_adds, cbf_count_of(cbf_remove(f, 'hot'), 'hot') AS after_remove,
       (cbf_stats(f) ->> 'saturated')::int > 0 AS saturated
FROM hot WHERE i = 20;
-- add_many and contains_many
SELECT cbf_add_many(cbf_empty(10000, 0.01, 'block<8>'), (SELECT array_agg(i) FROM generate_series(1, 5000) i)) = f AS add_many_equals_agg,
       cbf_contains_many(f, ARRAY[1, 2, NULL, 5000]) AS many
FROM blk;

-- merge: the same layout and geometry only
SELECT cbf_merge(a, b) = c AS merge_is_the_sum
FROM (SELECT cbf_agg(i, 1000, 0.01, 'block') FILTER (WHERE i % 2 = 0) AS a,
             cbf_agg(i, 1000, 0.01, 'block') FILTER (WHERE i % 2 = 1) AS b,
             cbf_agg(i, 1000, 0.01, 'block') AS c FROM generate_series(1, 800) i) s;
SELECT (SELECT cbf_union_agg(f) FROM (SELECT cbf_agg(i, 1000, 0.01, 'block') AS f FROM generate_series(1, 300) i GROUP BY i % 3) s)
       = (SELECT cbf_agg(i, 1000, 0.01, 'block') FROM generate_series(1, 300) i) AS union_agg_is_the_sum;
SELECT cbf_merge(cbf_empty(1000, 0.01, 'block<7>'), cbf_empty(1000, 0.01, 'classic<7>'));
SELECT cbf_union_agg(f) FROM (VALUES (cbf_empty(1000, 0.01, 'block<7>')), (cbf_empty(1000, 0.01, 'block<6>'))) v(f);

-- cbf_to_bloom: a Bloom filter of layout block<uint64[2],K> that answers as the counting filter
CREATE TABLE blk_bloom AS SELECT cbf_to_bloom(f) AS b FROM blk;
SELECT bloom_info(b) ->> 'layout' AS projected_layout,
       count(*) FILTER (WHERE bloom_contains(b, i) <> cbf_contains(f, i)) AS answers_differing,
       count(*) FILTER (WHERE bloom_contains(b, i)) AS bloom_hits
FROM blk, blk_bloom, generate_series(1, 20000) i GROUP BY b;

-- parallel equals serial
CREATE TABLE blk_rows AS SELECT i FROM generate_series(1, 200000) i;
ANALYZE blk_rows;
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
CREATE TABLE blk_par AS SELECT cbf_agg(i, 200000, 0.01, 'block') AS f FROM blk_rows;
RESET max_parallel_workers_per_gather;
SET max_parallel_workers_per_gather = 0;
SELECT (SELECT f FROM blk_par) = cbf_agg(i, 200000, 0.01, 'block') AS parallel_equals_serial FROM blk_rows;
RESET ALL;

-- a block filter of 16 MiB of counters or more: its aggregate applies batches as add_many does
SELECT cbf_agg(i, 3000000, 0.01, 'block') = cbf_add_many(cbf_empty(3000000, 0.01, 'block'), array_agg(i)) AS large_agg_equals_add_many
FROM generate_series(1, 40000) i;

-- bad layouts and arguments
SELECT cbf_empty(1000, 0.01, 'blocked');
SELECT cbf_empty(1000, 0.01, 'block<0>');
SELECT cbf_empty(1000, 0.01, 'block<33>');
SELECT cbf_empty(1000, 0.01, 'block<8');
SELECT cbf_empty(1000, 0.01, '');
-- a NULL layout is classic (cbf.md, Layouts), as for shared_cbf_create; a
-- NULL capacity or fpr gives NULL, as from the form without a layout
SELECT cbf_empty(1000, 0.01, NULL) = cbf_empty(1000, 0.01) AS null_is_classic,
       cbf_empty(NULL, 0.01, 'block') IS NULL AS null_capacity, cbf_empty(1000, NULL, 'block') IS NULL AS null_fpr;
SELECT cbf_agg(i, 1000, 0.01, NULL) = cbf_agg(i, 1000, 0.01) AS null_is_classic FROM generate_series(1, 3) i;
-- cbf_capacity_for gives what cbf_empty allocates, for a NULL layout too
SELECT cbf_capacity_for(1000, 0.01, NULL) = (cbf_stats(cbf_empty(1000, 0.01, NULL)) ->> 'counters')::bigint AS capacity_for_null,
       cbf_capacity_for(NULL, 0.01, NULL) IS NULL AS null_n, cbf_capacity_for(1000, NULL) IS NULL AS null_fpr;
SELECT cbf_agg(i, 1000, 0.01, CASE WHEN i = 2 THEN NULL ELSE 'classic' END) = cbf_agg(i, 1000, 0.01) AS same_filter
FROM generate_series(1, 3) i;
SELECT cbf_agg(i, 1000, 0.01, CASE WHEN i = 1 THEN NULL ELSE 'block' END) FROM generate_series(1, 3) i;
-- a bad layout after the first row is refused as on the first
SELECT cbf_agg(i, 1000, 0.01, CASE WHEN i = 1 THEN 'classic' ELSE '' END) FROM generate_series(1, 3) i;
SELECT cbf_agg(i, 1000, 0.01, 'fast') FROM generate_series(1, 3) i;
SELECT cbf_agg(i, 1000, 0.01, CASE WHEN i < 2 THEN 'block' ELSE 'classic' END) FROM generate_series(1, 3) i;
-- a layout computed per row: the same text is one layout, another text another
SELECT cbf_agg(i, 1000, 0.01, 'block<' || 6 + i % 1 || '>') = cbf_agg(i, 1000, 0.01, 'block<6>') AS computed_same
FROM generate_series(1, 3) i;
SELECT cbf_agg(i, 1000, 0.01, 'block<' || 5 + i || '>') FROM generate_series(1, 3) i;
SELECT cbf_empty(10000000000, 0.0001, 'block');
SELECT cbf_fpr_for(-1, 1024, 'block');
SELECT cbf_fpr_for(10, 0, 'block');
SELECT cbf_capacity_for(0, 0.01, 'block');
SELECT cbf_capacity_for(10, 1.5, 'block');
-- a shared object made from a block value keeps its layout (sql/shared_cbf_block.sql)
SELECT shared_create_from('blk_obj', f) FROM blk;
SELECT layout, shared_drop(name) FROM shared_objects WHERE name = 'blk_obj';
DROP TABLE blk, blk_bloom, blk_rows, blk_par;
-- a stored block value is checked for whole lines: a classic value of 64 counters relabelled block
SELECT overlay(cbf_empty(10, 0.5)::bytea PLACING '\x02' FROM 3 FOR 1)::cbf;
