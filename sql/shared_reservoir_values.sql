-- Shared reservoirs and reservoir values: typed samples (the item type the
-- object records), snapshots and objects seeded from a value.
SET client_min_messages = warning;

-- typed samples sort as their type; the text form stays
SELECT shared_reservoir_create('ints', 5);
SELECT shared_reservoir_seed('ints', 3);
SELECT shared_reservoir_add_many('ints', array(SELECT g FROM generate_series(1, 1000) g)) AS stored;
SELECT array_agg(s ORDER BY s) AS typed FROM shared_reservoir_sample('ints', NULL::int) s;
SELECT array_agg(s ORDER BY s) AS as_text FROM shared_reservoir_sample('ints') s;
SELECT pg_typeof(s) FROM shared_reservoir_sample('ints', NULL::int) s LIMIT 1;
-- another type: 42804, naming both
SELECT * FROM shared_reservoir_sample('ints', NULL::bigint);
SELECT * FROM shared_reservoir_sample('ints', NULL::text);
-- NULL arguments: no name, no rows; an untyped NULL names no type
SELECT count(*) AS no_name FROM shared_reservoir_sample(NULL, NULL::int);
SELECT * FROM shared_reservoir_sample('ints', NULL);
SELECT * FROM shared_reservoir_sample('nosuch', NULL::int);

-- weighted, and a type with a text form of its own
SELECT shared_reservoir_create('days', 3, weighted => true);
SELECT shared_reservoir_seed('days', 5);
SELECT count(*) AS offered FROM generate_series(1, 50) g
WHERE shared_reservoir_add('days', date '2026-01-01' + g, g) IS NOT NULL;
SELECT count(*) AS days, bool_and(s BETWEEN date '2026-01-02' AND date '2026-02-20') AS in_range,
       pg_typeof(min(s)) AS type FROM shared_reservoir_sample('days', NULL::date) s;

-- an empty object records no type: any type reads no rows; the first add records one
SELECT shared_reservoir_create('fresh', 4);
SELECT count(*) AS empty FROM shared_reservoir_sample('fresh', NULL::numeric);
SELECT shared_reservoir_add('fresh', 1.5::numeric);
SELECT s FROM shared_reservoir_sample('fresh', NULL::numeric) s;
-- items of a second type are kept, but only the text form reads them
SELECT shared_reservoir_add('fresh', 'two'::text);
SELECT s FROM shared_reservoir_sample('fresh') s ORDER BY s;
SELECT * FROM shared_reservoir_sample('fresh', NULL::numeric);
SELECT * FROM shared_reservoir_sample('fresh', NULL::text);
-- clear forgets the type
SELECT shared_reservoir_clear('fresh');
SELECT shared_reservoir_add('fresh', 'again'::text);
SELECT s FROM shared_reservoir_sample('fresh', NULL::text) s;

-- a snapshot is the reservoir value reservoir_agg builds from the same items
SELECT shared_reservoir_create('all', 10);
SELECT shared_reservoir_add_many('all', ARRAY[5, 3, 8, 1]) AS stored;
SELECT shared_reservoir_snapshot('all')::text = (SELECT reservoir_agg(g, 10) FROM unnest(ARRAY[5, 3, 8, 1]) g)::text
       AS same_as_agg;
SELECT reservoir_stats(shared_reservoir_snapshot('all'));
SELECT reservoir_items(shared_reservoir_snapshot('ints'), NULL::int) = array(SELECT shared_reservoir_sample('ints', NULL::int))
       AS same_items;
SELECT reservoir_stats(shared_reservoir_snapshot('ints'));
SELECT reservoir_stats(shared_reservoir_snapshot('days')) - 'min_log_key' - 'max_log_key' AS weighted_stats;
SELECT shared_reservoir_snapshot(NULL) IS NULL AS null_name;
SELECT shared_reservoir_snapshot('nosuch');
-- an object that records no single type snapshots as text
SELECT shared_reservoir_add('fresh', 3);
SELECT reservoir_stats(shared_reservoir_snapshot('fresh'))->>'type' AS mixed_type;
-- values from snapshots merge as any
SELECT reservoir_stats(reservoir_union_agg(r)) - 'bytes' AS union_stats
FROM (SELECT shared_reservoir_snapshot('ints') UNION ALL SELECT shared_reservoir_snapshot('all')) t(r);

-- round trips: snapshot, create_from, snapshot gives the same value
SELECT shared_create_from('ints_copy', shared_reservoir_snapshot('ints'));
SELECT shared_reservoir_snapshot('ints_copy')::bytea = shared_reservoir_snapshot('ints')::bytea AS same_value,
       shared_reservoir_stats('ints_copy') - 'ops' = shared_reservoir_stats('ints') - 'ops' - 'stored'
           || jsonb_build_object('stored', 5) AS same_stats;
SELECT array_agg(s ORDER BY s) AS copy_sample FROM shared_reservoir_sample('ints_copy', NULL::int) s;
SELECT shared_create_from('days_copy', shared_reservoir_snapshot('days'));
SELECT shared_reservoir_snapshot('days_copy')::bytea = shared_reservoir_snapshot('days')::bytea AS same_weighted;
SELECT shared_reservoir_stats('days_copy')->'weighted' AS weighted;
SELECT shared_reservoir_add('days_copy', date '2027-01-01');
-- from a value of text items; item_size grows to the longest item
SELECT shared_create_from('long', reservoir_agg(repeat('x', n), 2)) FROM (VALUES (10), (300)) v(n);
SELECT shared_reservoir_stats('long')->'item_size' AS item_size,
       (SELECT max(length(s)) FROM shared_reservoir_sample('long', NULL::text) s) AS longest;
SELECT shared_create_from('huge_item', reservoir_agg(repeat('x', 1048577), 1));
SELECT shared_create_from('ints', reservoir_agg(1, 1));
SELECT shared_create_from(NULL, reservoir_agg(1, 1)) IS NULL AS null_name,
       shared_create_from('x', NULL::reservoir) IS NULL AS null_value;
SELECT shared_create_from('bad name!', reservoir_agg(1, 1));

-- merge: what reservoir_union_agg gives for the same two reservoirs. While
-- both sides hold every item they saw and k covers them all, the merge keeps
-- every item, so the two results are equal item for item.
SELECT shared_reservoir_create('m', 10);
SELECT shared_reservoir_add_many('m', ARRAY[1, 2, 3]) AS stored;
SELECT shared_reservoir_merge('m', reservoir_agg(g, 10)) FROM generate_series(11, 15) g;
SELECT array_agg(s ORDER BY s) AS merged FROM shared_reservoir_sample('m', NULL::int) s;
SELECT array_agg(x ORDER BY x) AS union_agg
FROM unnest(reservoir_items((SELECT reservoir_union_agg(r) FROM (
    SELECT reservoir_agg(g, 10) FROM generate_series(1, 3) g
    UNION ALL SELECT reservoir_agg(g, 10) FROM generate_series(11, 15) g) t(r)), NULL::int)) x;
SELECT shared_reservoir_seen('m') AS seen, shared_reservoir_count('m') AS count;
-- past k, the sample is a uniform subset of both: k items, seen adds up, each item from one side
SELECT shared_reservoir_merge('m', reservoir_agg(g, 20)) FROM generate_series(101, 200) g;
SELECT shared_reservoir_seen('m') AS seen, shared_reservoir_count('m') AS count,
       (SELECT bool_and(s BETWEEN 1 AND 3 OR s BETWEEN 11 AND 15 OR s BETWEEN 101 AND 200)
        FROM shared_reservoir_sample('m', NULL::int) s) AS from_the_sides,
       (SELECT count(DISTINCT s) FROM shared_reservoir_sample('m', NULL::int) s) AS distinct_items;
-- the snapshot of another object; the merged object adds on as before
SELECT shared_reservoir_merge('m', shared_reservoir_snapshot('all'));
SELECT shared_reservoir_seen('m') AS seen, shared_reservoir_add('m', 7) IS NOT NULL AS adds_on,
       shared_reservoir_stats('m')->'count' AS count;
-- weighted: the k largest keys of both, so a heavy item always stays
SELECT shared_reservoir_create('wm', 3, weighted => true);
SELECT shared_reservoir_seed('wm', 9);
SELECT count(*) AS offered FROM generate_series(1, 20) g WHERE shared_reservoir_add('wm', g, 1) IS NOT NULL;
SELECT shared_reservoir_merge('wm', reservoir_agg(g, 3, CASE WHEN g = 1000 THEN 1e15 ELSE 1 END))
FROM generate_series(990, 1000) g;
SELECT shared_reservoir_seen('wm') AS seen, 1000 IN (SELECT shared_reservoir_sample('wm', NULL::int)) AS heavy_kept,
       shared_reservoir_count('wm') AS count;
-- a weighted merge equals the union of the snapshot and the value: the k largest keys
-- (keys are random: the value is drawn once, into a table)
CREATE TEMP TABLE later AS SELECT reservoir_agg(date '2030-01-01' + g, 3, g) AS r FROM generate_series(1, 30) g;
SELECT shared_create_from('wm2', shared_reservoir_snapshot('days'));
SELECT shared_reservoir_merge('wm2', r) FROM later;
SELECT (SELECT array_agg(x ORDER BY x) FROM unnest(reservoir_items(reservoir_union_agg(r), NULL::date)) x)
           = (SELECT array_agg(s ORDER BY s) FROM shared_reservoir_sample('wm2', NULL::date) s) AS same_items,
       reservoir_stats(reservoir_union_agg(r)) - 'bytes' = reservoir_stats(shared_reservoir_snapshot('wm2')) - 'bytes'
           AS same_stats
FROM (SELECT shared_reservoir_snapshot('days') UNION ALL SELECT r FROM later) t(r);
-- refusals: another mode, another item type, a smaller k, NULLs, no object
SELECT shared_reservoir_merge('wm', reservoir_agg(1, 3));
SELECT shared_reservoir_merge('m', reservoir_agg(1, 3, 1.0));
SELECT shared_reservoir_merge('m', reservoir_agg('a'::text, 10));
SELECT shared_reservoir_merge('m', reservoir_agg(1, 9));
SELECT shared_reservoir_merge('m', NULL) IS NULL AS null_value, shared_reservoir_merge(NULL, reservoir_agg(1, 10)) IS NULL AS null_name;
SELECT shared_reservoir_merge('nosuch', NULL);
-- an empty value (a snapshot of an empty object) changes nothing
SELECT shared_reservoir_create('empty', 10);
SELECT shared_reservoir_merge('fresh', shared_reservoir_snapshot('empty'));
SELECT shared_reservoir_seen('fresh') AS seen_unchanged;

-- privileges: snapshot needs read; create_from is revoked from PUBLIC like every create
CREATE ROLE regress_sresv_reader;
SET ROLE regress_sresv_reader;
SELECT shared_reservoir_snapshot('ints');
SELECT shared_create_from('mine', reservoir_agg(1, 1));
RESET ROLE;
SELECT shared_grant('m', 'regress_sresv_reader', 'read');
SET ROLE regress_sresv_reader;
SELECT shared_reservoir_merge('m', reservoir_agg(1, 10));
RESET ROLE;
SELECT shared_grant('ints', 'regress_sresv_reader', 'read');
SET ROLE regress_sresv_reader;
SELECT reservoir_count(shared_reservoir_snapshot('ints')) AS count;
RESET ROLE;

-- a frozen object snapshots without a lock
SELECT shared_freeze('all');
SELECT reservoir_seen(shared_reservoir_snapshot('all')) AS seen;
SELECT shared_reservoir_merge('all', reservoir_agg(1, 10));

SELECT shared_drop(name) FROM shared_objects
WHERE name IN ('ints', 'days', 'fresh', 'all', 'ints_copy', 'days_copy', 'long', 'm', 'wm', 'wm2', 'empty') ORDER BY name;
DROP ROLE regress_sresv_reader;
