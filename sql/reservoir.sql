-- reservoir_sample / reservoir_agg / reservoir_union_agg and the reservoir type.
-- pg_regress runs this file serially and with forced parallel plans against
-- the same expected output, so nothing printed depends on which rows were
-- sampled; statistical checks print booleans with tolerances from the math.
SET sketchshare.seed = 'regress';
SET extra_float_digits = 0;

-- fewer rows than k: every value, NULLs skipped
SELECT array(SELECT unnest(reservoir_sample(x, 10)) ORDER BY 1) AS all_values
FROM (VALUES (3), (NULL), (1), (2), (NULL)) v(x);
-- only NULLs, or no rows: NULL, like array_agg
SELECT reservoir_sample(x, 3) IS NULL AS only_nulls FROM (VALUES (NULL::int), (NULL)) v(x);
SELECT reservoir_sample(x, 3) IS NULL AS no_rows FROM generate_series(1, 0) x;
-- k of n: k distinct values of the input
SELECT cardinality(s) AS n, (SELECT count(DISTINCT v) FROM unnest(s) v) AS distinct_values,
       (SELECT bool_and(v BETWEEN 1 AND 1000) FROM unnest(s) v) AS from_input
FROM (SELECT reservoir_sample(x, 5) AS s FROM generate_series(1, 1000) x) q;

-- any element type; values of any length kept whole
SELECT pg_typeof(reservoir_sample(x, 2)) AS int8_array FROM generate_series(1::bigint, 5) x;
SELECT pg_typeof(reservoir_sample(x::numeric / 3, 2)) AS numeric_array FROM generate_series(1, 5) x;
-- (arrays as items: PostgreSQL has no array-of-array type to return, so
-- sample them with reservoir_agg and read the value's text form)
SELECT reservoir_count(reservoir_agg(ARRAY[x, x], 2)) AS arrays_kept FROM generate_series(1, 5) x;
SELECT bool_and(length(v) = 100000 AND v = repeat(chr(64 + i), 100000)) AS long_text_whole,
       count(*) AS kept
FROM (SELECT reservoir_sample(repeat(chr(64 + x), 100000), 3) AS s FROM generate_series(1, 20) x) q,
     unnest(s) v, LATERAL (SELECT ascii(v) - 64 AS i) c;
CREATE TYPE reservoir_test_pair AS (a int, b text);
SELECT array(SELECT (p).a FROM unnest(reservoir_sample(ROW(x, x::text)::reservoir_test_pair, 10)) p ORDER BY 1) AS composites
FROM generate_series(1, 4) x;
CREATE DOMAIN reservoir_test_small AS oid CHECK (VALUE < 100);
SELECT pg_typeof(reservoir_sample(x::reservoir_test_small, 2)) AS domain_array,
       pg_typeof(reservoir_items(reservoir_agg(x::reservoir_test_small, 2), NULL::reservoir_test_small)) AS items_array,
       reservoir_agg(x::reservoir_test_small, 2)::text::reservoir IS NOT NULL AS domain_text_round_trip
FROM generate_series(1, 5) x;
-- a domain over a type the aggregates have an overload for (docs/citus.md) takes
-- that overload: its sample is of the base type
CREATE DOMAIN reservoir_test_int AS int CHECK (VALUE < 100);
SELECT pg_typeof(reservoir_sample(x::reservoir_test_int, 2)) AS int_domain_array,
       pg_typeof(reservoir_items(reservoir_agg(x::reservoir_test_int, 2), NULL::int)) AS int_domain_items
FROM generate_series(1, 5) x;
-- an untyped literal is text
SELECT reservoir_sample('abc', 2) AS literal, pg_typeof(reservoir_sample('abc', 2)) AS literal_type;
SELECT reservoir_sample(x, 1) AS uuid_one
FROM (VALUES ('00112233-4455-6677-8899-aabbccddeeff'::uuid)) v(x);

-- GROUP BY, hashed and sorted; FILTER
CREATE TABLE reservoir_groups AS SELECT x, x % 7 AS g FROM generate_series(1, 7000) x;
ANALYZE reservoir_groups;
SET enable_sort = off;
SELECT g, cardinality(s) AS n, (SELECT bool_and(v % 7 = g) FROM unnest(s) v) AS own_group
FROM (SELECT g, reservoir_sample(x, 4) AS s FROM reservoir_groups GROUP BY g) q ORDER BY g;
RESET enable_sort;
SET enable_hashagg = off;
SELECT g, cardinality(s) AS n, (SELECT bool_and(v % 7 = g) FROM unnest(s) v) AS own_group
FROM (SELECT g, reservoir_sample(x, 4) AS s FROM reservoir_groups GROUP BY g) q ORDER BY g;
RESET enable_hashagg;
-- hash aggregation spilling to disk (many groups, tiny work_mem)
SET work_mem = '64kB';
SET enable_sort = off;
SELECT count(*) AS groups, sum(cardinality(s)) AS kept, bool_and((SELECT bool_and(v % 5000 = g) FROM unnest(s) v)) AS own_group
FROM (SELECT x % 5000 AS g, reservoir_sample(x, 3) AS s FROM generate_series(1, 50000) x GROUP BY 1) q;
RESET enable_sort;
RESET work_mem;
SELECT cardinality(s) AS n, (SELECT bool_and(v % 2 = 0) FROM unnest(s) v) AS filtered
FROM (SELECT reservoir_sample(x, 6) FILTER (WHERE x % 2 = 0) AS s FROM reservoir_groups) q;

-- large k
SELECT cardinality(s) AS n, (SELECT count(DISTINCT v) FROM unnest(s) v) AS distinct_values
FROM (SELECT reservoir_sample(x, 100000) AS s FROM generate_series(1, 150000) x) q;

-- as a window aggregate (the state is read, never modified, by the final
-- function); a moving frame restarts the aggregate, freeing the old state
SELECT x, cardinality(reservoir_sample(x, 3) OVER (ORDER BY x)) AS n FROM generate_series(1, 5) x;
SELECT x, array(SELECT unnest(s) ORDER BY 1) AS frame FROM (
    SELECT x, reservoir_sample(x::text, 5) OVER (ORDER BY x ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS s
    FROM generate_series(1, 5) x) q;

-- reproducible: with sketchshare.seed set, the same query over the same rows
-- in a serial plan returns the same sample; another seed, another sample
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE reservoir_runs (run text, g int, s bigint[], w bigint[]);
INSERT INTO reservoir_runs
SELECT 'a', x % 3, reservoir_sample(x, 5), reservoir_sample(x, 5, (x % 10 + 1)::float8)
FROM generate_series(1::bigint, 10000) x GROUP BY x % 3;
INSERT INTO reservoir_runs
SELECT 'b', x % 3, reservoir_sample(x, 5), reservoir_sample(x, 5, (x % 10 + 1)::float8)
FROM generate_series(1::bigint, 10000) x GROUP BY x % 3;
SET sketchshare.seed = 'another';
INSERT INTO reservoir_runs
SELECT 'c', x % 3, reservoir_sample(x, 5), reservoir_sample(x, 5, (x % 10 + 1)::float8)
FROM generate_series(1::bigint, 10000) x GROUP BY x % 3;
RESET sketchshare.seed;
INSERT INTO reservoir_runs
SELECT 'd', x % 3, reservoir_sample(x, 5), reservoir_sample(x, 5, (x % 10 + 1)::float8)
FROM generate_series(1::bigint, 10000) x GROUP BY x % 3;
INSERT INTO reservoir_runs
SELECT 'e', x % 3, reservoir_sample(x, 5), reservoir_sample(x, 5, (x % 10 + 1)::float8)
FROM generate_series(1::bigint, 10000) x GROUP BY x % 3;
SELECT g,
       (SELECT s FROM reservoir_runs WHERE run = 'a' AND g = r.g) = (SELECT s FROM reservoir_runs WHERE run = 'b' AND g = r.g) AS same_seed_same,
       (SELECT w FROM reservoir_runs WHERE run = 'a' AND g = r.g) = (SELECT w FROM reservoir_runs WHERE run = 'b' AND g = r.g) AS weighted_same,
       (SELECT s FROM reservoir_runs WHERE run = 'a' AND g = r.g) <> (SELECT s FROM reservoir_runs WHERE run = 'c' AND g = r.g) AS other_seed_differs,
       (SELECT s FROM reservoir_runs WHERE run = 'd' AND g = r.g) <> (SELECT s FROM reservoir_runs WHERE run = 'e' AND g = r.g) AS unset_differs
FROM (SELECT DISTINCT g FROM reservoir_runs) r ORDER BY g;
-- groups draw distinct streams: equal-sized groups do not pick the same positions
SELECT count(DISTINCT (SELECT array_agg(v / 3 ORDER BY v / 3) FROM unnest(s) v)) AS distinct_position_sets
FROM reservoir_runs WHERE run = 'a';
SET sketchshare.seed = 'regress';
RESET max_parallel_workers_per_gather;

-- Uniformity: 5 of 20 items over 3000 trials. Each item's inclusion count
-- has mean 750 and variance 3000 p (1-p), p = 1/4; the counts of a trial sum
-- to 5, which makes sum (n - 750)^2 / (3000 p (1-p) 20/19) chi-square with
-- 19 degrees of freedom: below 43.82 at p = 0.001. The rows of each trial
-- are spread over the table, so parallel workers split every trial.
CREATE TABLE reservoir_trials AS
SELECT t AS trial, i AS item FROM generate_series(1, 20) i, generate_series(1, 3000) t;
ANALYZE reservoir_trials;
CREATE FUNCTION reservoir_chi2(samples anyarray) RETURNS TABLE (items bigint, total bigint, chi2_ok boolean)
LANGUAGE sql AS $$
  SELECT count(*), sum(n), sum((n - 750.0)^2) / (3000 * 0.25 * 0.75 * 20 / 19) < 43.82
  FROM (SELECT v, count(*) AS n FROM unnest(samples) v GROUP BY v) c
$$;
-- serial (the parallel pass of pg_regress runs it under forced parallelism)
SELECT * FROM reservoir_chi2((SELECT array_agg(v) FROM (
    SELECT reservoir_sample(item, 5) AS s FROM reservoir_trials GROUP BY trial) q, unnest(s) v));
-- through an explicitly parallel plan: partial states merged by the combine function
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT trial, reservoir_sample(item, 5) FROM reservoir_trials GROUP BY trial;
SELECT * FROM reservoir_chi2((SELECT array_agg(v) FROM (
    SELECT reservoir_sample(item, 5) AS s FROM reservoir_trials GROUP BY trial) q, unnest(s) v));
RESET enable_sort;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
-- through reservoir_union_agg of uneven parts (2, 7, 11 items) of each trial
SELECT * FROM reservoir_chi2((SELECT array_agg(v) FROM (
    SELECT reservoir_items(reservoir_union_agg(r), NULL::int) AS s FROM (
        SELECT trial, reservoir_agg(item, 5) AS r FROM reservoir_trials
        GROUP BY trial, CASE WHEN item <= 2 THEN 0 WHEN item <= 9 THEN 1 ELSE 2 END) parts
    GROUP BY trial) q, unnest(s) v));

-- Weighted, k = 1: A (weight 1) against B (weight 3) over 8000 trials. B wins
-- with probability 3/4: 6000 expected, standard deviation sqrt(8000 * 3/16) =
-- 38.7, so within 4 standard deviations means |wins - 6000| < 154.9.
SELECT abs(count(*) FILTER (WHERE s[1] = 'B') - 6000) < 154.9 AS b_three_quarters, count(*) AS trials
FROM (SELECT reservoir_sample(item, 1, weight) AS s
      FROM generate_series(1, 8000) t, (VALUES ('A', 1.0::float8), ('B', 3.0)) v(item, weight)
      GROUP BY t) q;
-- 3 heavy items (weight 1e6) among 40 light ones (weight 1), k = 3: a light
-- item displaces a heavy one with probability about 40/1e6 per trial, so all
-- three heavy items are kept in more than 98% of 1000 trials.
SELECT count(*) FILTER (WHERE s @> ARRAY[1, 2, 3]) > 980 AS heavy_kept, count(*) AS trials
FROM (SELECT reservoir_sample(i, 3, CASE WHEN i <= 3 THEN 1e6 ELSE 1 END) AS s
      FROM generate_series(1, 1000) t, generate_series(1, 43) i GROUP BY t) q;

-- the reservoir type
CREATE TABLE reservoir_values AS
SELECT reservoir_agg(x, 5) AS u, reservoir_agg(x, 4, x) AS w,
       reservoir_agg(x::text || ' "quoted" \ ü', 3) AS t
FROM generate_series(1::bigint, 100) x;
SELECT reservoir_seen(u), reservoir_count(u), reservoir_seen(w), reservoir_count(w) FROM reservoir_values;
SELECT reservoir_stats(u) - 'bytes' AS u_stats, reservoir_stats(t) - 'bytes' AS t_stats FROM reservoir_values;
SELECT (reservoir_stats(w) ->> 'max_log_key')::float8 <= 0 AS keys_are_logs, reservoir_stats(w) ->> 'weighted' AS weighted
FROM reservoir_values;
SELECT pg_typeof(reservoir_items(u, NULL::bigint)), cardinality(reservoir_items(u, NULL::bigint)),
       (SELECT bool_and(v LIKE '% "quoted" \\ ü') FROM unnest(reservoir_items(t, NULL::text)) v) AS text_intact
FROM reservoir_values;
SELECT reservoir_items(NULL::reservoir, NULL::int) IS NULL AS null_reservoir;
-- text and binary forms round-trip exactly (weighted keys included)
SELECT u::text::reservoir::text = u::text AS u_text, w::text::reservoir::text = w::text AS w_text,
       t::text::reservoir::text = t::text AS t_text,
       u::bytea::reservoir::text = u::text AS u_binary, w::bytea::reservoir::text = w::text AS w_binary,
       t::bytea::reservoir::text = t::text AS t_binary
FROM reservoir_values;
-- a value typed by hand
SELECT reservoir_items('{"version": 1, "type": "integer", "k": 3, "seen": 9, "weighted": false, "items": ["4", "8", "1"]}'::reservoir, NULL::int);
SELECT reservoir_items('{"version": 1, "type": "text", "k": 2, "seen": 2, "weighted": true, "items": ["a", "b"], "keys": [-0.5, "-Infinity"]}'::reservoir, NULL::text);
-- an infinite key shows in the stats as it does in the text form
SELECT reservoir_stats('{"version": 1, "type": "text", "k": 2, "seen": 2, "weighted": true, "items": ["a", "b"], "keys": [-0.5, "-Infinity"]}'::reservoir) AS infinite_key_stats;
-- a user-defined item type is named, not numbered, in the text form
CREATE TYPE reservoir_test_mood AS ENUM ('sad', 'ok', 'happy');
SELECT reservoir_agg('ok'::reservoir_test_mood, 2)::text AS enum_by_name;

-- Items of a type that DDL can drop or change (any type not built in) are
-- kept in their text form, so a stored value outlives DROP TYPE and ALTER
-- TYPE: while its type exists with the structure it had, it reads as that
-- type; once the type is gone or its structure changed, as text.
CREATE TYPE reservoir_test_gone AS ENUM ('red', 'green');
CREATE TYPE reservoir_test_shape AS (x int, label text);
CREATE TABLE reservoir_kept AS
SELECT 'enum' AS name, reservoir_agg(c, 3) AS r
FROM unnest(ARRAY['green', 'red']::reservoir_test_gone[]) c
UNION ALL
SELECT 'composite', reservoir_agg(ROW(x, 'n' || x)::reservoir_test_shape, 5) FROM generate_series(1, 3) x
UNION ALL
SELECT 'weighted', reservoir_agg(ROW(x, 'w' || x)::reservoir_test_shape, 2, x) FROM generate_series(1, 2) x;
SELECT array(SELECT (s).label FROM unnest(reservoir_items(r, NULL::reservoir_test_shape)) s ORDER BY 1) AS typed
FROM reservoir_kept WHERE name = 'composite';
-- built in parallel: the workers flatten their partial states, text forms
-- and all
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT reservoir_agg(ROW(x, 'g' || x)::reservoir_test_shape, 4) FROM reservoir_groups;
SELECT reservoir_count(r) AS n, reservoir_seen(r) AS seen,
       (SELECT bool_and((s).label = 'g' || (s).x) FROM unnest(reservoir_items(r, NULL::reservoir_test_shape)) s) AS intact
FROM (SELECT reservoir_agg(ROW(x, 'g' || x)::reservoir_test_shape, 4) AS r FROM reservoir_groups) q;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
-- a renamed type, or an enum with a value added, still reads as the type
ALTER TYPE reservoir_test_shape RENAME TO reservoir_test_shape2;
ALTER TYPE reservoir_test_gone ADD VALUE 'blue';
SELECT array(SELECT (s).x FROM unnest(reservoir_items(r, NULL::reservoir_test_shape2)) s ORDER BY 1) AS renamed,
       reservoir_stats(r) ->> 'type' AS type
FROM reservoir_kept WHERE name = 'composite';
SELECT array(SELECT c FROM unnest(reservoir_items(r, NULL::reservoir_test_gone)) c ORDER BY 1) AS enum_items
FROM reservoir_kept WHERE name = 'enum';
-- a renamed enum value is a change the shape does not see: reading the
-- items as the type raises the enum's input error, their text form stays
ALTER TYPE reservoir_test_gone RENAME VALUE 'red' TO 'crimson';
SELECT reservoir_items(r, NULL::reservoir_test_gone) FROM reservoir_kept WHERE name = 'enum';
SELECT r::text AS renamed_value_text, reservoir_count(r) FROM reservoir_kept WHERE name = 'enum';
-- dropped: the items read as text, and the value's text form is that of a
-- reservoir of text (what pg_dump writes, and restores)
DROP TYPE reservoir_test_gone;
SELECT array(SELECT c FROM unnest(reservoir_items(r, NULL::text)) c ORDER BY 1) AS enum_as_text,
       reservoir_stats(r) ->> 'type' AS type, reservoir_seen(r) AS seen
FROM reservoir_kept WHERE name = 'enum';
SELECT r::text::reservoir::text = r::text AS text_round_trip, r::bytea::reservoir::text = r::text AS binary_round_trip,
       (SELECT array_agg(c ORDER BY c) FROM jsonb_array_elements_text(r::text::jsonb -> 'items') c) AS items
FROM reservoir_kept WHERE name = 'enum';
SELECT reservoir_items(r, NULL::int) FROM reservoir_kept WHERE name = 'enum';
-- its structure changed (an attribute added): the items as they were stored
CREATE TYPE reservoir_test_swap AS (x int, label text);
INSERT INTO reservoir_kept SELECT 'swapped', reservoir_agg(ROW(1, 'one')::reservoir_test_swap, 2);
ALTER TYPE reservoir_test_swap DROP ATTRIBUTE label, ADD ATTRIBUTE other text;
SELECT reservoir_items(r, NULL::text) AS swapped_attribute, reservoir_stats(r) ->> 'type' AS type
FROM reservoir_kept WHERE name = 'swapped';
ALTER TYPE reservoir_test_shape2 ADD ATTRIBUTE extra date;
SELECT name, array(SELECT c FROM unnest(reservoir_items(r, NULL::text)) c ORDER BY 1) AS as_text,
       reservoir_stats(r) ->> 'type' AS type, reservoir_stats(r) ->> 'weighted' AS weighted
FROM reservoir_kept WHERE name IN ('composite', 'weighted') ORDER BY name;
SELECT reservoir_count(reservoir_union_agg(r)) AS merged_as_text FROM reservoir_kept WHERE name IN ('composite', 'enum');
-- a new value of the changed type reads as the type; merging it with one
-- stored before the change is merging different item types
SELECT (reservoir_items(reservoir_agg(ROW(1, 'a', '2024-01-02')::reservoir_test_shape2, 1), NULL::reservoir_test_shape2))[1] AS new_value;
SELECT reservoir_union_agg(r) FROM (
    SELECT r FROM reservoir_kept WHERE name = 'composite'
    UNION ALL SELECT reservoir_agg(ROW(1, 'a', NULL)::reservoir_test_shape2, 5)) q;
-- the text forms are written and read under fixed settings (those pg_dump
-- uses), so a session's DateStyle or extra_float_digits changes nothing
CREATE TYPE reservoir_test_when AS (d date, f float8, i interval);
SET DateStyle = 'SQL, DMY';
SET IntervalStyle = 'sql_standard';
SET extra_float_digits = -3;
CREATE TABLE reservoir_when AS
SELECT array_agg(v) AS plain, reservoir_agg(v, 2) AS r
FROM (VALUES (ROW('01/02/2024', 0.1::float8 + 0.2::float8, '-1 day 2 hours')::reservoir_test_when)) q(v);
SET DateStyle = 'ISO, MDY';
SET IntervalStyle = 'postgres';
SET extra_float_digits = 0;
SELECT reservoir_items(r, NULL::reservoir_test_when) = plain AS same_value, (plain[1]).d AS d FROM reservoir_when;
RESET DateStyle;
RESET IntervalStyle;
SET extra_float_digits = 0;
DROP TABLE reservoir_kept, reservoir_when;
DROP TYPE reservoir_test_shape2, reservoir_test_when, reservoir_test_swap;

-- union: exact, k = the smallest k
SELECT reservoir_seen(r), reservoir_count(r), reservoir_stats(r) -> 'k' AS k
FROM (SELECT reservoir_union_agg(r) AS r FROM (
    SELECT reservoir_agg(x, 10) AS r FROM generate_series(1, 30) x
    UNION ALL SELECT reservoir_agg(x, 4) FROM generate_series(31, 35) x
    UNION ALL SELECT NULL) q) s;
SELECT array(SELECT unnest(reservoir_items(reservoir_union_agg(r), NULL::int)) ORDER BY 1) AS small_union
FROM (SELECT reservoir_agg(x, 10) AS r FROM generate_series(1, 3) x
      UNION ALL SELECT reservoir_agg(x, 10) FROM generate_series(4, 6) x) q;
SELECT reservoir_union_agg(r) IS NULL AS empty_union FROM (SELECT NULL::reservoir AS r) q;

-- bad input: clear errors
SELECT reservoir_sample(x, 2, 0) FROM generate_series(1, 3) x;
SELECT reservoir_sample(x, 2, -1) FROM generate_series(1, 3) x;
SELECT reservoir_sample(x, 2, 'NaN') FROM generate_series(1, 3) x;
SELECT reservoir_sample(x, 2, 'Infinity') FROM generate_series(1, 3) x;
SELECT reservoir_sample(x, 2, '-Infinity') FROM generate_series(1, 3) x;
-- weights from 1e-300 to 1e290 (beyond, keys overflow or underflow and tie)
SELECT reservoir_sample(x, 2, 4.9e-324) FROM generate_series(1, 3) x;
SELECT reservoir_sample(x, 2, 1e291) FROM generate_series(1, 3) x;
SELECT array_length(reservoir_sample(x, 2, CASE WHEN x = 1 THEN 1e-300 ELSE 1e290 END), 1) AS ends_of_range
FROM generate_series(1, 3) x;
SELECT reservoir_sample(x, 2, CASE WHEN x = 3000 THEN 0 ELSE 1 END) FROM generate_series(1, 5000) x;
SELECT reservoir_sample(x, 0) FROM generate_series(1, 3) x;
SELECT reservoir_sample(x, -5) FROM generate_series(1, 3) x;
SELECT reservoir_sample(x, 10000001) FROM generate_series(1, 3) x;
SELECT reservoir_sample(x, NULL) FROM generate_series(1, 3) x;
SELECT reservoir_sample(x, x) FROM generate_series(1, 3) x;
SELECT reservoir_union_agg(r) FROM (SELECT reservoir_agg(1, 2) UNION ALL SELECT reservoir_agg('a'::text, 2)) q(r);
SELECT reservoir_union_agg(r) FROM (SELECT reservoir_agg(1, 2) UNION ALL SELECT reservoir_agg(1, 2, 1.0)) q(r);
SELECT reservoir_items(u, NULL::int) FROM reservoir_values;
-- reservoir_sample's final function called directly: its array type comes
-- from its second argument, so that must name the type the items have
SELECT reservoir_sample_final(t, NULL::bigint, 3) FROM reservoir_values;
SELECT (reservoir_sample_final(w, NULL::text, 3))[1] FROM reservoir_values;
SELECT reservoir_sample_trans(NULL, 1, 2);
SELECT reservoir_sample(ROW(x, x), 2) FROM generate_series(1, 3) x;
SELECT 'not json'::reservoir;
SELECT '[1, 2]'::reservoir;
-- every text input error is 22P02: out-of-range numbers, a \u0000 escape,
-- a field twice, an unknown field
SELECT '{"version": 1, "type": "integer", "k": 3, "seen": 9223372036854775808, "weighted": false, "items": []}'::reservoir;
SELECT '{"version": 1, "type": "text", "k": 3, "seen": 1, "weighted": false, "items": ["\u0000"]}'::reservoir;
SELECT '{"version": 1, "type": "integer", "k": 3, "k": 4, "seen": 0, "weighted": false, "items": []}'::reservoir;
SELECT '{"version": 1, "type": "integer", "k": 3, "seen": 0, "weighted": false, "items": [], "bogus": 1}'::reservoir;
SELECT '{"version": 2, "type": "integer", "k": 3, "seen": 0, "weighted": false, "items": []}'::reservoir;
SELECT '{"version": 1, "type": "integer", "k": 0, "seen": 0, "weighted": false, "items": []}'::reservoir;
SELECT '{"version": 1, "type": "integer", "k": 3, "seen": 9, "weighted": false, "items": ["1"]}'::reservoir;
SELECT '{"version": 1, "type": "integer", "k": 3, "seen": -1, "weighted": false, "items": []}'::reservoir;
SELECT '{"version": 1, "type": "integer", "k": 3.5, "seen": 0, "weighted": false, "items": []}'::reservoir;
SELECT '{"version": 1, "type": "no_such_type", "k": 3, "seen": 0, "weighted": false, "items": []}'::reservoir;
SELECT '{"version": 1, "type": "anyelement", "k": 3, "seen": 0, "weighted": false, "items": []}'::reservoir;
SELECT '{"version": 1, "type": "integer", "k": 3, "seen": 1, "weighted": false, "items": ["x"]}'::reservoir;
SELECT '{"version": 1, "type": "integer", "k": 3, "seen": 1, "weighted": false, "items": [1]}'::reservoir;
SELECT '{"version": 1, "type": "integer", "k": 3, "seen": 1, "weighted": true, "items": ["1"]}'::reservoir;
SELECT '{"version": 1, "type": "integer", "k": 3, "seen": 1, "weighted": true, "items": ["1"], "keys": [0.5]}'::reservoir;
SELECT '{"version": 1, "type": "integer", "k": 3, "seen": 1, "weighted": false, "items": ["1"], "keys": [-1]}'::reservoir;
SELECT '{"version": 1, "type": "integer", "k": 3, "seen": 1, "items": ["1"]}'::reservoir;
SELECT '\x'::bytea::reservoir;
SELECT '\x0100000003'::bytea::reservoir;
SELECT ((SELECT u FROM reservoir_values)::bytea || '\x00'::bytea)::reservoir;
SELECT substring((SELECT u FROM reservoir_values)::bytea FROM 1 FOR 40)::reservoir;
SELECT overlay((SELECT u FROM reservoir_values)::bytea PLACING '\x09' FROM 1)::reservoir;
SELECT overlay((SELECT w FROM reservoir_values)::bytea PLACING '\x3ff0000000000000' FROM 26)::reservoir;
SELECT overlay((SELECT u FROM reservoir_values)::bytea PLACING '\x00000009' FROM 3)::reservoir;
-- malformed input of every kind is 22P03 (binary) or 22P02 (text), named
-- with its SQLSTATE: never a protocol error (08P01), never a truncated field
CREATE FUNCTION reservoir_input_error(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    state text;
    detail text;
BEGIN
    EXECUTE query;
    RETURN 'accepted';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, detail = PG_EXCEPTION_DETAIL;
    RETURN state || ': ' || SQLERRM || coalesce(' (' || nullif(detail, '') || ')', '');
END $$;
-- an item whose declared length holds a byte its type's receive function
-- leaves unread (the last bigint of u declared 9 bytes long, one byte added)
SELECT reservoir_input_error(format('SELECT %L::bytea::reservoir',
    substring(b FROM 1 FOR length(b) - 12) || '\x00000009'::bytea || substring(b FROM length(b) - 7) || '\x00'::bytea))
FROM (SELECT u::bytea AS b FROM reservoir_values) q;
-- the item type name without its terminating NUL; a header cut short
SELECT reservoir_input_error($q$SELECT '\x0100000000030000000000000000626967696e74'::bytea::reservoir$q$);
SELECT reservoir_input_error($q$SELECT '\x0100000000030000000000000000626967696e7400000000'::bytea::reservoir$q$);
-- 10M items declared in 30 bytes (uniform and weighted): refused before
-- anything is allocated for them
SELECT reservoir_input_error($q$SELECT '\x0100009896800000000000989680696e740000989680aaaaaaaaaaaaaaaa'::bytea::reservoir$q$);
SELECT reservoir_input_error($q$SELECT '\x0101009896800000000000989680696e740000989680aaaaaaaaaaaaaaaa'::bytea::reservoir$q$);
-- a version beyond 32 bits is not version 1
SELECT reservoir_input_error($q$SELECT '{"version": 4294967297, "type": "integer", "k": 3, "seen": 0, "weighted": false, "items": []}'::reservoir$q$);
SELECT reservoir_input_error($q$SELECT '{"version": 1, "type": "integer", "k": 4294967299, "seen": 0, "weighted": false, "items": []}'::reservoir$q$);
-- a NaN key
SELECT reservoir_input_error($q$SELECT '{"version": 1, "type": "integer", "k": 3, "seen": 1, "weighted": true, "items": ["1"], "keys": ["NaN"]}'::reservoir$q$);
-- the text form's JSON: escapes decoded in names and strings, and every
-- malformation 22P02
SELECT reservoir_items($j${"version": 1, "type": "t\u0065xt", "\u006b": 2, "seen": 1, "weighted": false, "items": ["\u00fc\ud83d\ude00 \"\/\\\t"]}$j$::reservoir, NULL::text) = ARRAY[E'\u00fc\U0001F600 "/\\\t'] AS escapes_decoded;
SELECT reservoir_input_error($q$SELECT '{"version": 1, "type": "integer", "k": 3, "seen": 0, "weighted": false, "items": []} x'::reservoir$q$);
SELECT reservoir_input_error($q$SELECT '{"version": 1, "type": "integer", "k": 3, "seen": 0, "weighted": false, "items": [],}'::reservoir$q$);
SELECT reservoir_input_error($q$SELECT '{"version": 1, "type": "text", "k": 3, "seen": 1, "weighted": false, "items": ["\ude00"]}'::reservoir$q$);
SELECT reservoir_input_error($q$SELECT '{"version": 1, "type": "text", "k": 3, "seen": 1, "weighted": false, "items": ["a]}'::reservoir$q$);
SELECT reservoir_input_error($q$SELECT '{"version": 01, "type": "text", "k": 3, "seen": 0, "weighted": false, "items": []}'::reservoir$q$);
SELECT reservoir_input_error($q$SELECT '{"version": 1, "type": "text", "k": 3, "seen": 1, "weighted": true, "items": ["a"], "keys": [-1e999]}'::reservoir$q$);
DROP FUNCTION reservoir_input_error(text);

DROP TABLE reservoir_values, reservoir_trials, reservoir_groups;
DROP FUNCTION reservoir_chi2(anyarray);
DROP TYPE reservoir_test_pair, reservoir_test_mood;
DROP DOMAIN reservoir_test_small, reservoir_test_int;
