-- Shared counting Bloom filters of the blocked layouts (docs/cbf.md,
-- layouts): create with a layout, adds, lookups, counts, removes and
-- saturation, stats and shared_objects, snapshots and merges with values of
-- the same layout, growth, transactional adds, freeze and clear; bad
-- layouts. Rates of 1e-6 keep false positives out of the counts.
\i sql/include/sqlstate_of.sql
SELECT shared_cbf_create('blk', 1000, 1e-6, layout => 'block<8>', expansion => 0);
SELECT shared_cbf_create('blk_auto', 1000, 0.01, 'block');
SELECT shared_cbf_create('blk_ine', 1000, 0.01, true, 'Block < 6 >', 0) AS created,
       shared_cbf_create('blk_ine', 1000, 0.01, true, 'block<6>', 0) AS again;
SELECT shared_cbf_create('cls_null', 1000, 0.01, NULL);
SELECT name, layout, capacity, fpr, expansion, m, k FROM shared_objects WHERE name IN ('blk', 'blk_auto', 'blk_ine', 'cls_null')
ORDER BY name;
-- the value of the same layout, capacity and fpr has the same geometry
SELECT (cbf_stats(cbf_empty(1000, 1e-6, 'block<8>')) ->> 'counters')::bigint = m AS same_counters
FROM shared_objects WHERE name = 'blk';

-- adds, lookups, counts
SELECT shared_cbf_add_many('blk', ARRAY(SELECT generate_series(1, 500)), transactional => false) AS added;
SELECT shared_cbf_add('blk', 7) AS seven_again, shared_cbf_add('blk', 7, transactional => false) AS and_again;
SELECT count(*) FILTER (WHERE shared_cbf_contains('blk', i)) AS found,
       count(*) FILTER (WHERE shared_cbf_contains('blk', i + 100000)) AS false_positives,
       sum(shared_cbf_count_of('blk', i)) AS counts
FROM generate_series(1, 500) i;
SELECT shared_cbf_count_of('blk', 7) AS seven, shared_cbf_contains_many('blk', ARRAY[1, 7, 100001]) AS many;
-- removes take back what the adds gave; an absent item changes nothing
SELECT shared_cbf_remove('blk', 7) AS removed, shared_cbf_count_of('blk', 7) AS seven,
       shared_cbf_remove('blk', 100001) AS absent;
-- a counter saturates at 15 and stays there through removes
SELECT count(shared_cbf_add('blk', 42, transactional => false)) FROM generate_series(1, 20);
SELECT shared_cbf_count_of('blk', 42) AS saturated;
SELECT bool_and(shared_cbf_remove('blk', 42)) AS removes FROM generate_series(1, 20);
SELECT shared_cbf_count_of('blk', 42) AS still_saturated;
SELECT s ->> 'layout' AS layout, (s ->> 'items_held')::int AS held, (s ->> 'saturated')::int > 0 AS some_saturated,
       abs((s ->> 'count')::int - 500) <= 10 AS count_near_500, shared_cbf_count('blk') = (s ->> 'count')::int AS count
FROM shared_cbf_stats('blk') s;

-- a snapshot is a cbf value of the same layout, and answers alike
SELECT cbf_stats(shared_cbf_snapshot('blk')) ->> 'layout' AS snapshot_layout,
       (SELECT count(*) FROM generate_series(1, 500) i WHERE cbf_contains(shared_cbf_snapshot('blk'), i)) AS found,
       cbf_count_of(shared_cbf_snapshot('blk'), 42) AS saturated;
-- a value of the same layout merges in; another layout or geometry is refused
SELECT shared_cbf_merge('blk', cbf_agg(i, 1000, 1e-6, 'block<8>')) FROM generate_series(1001, 1100) i;
SELECT count(*) FILTER (WHERE shared_cbf_contains('blk', i)) AS merged FROM generate_series(1001, 1100) i;
SELECT shared_cbf_merge('blk', cbf_empty(1000, 1e-6));
SELECT shared_cbf_merge('blk', cbf_empty(1000, 1e-6, 'block<7>'));
SELECT shared_cbf_merge('blk', cbf_empty(2000, 1e-6, 'block<8>'));
-- an object made from a value keeps its layout
SELECT shared_create_from('blk_copy', cbf_agg(i, 100, 0.01, 'block<4>')) FROM generate_series(1, 50) i;
SELECT layout FROM shared_objects WHERE name = 'blk_copy';
SELECT count(*) FILTER (WHERE shared_cbf_contains('blk_copy', i)) AS copied FROM generate_series(1, 50) i;

-- a scaling blocked object grows into sub-filters of its layout
SELECT shared_cbf_create('blk_grows', 100, 1e-6, 'block<8>');
SELECT shared_cbf_add_many('blk_grows', ARRAY(SELECT generate_series(1, 1000))) AS added;
SELECT shared_cbf_add_many('blk_grows', ARRAY(SELECT generate_series(1, 100))) AS added_again;
SELECT (s ->> 'subfilters')::int > 1 AS grew, s ->> 'layout' AS layout, (s ->> 'items_held')::int AS held
FROM shared_cbf_stats('blk_grows') s;
SELECT count(*) FILTER (WHERE shared_cbf_contains('blk_grows', i)) AS found,
       sum(shared_cbf_count_of('blk_grows', i)) AS counts,
       count(*) FILTER (WHERE shared_cbf_remove('blk_grows', i)) AS removed
FROM generate_series(1, 1000) i;
SELECT sum(shared_cbf_count_of('blk_grows', i)) AS counts_after_remove FROM generate_series(1, 1000) i;
SELECT pg_temp.sqlstate_of($$SELECT shared_cbf_snapshot('blk_grows')$$) AS snapshot_of_grown;

-- transactional adds: an aborted transaction leaves no count
BEGIN;
SELECT shared_cbf_add('blk_auto', 'x1') AS first, shared_cbf_contains('blk_auto', 'x1') AS seen_inside;
ROLLBACK;
SELECT shared_cbf_contains('blk_auto', 'x1') AS after_rollback;
BEGIN;
SELECT shared_cbf_add('blk_auto', 'x1') AS first;
COMMIT;
SELECT shared_cbf_contains('blk_auto', 'x1') AS after_commit, shared_cbf_count_of('blk_auto', 'x1') AS count;

-- clear, then freeze: lookups of a frozen object, no more changes
SELECT shared_cbf_clear('blk_auto');
SELECT shared_cbf_contains('blk_auto', 'x1') AS after_clear;
SELECT shared_cbf_add('blk_auto', 'x2');
SELECT shared_freeze('blk_auto');
SELECT shared_cbf_contains('blk_auto', 'x2') AS frozen_has, shared_cbf_count_of('blk_auto', 'x2') AS frozen_count;
SELECT shared_cbf_add('blk_auto', 'x3');

-- bad layouts: 22023 naming what is wrong, nothing made
SELECT shared_cbf_create('bad', 1000, 0.01, 'blocked');
SELECT shared_cbf_create('bad', 1000, 0.01, 'fast_multiblock32<8>');
SELECT shared_cbf_create('bad', 1000, 0.01, 'block<0>');
SELECT shared_cbf_create('bad', 1000, 0.01, 'block<33>');
SELECT shared_cbf_create('bad', 1000, 0.01, true, 'multiblock<uint64,8>');
SELECT shared_cbf_create('bad', 1000, 0.01, 'block<8>', expansion => 17);
SELECT shared_cbf_create('bad', 1000, 0.01, 'block<8>', expansion => -1);
SELECT shared_cbf_create('bad', 0, 0.01, 'block<8>');
SELECT shared_cbf_create('bad', 1000, 1.5, 'block<8>');
SELECT shared_cbf_create('bad', 1000, 0.01, 'block<8>', expansion => NULL) IS NULL AS null_expansion;
SELECT pg_temp.sqlstate_of($$SELECT shared_cbf_create('bad', 1000, 0.01, 'blocked')$$) AS unknown,
       pg_temp.sqlstate_of($$SELECT shared_cbf_create('bad', 1000, 0.01, 'fast_multiblock32<8>')$$) AS bloom_only,
       pg_temp.sqlstate_of($$SELECT shared_cbf_create('bad', 1000, 0.01, 'block<33>')$$) AS bad_k,
       pg_temp.sqlstate_of($$SELECT shared_cbf_create('bad', 1000, 0.01, 'block<8>', expansion => 17)$$) AS bad_expansion,
       pg_temp.sqlstate_of($$SELECT shared_cbf_merge('blk', cbf_empty(1000, 1e-6))$$) AS merge_other_layout,
       pg_temp.sqlstate_of($$SELECT shared_cbf_merge('blk', cbf_empty(1000, 1e-6, 'block<7>'))$$) AS merge_other_k;
SELECT count(*) AS bad_made FROM shared_objects WHERE name = 'bad';

SELECT shared_drop(name) FROM shared_objects WHERE name LIKE 'blk%' OR name = 'cls_null' ORDER BY name;
