-- The capacity of shared Bloom and counting filters: expansion => 0 makes a
-- fixed-size object that refuses the add past its capacity (53400), for
-- immediate and transactional adds; the items held and the expansion in
-- shared_objects and the stats; bad expansion values. Rates of 1e-9 keep
-- false positives out of the counts.
\i sql/include/sqlstate_of.sql
SELECT shared_bloom_create('fixed_bf', 10, 1e-9, expansion => 0);
SELECT shared_cbf_create('fixed_cbf', 10, 1e-9, expansion => 0);
SELECT shared_bloom_create('grows_bf', 10, 1e-9);
SELECT shared_cbf_create('grows_cbf', 10, 1e-9, expansion => 2);

-- a Bloom filter counts the adds that were new; a repeated item takes no room
SELECT shared_bloom_add_many('fixed_bf', ARRAY[1, 2, 3, 4, 5, 6, 7, 8], transactional => false) AS added;
SELECT shared_bloom_add('fixed_bf', 1, transactional => false) AS again;
SELECT shared_bloom_add('fixed_bf', 9) AS ninth, shared_bloom_add('fixed_bf', 10) AS tenth;
SELECT (shared_bloom_stats('fixed_bf') ->> 'items_held')::int AS held,
       (shared_bloom_stats('fixed_bf') ->> 'expansion')::int AS expansion;
-- the eleventh item is refused, transactional or not, with the object's name
-- and capacity; a known one is not
SELECT shared_bloom_add('fixed_bf', 11);
SELECT shared_bloom_add('fixed_bf', 11, transactional => false);
SELECT pg_temp.sqlstate_of($$SELECT shared_bloom_add('fixed_bf', 11)$$) AS transactional,
       pg_temp.sqlstate_of($$SELECT shared_bloom_add_many('fixed_bf', ARRAY[11, 12], false)$$) AS immediate_many;
SELECT shared_bloom_add('fixed_bf', 3) AS known, shared_bloom_contains('fixed_bf', 11) AS refused_absent;
-- a clear empties it
SELECT shared_bloom_clear('fixed_bf');
SELECT (shared_bloom_stats('fixed_bf') ->> 'items_held')::int AS held_after_clear,
       shared_bloom_add('fixed_bf', 11) AS eleventh_after_clear;

-- a counting filter counts every add, minus the removes
SELECT shared_cbf_add_many('fixed_cbf', ARRAY[1, 1, 2, 3, 4, 5, 6, 7], transactional => false) AS added;
SELECT shared_cbf_add('fixed_cbf', 1) AS again, shared_cbf_add('fixed_cbf', 8) AS tenth;
SELECT shared_cbf_add('fixed_cbf', 1);
SELECT shared_cbf_remove('fixed_cbf', 1) AS removed, shared_cbf_remove('fixed_cbf', 99) AS not_there;
SELECT (shared_cbf_stats('fixed_cbf') ->> 'items_held')::int AS held,
       (shared_cbf_stats('fixed_cbf') ->> 'expansion')::int AS expansion,
       (shared_cbf_stats('fixed_cbf') ->> 'estimated_fpr')::float8 > 0 AS has_fpr;
SELECT shared_cbf_add('fixed_cbf', 9) AS after_remove;
SELECT pg_temp.sqlstate_of($$SELECT shared_cbf_add('fixed_cbf', 9, transactional => false)$$) AS immediate;

-- a transaction reserves room when it adds: an abort, a rollback to a
-- savepoint, or an add another transaction made first gives it back
SELECT shared_cbf_clear('fixed_cbf');
BEGIN;
SELECT shared_cbf_add_many('fixed_cbf', ARRAY[1, 2, 3, 4, 5]) AS pending;
SELECT (shared_cbf_stats('fixed_cbf') ->> 'items_held')::int AS reserved_while_pending;
SAVEPOINT s;
SELECT shared_cbf_add_many('fixed_cbf', ARRAY[6, 7, 8, 9, 10]) AS in_savepoint;
SELECT shared_cbf_add('fixed_cbf', 11);
ROLLBACK TO SAVEPOINT s;
SELECT (shared_cbf_stats('fixed_cbf') ->> 'items_held')::int AS after_rollback_to_savepoint;
ROLLBACK;
SELECT (shared_cbf_stats('fixed_cbf') ->> 'items_held')::int AS after_rollback;
SELECT shared_bloom_clear('fixed_bf');
BEGIN;
SELECT shared_bloom_add_many('fixed_bf', ARRAY[1, 2, 3]) AS pending;
SELECT shared_bloom_add_many('fixed_bf', ARRAY[2, 3, 4], transactional => false) AS added_first;
COMMIT;
SELECT (shared_bloom_stats('fixed_bf') ->> 'items_held')::int AS held_after_commit;

-- scaling objects grow by sub-filters past their capacity (10, 20, 40: 30
-- items need two) and count their items
SELECT shared_bloom_add_many('grows_bf', array_agg(g), transactional => false) AS added FROM generate_series(1, 30) g;
SELECT shared_cbf_add_many('grows_cbf', array_agg(g)) AS added FROM generate_series(1, 30) g;
SELECT count(*) AS found FROM generate_series(1, 30) g WHERE shared_bloom_contains('grows_bf', g) AND shared_cbf_contains('grows_cbf', g);
SELECT name, kind, capacity, expansion, subfilters, items_held FROM shared_objects
WHERE name IN ('fixed_bf', 'fixed_cbf', 'grows_bf', 'grows_cbf') ORDER BY name;
-- if_not_exists forms take the expansion too
SELECT shared_bloom_create('fixed_bf2', 10, 0.01, true, expansion => 0) AS created,
       shared_cbf_create('fixed_cbf2', 10, 0.01, true, expansion => 0) AS created_cbf;
SELECT name, expansion FROM shared_objects WHERE name IN ('fixed_bf2', 'fixed_cbf2') ORDER BY name;
-- objects made from values take the default expansion; a bloom value does not
-- record its capacity, so that object's is unknown
SELECT shared_create_from('from_cbf', cbf_agg(g, 10)) FROM generate_series(1, 5) g;
SELECT shared_create_from('from_bf', bloom_agg(g, 10, 0.01)) FROM generate_series(1, 5) g;
SELECT name, capacity, expansion, items_held FROM shared_objects WHERE name IN ('from_bf', 'from_cbf') ORDER BY name;

-- bad expansion values (22023)
SELECT pg_temp.sqlstate_of($$SELECT shared_bloom_create('bad', 10, 0.01, expansion => -1)$$) AS negative;
SELECT shared_bloom_create('bad', 10, 0.01, expansion => -1);
SELECT shared_bloom_create('bad', 10, 0.01, expansion => 17);
SELECT shared_cbf_create('bad', 10, 0.01, expansion => 100);
SELECT shared_cbf_create('bad', 10, 0.01, true, expansion => -2);
SELECT shared_bloom_create('bad', 10, 0.01, expansion => NULL) IS NULL AS null_expansion_creates_nothing;
SELECT count(*) AS bad_rows FROM shared_objects WHERE name = 'bad';

SELECT shared_drop(name) FROM shared_objects
WHERE name IN ('fixed_bf', 'fixed_cbf', 'grows_bf', 'grows_cbf', 'fixed_bf2', 'fixed_cbf2', 'from_bf', 'from_cbf')
ORDER BY name;
