-- Shared Bloom filters: the SQL surface, layouts, values, frozen, errors.
SELECT shared_bloom_create('bf', 1000, 0.01);
SELECT shared_bloom_add('bf', 42) AS first_add, shared_bloom_add('bf', 42) AS second_add;
SELECT shared_bloom_contains('bf', 42::bigint) AS as_bigint, shared_bloom_contains('bf', 42::int2) AS as_int2,
       shared_bloom_contains('bf', 43) AS other;
-- the first add recorded the class of the items: text is refused
SELECT shared_bloom_contains('bf', '42');
SELECT shared_bloom_add('bf', 'abc');
SELECT shared_bloom_add('bf', 1001) AS other_add, shared_bloom_contains('bf', 1001) AS other_in;
SELECT shared_bloom_create('chars', 100, 0.001);
SELECT shared_bloom_add('chars', 'pad  '::char(5)) AS char_add, shared_bloom_contains('chars', 'pad') AS as_text,
       shared_bloom_contains('chars', 'pad  '::text) AS padded_text, shared_bloom_contains('chars', 'pad'::char(8)) AS as_char8;
SELECT shared_bloom_add_many('chars', ARRAY['many '::char(5)]) AS char_array_new,
       shared_bloom_contains('chars', 'many'::char(9)) AS many_in, shared_bloom_contains('chars', 'many') AS as_text;
SELECT shared_drop('chars');
SELECT shared_bloom_add_many('bf', ARRAY[1, 2, 3, 42, NULL]) AS new_of_5,
       shared_bloom_add_many('bf', ARRAY[]::bigint[]) AS none;
SELECT s->'layout' AS layout, s->'capacity' AS capacity, s->'fp_rate' AS fp_rate, s->'capacity_bits' AS bits,
       s->'ops' AS ops, s->'count' AS count, s->'frozen' AS frozen, s->'readonly' AS readonly,
       s->'seed' AS seed, (s->>'bits_set')::int > 0 AS some_set, s->'bytes' = s->'mmap_size' AS sizes
FROM shared_bloom_stats('bf') s;
-- every layout of bloom_empty
SELECT shared_bloom_create('classic', 1000, 0.01, 'classic');
SELECT shared_bloom_create('block', 1000, 0.01, 'block<uint64,5>');
SELECT shared_bloom_create('multi', 1000, 0.01, 'multiblock<uint64[8],3>');
SELECT shared_bloom_create('fast32', 1000, 0.01, 'fast_multiblock32<8>');
SELECT shared_bloom_create('strided', 1000, 0.01, '2*fast_multiblock64<5>/1');
SELECT name, count(*) FILTER (WHERE shared_bloom_add(name, g)) > 90 AS mostly_new,
       bool_and(shared_bloom_contains(name, g)) AS all_in
FROM (VALUES ('classic'), ('block'), ('multi'), ('fast32'), ('strided')) v(name), generate_series(1, 100) g
GROUP BY name ORDER BY name;
SELECT name, kind, layout, capacity, fpr, m, k, ops, status FROM shared_objects ORDER BY name;
-- snapshots are bloom values, hashed alike; values seed and merge into shared filters
SELECT bloom_contains(shared_bloom_snapshot('bf'), 1001) AS snap_abc, bloom_contains(shared_bloom_snapshot('bf'), 1002) AS snap_abd;
SELECT shared_create_from('bf_copy', shared_bloom_snapshot('bf'));
SELECT shared_bloom_snapshot('bf_copy') = shared_bloom_snapshot('bf') AS identical;
SELECT capacity IS NULL AS capacity_unknown, layout FROM shared_objects WHERE name = 'bf_copy';
SELECT shared_bloom_merge('bf_copy', bloom_add(shared_bloom_snapshot('bf'), 1003));
SELECT shared_bloom_contains('bf_copy', 1003) AS merged, shared_bloom_contains('bf', 1003) AS not_in_source;
SELECT shared_bloom_merge('bf_copy', bloom_empty(1000, 0.01, 'classic'));
SELECT shared_bloom_merge('bf_copy', bloom_empty(1000, 0.01, NULL, 7));
SELECT shared_bloom_clear('bf_copy');
SELECT shared_bloom_contains('bf_copy', 1001) AS after_clear;
-- kinds do not mix
SELECT shared_cbf_add('bf', 1);
SELECT shared_cbf_create('a_cbf', 10);
SELECT shared_bloom_contains('a_cbf', 1);
SELECT shared_create_from('bf', bloom_empty(10, 0.1));
-- bad input
SELECT shared_bloom_create('bad', 0, 0.01);
SELECT shared_bloom_create('bad', 10, 1.5);
SELECT shared_bloom_create('bad', 10, 0.01, 'nonsense');
SELECT shared_bloom_create('bad/name', 10, 0.01);
SELECT shared_bloom_create('bad', NULL, 0.01) IS NULL AS null_n;
SELECT count(*) AS bad_rows FROM shared_objects WHERE name = 'bad';
SELECT shared_bloom_add('missing', 1);
-- transactions
BEGIN;
SELECT shared_bloom_create('tx', 10, 0.01);
ROLLBACK;
SELECT shared_bloom_contains('tx', 1);
-- a read-only transaction changes nothing (25006); lookups work
BEGIN READ ONLY;
SELECT shared_bloom_add('bf', 1004);
ROLLBACK;
BEGIN READ ONLY;
SELECT shared_bloom_add_many('bf', ARRAY[1004]);
ROLLBACK;
BEGIN READ ONLY;
SELECT shared_bloom_clear('bf');
ROLLBACK;
BEGIN READ ONLY;
SELECT shared_bloom_merge('bf', bloom_add(shared_bloom_snapshot('bf'), 1004));
ROLLBACK;
BEGIN READ ONLY;
SELECT shared_bloom_contains('bf', 1004) AS not_added, shared_bloom_contains('bf', 42) AS still_has_42;
ROLLBACK;
-- frozen: mutators refused, lookups lock-free
SELECT shared_freeze('bf');
SELECT shared_bloom_add('bf', 5);
SELECT shared_bloom_add_many('bf', ARRAY[5]);
SELECT shared_bloom_clear('bf');
SELECT shared_bloom_merge('bf', shared_bloom_snapshot('bf'));
SELECT shared_bloom_contains('bf', 1001) AS abc, shared_bloom_stats('bf')->'frozen' AS frozen,
       bloom_contains(shared_bloom_snapshot('bf'), 42) AS snapshot_42;
SELECT shared_drop(name) FROM shared_objects ORDER BY name;
