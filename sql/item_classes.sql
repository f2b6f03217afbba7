-- Filters record the class of their items (docs/hashing.md#item-classes) and
-- refuse items, filters and merges of another class (42804).
\set VERBOSITY terse
-- integers of every width are one class; the first add records it
SELECT bloom_contains(bloom_add(bloom_empty(100, 0.01), 42::int2), 42::bigint) AS int_widths,
       cbf_contains(cbf_add(cbf_empty(100), 42), 42::int8) AS cbf_int_widths,
       substr(bloom_empty_bits(1024, 'classic<3>')::bytea, 1, 1) AS empty_is_version_1,
       substr(bloom_add(bloom_empty_bits(1024, 'classic<3>'), 1)::bytea, 1, 1) AS added_is_version_2,
       bloom_info(bloom_add(bloom_empty_bits(1024, 'classic<3>'), 1))->'version' AS info_version,
       substr(bloom_add(bloom_empty(100, 0.01), 1)::bytea, 1, 1) AS sized_is_version_3;
-- lookups, adds and merges of another class
SELECT bloom_contains(bloom_add(bloom_empty(100, 0.01), 42), '42');
SELECT bloom_add(bloom_add(bloom_empty(100, 0.01), 42), 4.2::float8);
SELECT bloom_add(bloom_add(bloom_empty(100, 0.01), 'a'), gen_random_uuid());
SELECT bloom_add(bloom_empty(100, 0.01), 1) | bloom_add(bloom_empty(100, 0.01), 'a');
SELECT cbf_add(cbf_empty(100), 1) + cbf_add(cbf_empty(100), 'a');
SELECT cbf_count_of(cbf_add(cbf_empty(100), 1), true);
SELECT bloom_contains(bloom_add(bloom_empty(100, 0.01), '2026-11-30'::date), '2026-11-30');
-- a filter of no class takes any item; a union takes the known class
SELECT bloom_contains(bloom_empty(100, 0.01) | bloom_add(bloom_empty(100, 0.01), 'a'), 'a') AS union_keeps_class;
SELECT bloom_contains(bloom_empty(100, 0.01) | bloom_add(bloom_empty(100, 0.01), 'a'), 1);
-- aggregates record the class too; a class travels through text, bytea and snapshots
SELECT bloom_contains(bloom_agg(x, 100, 0.01)::text::bloom, 'a') FROM generate_series(1, 3) x;
SELECT cbf_contains(cbf_agg(x, 100)::bytea::cbf, 'a') FROM generate_series(1, 3) x;
SELECT bloom_contains(cbf_to_bloom(cbf_add(cbf_empty(100), 7)), 'a');
-- values of version 1 (made before classes) read as before, and take any item
SELECT bloom_contains('\x010000020100000000000000400000000000000000000000000000002000000000200000'::bloom, 1) AS v1_int,
       bloom_contains('\x010000020100000000000000400000000000000000000000000000002000000000200000'::bloom, 'x') AS v1_text;
-- a version this build does not know, or a class it does not know, is refused
SELECT '\x040000020100000000000000400000000000000000000000000000000000000000000000'::bloom;
SELECT '\x020000020107000000000000400000000000000000000000000000000000000000000000'::bloom;
SELECT overlay(cbf_empty(10, 0.5)::bytea PLACING '\x03' FROM 1 FOR 1)::cbf;
SELECT overlay(cbf_add(cbf_empty(10, 0.5), 1)::bytea PLACING '\x09' FROM 5 FOR 1)::cbf;
-- a built-in type's class holds an oid that initdb fixes (below 10000): another
-- is refused on input; a fixed one this server lacks (a later major version's
-- type) is named as such when a lookup is refused
SELECT overlay(bloom_add(bloom_empty_bits(64, 'classic<2>'), '2026-01-01'::date)::bytea PLACING '\x9f860100' FROM 9 FOR 4)::bloom;
SELECT overlay(cbf_add(cbf_empty(10, 0.5), '2026-01-01'::date)::bytea PLACING '\x9f860100' FROM 41 FOR 4)::cbf;
SELECT bloom_contains(overlay(bloom_add(bloom_empty_bits(64, 'classic<2>'), '2026-01-01'::date)::bytea PLACING '\x0f270000' FROM 9 FOR 4)::bloom, 'a');
SELECT cbf_contains(overlay(cbf_add(cbf_empty(10, 0.5), '2026-01-01'::date)::bytea PLACING '\x0f270000' FROM 41 FOR 4)::cbf, 'a');
-- an array is one item only in a filter of arrays
SELECT bloom_add(bloom_empty(100, 0.01), ARRAY[1, 2]);
SELECT cbf_add(cbf_empty(100), ARRAY[1, 2]);
SELECT bloom_contains(bloom_add(bloom_empty(100, 0.01), 1), ARRAY[1, 2]);
SELECT bloom_contains(bloom_agg(a, 10, 0.01), ARRAY[1, 2]) AS filter_of_arrays FROM (VALUES (ARRAY[1, 2])) v(a);

-- bulk forms on values: the elements are the items, NULLs skipped by adds and
-- NULL at their place in lookups, in the shape of the array
SELECT bloom_contains_many(bloom_add_many(bloom_empty(100, 0.001), ARRAY[1, 2, NULL, 3]), ARRAY[1, NULL, 4, 3]) AS bloom_many,
       cbf_contains_many(cbf_add_many(cbf_empty(100, 0.001), ARRAY['a', 'b']), ARRAY[['a', 'c'], ['b', NULL]]) AS cbf_many_2d,
       bloom_contains_many(bloom_empty(100, 0.01), '{}'::int[]) AS empty,
       bloom_add_many(bloom_empty(100, 0.01), '{}'::int[]) = bloom_empty(100, 0.01) AS empty_adds_nothing,
       bloom_add_many(bloom_empty(100, 0.01), ARRAY[NULL]::int[]) = bloom_empty(100, 0.01) AS nulls_add_nothing,
       bloom_add_many(bloom_empty(100, 0.01), NULL::int[]) = bloom_empty(100, 0.01) AS null_array_adds_nothing,
       bloom_add_many(NULL::bloom, ARRAY[1]) IS NULL AS null_filter,
       bloom_contains_many(bloom_empty(100, 0.01), NULL::int[]) IS NULL AS null_lookup,
       array_lower(bloom_contains_many(bloom_empty(100, 0.01), '[5:6]={1,2}'::int[]), 1) AS keeps_bounds;
SELECT bloom_add_many(bloom_empty(10000, 0.01), x) = bloom_agg(y, 10000, 0.01) AS many_equals_agg,
       cbf_add_many(cbf_empty(10000), x) = cbf_agg(y, 10000) AS cbf_many_equals_agg
FROM (SELECT array_agg(i) AS x FROM generate_series(1, 3000) i) a, generate_series(1, 3000) y GROUP BY x;
SELECT bloom_contains_many(bloom_add_many(bloom_empty(100, 0.01), ARRAY[1]), ARRAY['a']);
SELECT cbf_add_many(cbf_add(cbf_empty(100), 'a'), ARRAY[1, 2]);
SELECT bloom_add_many(bloom_empty(100, 0.01), 5);
SELECT cbf_contains_many(cbf_empty(100), '{1,2}');
-- a large array: one million elements
SELECT cardinality(bloom_contains_many(bloom_add_many(bloom_empty(1000000, 0.01), a), a)) AS n,
       array_position(bloom_contains_many(bloom_add_many(bloom_empty(1000000, 0.01), a), a), false) AS first_false
FROM (SELECT array_agg(i) AS a FROM generate_series(1, 1000000) i) s;

-- shared objects: the first add records the class in the object's file
SELECT shared_bloom_create('ic_bloom', 1000, 0.01);
SELECT shared_cbf_create('ic_cbf', 1000);
SELECT shared_bloom_contains('ic_bloom', 'a') AS no_class_yet;
SELECT shared_bloom_add('ic_bloom', 1), shared_cbf_add_many('ic_cbf', ARRAY['a', 'b']);
SELECT shared_bloom_add('ic_bloom', 'a');
SELECT shared_bloom_contains('ic_bloom', 'a');
SELECT shared_bloom_add_many('ic_bloom', ARRAY['a']);
SELECT shared_cbf_add('ic_cbf', 1);
SELECT shared_cbf_remove('ic_cbf', 1);
SELECT shared_cbf_count_of('ic_cbf', 1);
SELECT shared_cbf_add('ic_cbf', ARRAY['a']);
SELECT shared_bloom_merge('ic_bloom', bloom_add(shared_bloom_snapshot('ic_bloom'), 'a'));
SELECT shared_cbf_merge('ic_cbf', cbf_add(cbf_empty(1000, 0.005), 1));  -- the first sub-filter's rate
SELECT bloom_contains(shared_bloom_snapshot('ic_bloom'), 'a');
SELECT shared_create_from('ic_copy', cbf_add(cbf_empty(1000), 'a'));
SELECT shared_cbf_add('ic_copy', 1);
SELECT shared_bloom_contains_many('ic_bloom', ARRAY[1, NULL, 2]) AS shared_bloom_many,
       shared_cbf_contains_many('ic_cbf', ARRAY[['a', 'z'], [NULL, 'b']]) AS shared_cbf_many,
       shared_cbf_contains_many('ic_cbf', '{}'::text[]) AS empty,
       shared_cbf_contains_many('ic_cbf', NULL::text[]) IS NULL AS null_array;
SELECT shared_bloom_contains_many('ic_bloom', ARRAY['a']);
SELECT shared_bloom_contains_many('missing', NULL::int[]);
SELECT shared_cbf_contains_many('ic_cbf', 'a');

-- An anyarray column (pg_stats.most_common_vals) gives one call site arrays
-- of another element type from row to row: each new type is checked against
-- the filter or object the call site kept, for values in line and stored
-- out of line, and for objects, by lookups and adds alike.
CREATE TABLE ic_mcv (a int, b text);
INSERT INTO ic_mcv SELECT g % 5, (g % 5)::text FROM generate_series(1, 1000) g;
ANALYZE ic_mcv;
CREATE TABLE ic_mcv_filters (form text, f bloom, c cbf);
ALTER TABLE ic_mcv_filters ALTER f SET STORAGE external, ALTER c SET STORAGE external;
INSERT INTO ic_mcv_filters SELECT 'in line', bloom_agg(i, 100, 0.01), cbf_agg(i, 100, 0.01) FROM generate_series(0, 4) i;
INSERT INTO ic_mcv_filters SELECT 'out of line', bloom_agg(i, 100000, 0.01), cbf_agg(i, 10000, 0.01) FROM generate_series(0, 4) i;
SELECT form, pg_column_size(f) > 2000 AS bloom_out_of_line, pg_column_size(c) > 2000 AS cbf_out_of_line
FROM ic_mcv_filters ORDER BY form;
-- (the integers' row first)
\set ic_mcv_rows '(SELECT attname, most_common_vals AS v FROM pg_stats WHERE tablename = ''ic_mcv'' ORDER BY attname OFFSET 0) r'
SELECT attname, (SELECT bool_and(x) FROM unnest(bloom_contains_many((SELECT f FROM ic_mcv_filters WHERE form = 'in line'), v)) x)
FROM :ic_mcv_rows;
SELECT attname, (SELECT bool_and(x) FROM unnest(bloom_contains_many((SELECT f FROM ic_mcv_filters WHERE form = 'out of line'), v)) x)
FROM :ic_mcv_rows;
SELECT attname, (SELECT bool_and(x) FROM unnest(cbf_contains_many((SELECT c FROM ic_mcv_filters WHERE form = 'in line'), v)) x)
FROM :ic_mcv_rows;
SELECT attname, (SELECT bool_and(x) FROM unnest(cbf_contains_many((SELECT c FROM ic_mcv_filters WHERE form = 'out of line'), v)) x)
FROM :ic_mcv_rows;
SELECT shared_bloom_create('ic_mcv_bloom', 100, 0.01), shared_cbf_create('ic_mcv_cbf', 100);
SELECT shared_bloom_add_many('ic_mcv_bloom', ARRAY[0, 1, 2, 3, 4]), shared_cbf_add_many('ic_mcv_cbf', ARRAY[0, 1, 2, 3, 4]);
SELECT attname, (SELECT bool_and(x) FROM unnest(shared_bloom_contains_many('ic_mcv_bloom', v)) x) FROM :ic_mcv_rows;
SELECT attname, (SELECT bool_and(x) FROM unnest(shared_cbf_contains_many('ic_mcv_cbf', v)) x) FROM :ic_mcv_rows;
SELECT attname, shared_bloom_add_many('ic_mcv_bloom', v) FROM :ic_mcv_rows;
SELECT attname, shared_cbf_add_many('ic_mcv_cbf', v) FROM :ic_mcv_rows;
SELECT shared_bloom_contains('ic_mcv_bloom', 5) AS bloom_took_none, shared_cbf_count('ic_mcv_cbf') AS cbf_items;
DROP TABLE ic_mcv, ic_mcv_filters;

-- create if not exists: true when it created, a notice and false when the name is taken
SELECT shared_bloom_create('ic_bloom', 10, 0.1, if_not_exists => true) AS bloom_again,
       shared_bloom_create('ic_new', 10, 0.1, if_not_exists => true, layout => 'classic') AS bloom_new,
       shared_cbf_create('ic_cbf', 10, 0.1, if_not_exists => true) AS cbf_again,
       shared_reservoir_create('ic_res', 5, 64, false, if_not_exists => true) AS reservoir_new,
       shared_reservoir_create('ic_res', 5, 64, false, if_not_exists => true) AS reservoir_again;
SELECT shared_cbf_create('ic_cbf', 10, 0.1, if_not_exists => false);
SELECT shared_bloom_create('ic_null', 10, 0.1, if_not_exists => NULL) IS NULL AS null_flag_creates_nothing,
       (SELECT count(*) FROM shared_objects WHERE name = 'ic_null') AS rows;
SELECT shared_cbf_create('ic_cbf', 10, 'NaN');
SELECT shared_bloom_create('ic_x', 10, 0.1, 'classic') AS untyped_literal_is_a_layout;
SELECT count(shared_drop(name)) FROM shared_objects;
