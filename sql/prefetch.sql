-- The prefetching scan (Custom Scan SketchPrefetch): a pure performance hint.
-- Every query here gives the same answer with sketchshare.prefetch on and off;
-- the plans show where the node replaces a Seq Scan and where it must not.
SET extra_float_digits = 0;
-- The setting is defined when the library loads (any sketchshare function
-- loads it); before that a SET is kept as a placeholder (see the end).
SELECT sketch_hash(1) IS NOT NULL AS loaded;
SHOW sketchshare.prefetch;
SET sketchshare.prefetch = 'maybe';
SET sketchshare.prefetch = off;
SHOW sketchshare.prefetch;
RESET sketchshare.prefetch;
-- The planner support function of the lookups is not for direct use: it
-- takes an internal planner request, which no SQL value can be (errors).
SELECT sketchshare_support(NULL::internal);
SELECT sketchshare_support(42);
SELECT proname FROM pg_proc WHERE prosupport = 'sketchshare_support'::regproc GROUP BY proname ORDER BY proname;

-- pg_temp.check(q): runs q with prefetch on and off; reports whether the node
-- is in each plan and whether the results (all rows, sorted) are identical.
CREATE FUNCTION pg_temp.check(q text, OUT node_on bool, OUT node_off bool, OUT identical bool, OUT result text)
LANGUAGE plpgsql AS $$
DECLARE
    saved text := current_setting('sketchshare.prefetch');
    line text;
    r_off text;
BEGIN
    node_on := false;
    node_off := false;
    PERFORM set_config('sketchshare.prefetch', 'on', true);
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        node_on := node_on OR line LIKE '%SketchPrefetch%';
    END LOOP;
    EXECUTE format('SELECT string_agg(r::text, '' '' ORDER BY r::text) FROM (%s) r', q) INTO result;
    PERFORM set_config('sketchshare.prefetch', 'off', true);
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        node_off := node_off OR line LIKE '%SketchPrefetch%';
    END LOOP;
    EXECUTE format('SELECT string_agg(r::text, '' '' ORDER BY r::text) FROM (%s) r', q) INTO r_off;
    PERFORM set_config('sketchshare.prefetch', saved, true);
    identical := result IS NOT DISTINCT FROM r_off;
END $$;

-- 20000 rows: items of several types with NULLs; s is short text except for
-- 20 long values compressed in line and 10 stored out of line uncompressed.
CREATE DOMAIN pf_int AS int;
CREATE TABLE pf_t (id int, i4 int, i8 bigint, s text, u uuid, v varchar(40), d pf_int);
INSERT INTO pf_t
SELECT i, CASE WHEN i % 97 <> 0 THEN i END, i * 1000003::bigint,
       CASE WHEN i % 89 = 0 THEN NULL
            WHEN i <= 20 THEN repeat(md5(i::text), 100)
            WHEN i <= 30 THEN (SELECT string_agg(md5(i::text || j), '') FROM generate_series(1, 100) j)
            ELSE md5(i::text) END,
       CASE WHEN i % 83 <> 0 THEN md5(i::text)::uuid END,
       'v' || i, i
FROM generate_series(1, 20000) i;
ANALYZE pf_t;
SELECT count(*) FILTER (WHERE pg_column_compression(s) = 'pglz') AS compressed_s,
       count(*) FILTER (WHERE pg_column_compression(s) IS NULL AND octet_length(s) > 2000) AS external_s,
       count(*) FILTER (WHERE s IS NULL) AS null_s, count(*) FILTER (WHERE i4 IS NULL) AS null_i4,
       count(*) FILTER (WHERE u IS NULL) AS null_u
FROM pf_t;

-- Stored filters of the members id % 3 = 0, in several layouts, large enough
-- to be TOASTed; cbf_i8 counts the members with id % 6 = 0 twice; small_cbf
-- stays in line; null_bloom is NULL.
CREATE TABLE pf_filters (name text, b bloom, c cbf);
INSERT INTO pf_filters
SELECT 'classic_i8', bloom_agg(i8, 20000, 0.01, 'classic'), NULL::cbf FROM pf_t WHERE id % 3 = 0
UNION ALL SELECT 'block_i4', bloom_agg(i4, 20000, 0.01, 'block<uint64[8]>'), NULL FROM pf_t WHERE id % 3 = 0
UNION ALL SELECT 'fmb32_s', bloom_agg(s, 20000, 0.01), NULL FROM pf_t WHERE id % 3 = 0
UNION ALL SELECT 'fmb64_u', bloom_agg(u, 20000, 0.0001, 'fast_multiblock64'), NULL FROM pf_t WHERE id % 3 = 0
UNION ALL SELECT 'stride_i8', bloom_agg(i8, 20000, 0.01, '2*block<uint64,3>/2'), NULL FROM pf_t WHERE id % 3 = 0
UNION ALL SELECT 'multiblock_v', bloom_agg(v, 20000, 0.01, 'multiblock<uint32,5>'), NULL FROM pf_t WHERE id % 3 = 0
UNION ALL SELECT 'cbf_i8', NULL::bloom, cbf_agg(i8, 20000)
          FROM (SELECT i8 FROM pf_t WHERE id % 3 = 0 UNION ALL SELECT i8 FROM pf_t WHERE id % 6 = 0) m
UNION ALL SELECT 'cbf_s', NULL, cbf_agg(s, 20000) FROM pf_t WHERE id % 3 = 0
UNION ALL SELECT 'small_cbf', NULL, cbf_agg(i4, 20, 0.5) FROM pf_t WHERE id <= 10
UNION ALL SELECT 'null_bloom', NULL, NULL;
UPDATE pf_filters SET b = cbf_to_bloom(c) WHERE name = 'cbf_i8';
-- (cbf values are stored uncompressed by default; cz holds cbf_i8 compressed)
ALTER TABLE pf_filters ADD COLUMN cz cbf;
ALTER TABLE pf_filters ALTER COLUMN cz SET STORAGE extended;
UPDATE pf_filters SET cz = c WHERE name = 'cbf_i8';
SELECT name, bloom_info(b) ->> 'layout' AS layout, pg_column_size(b) AS b_size, pg_column_compression(b) AS b_compression,
       pg_column_size(c) AS c_size, pg_column_compression(c) AS c_compression,
       pg_column_size(cz) AS cz_size, pg_column_compression(cz) AS cz_compression
FROM pf_filters ORDER BY name;
CREATE FUNCTION pg_temp.toasted_values(rel regclass) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
    EXECUTE format('SELECT count(DISTINCT chunk_id) FROM %s', (SELECT reltoastrelid::regclass FROM pg_class WHERE oid = rel)) INTO n;
    RETURN n;
END $$;
SELECT pg_temp.toasted_values('pf_filters') AS toasted_values;

-- Where the node goes: a function of the list with a column item and a filter
-- that is constant for the scan (here an uncorrelated scalar subquery, an
-- InitPlan). The plans are serial here (a forced parallel plan comes later).
SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF)
SELECT count(*) FILTER (WHERE cbf_contains((SELECT c FROM pf_filters WHERE name = 'cbf_i8'), i8)) FROM pf_t;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM pf_t WHERE (SELECT b FROM pf_filters WHERE name = 'classic_i8') @> i8;
-- several functions and columns in one scan
EXPLAIN (COSTS OFF)
SELECT count(*) FILTER (WHERE bloom_contains((SELECT b FROM pf_filters WHERE name = 'fmb32_s'), s)),
       sum(cbf_count_of((SELECT c FROM pf_filters WHERE name = 'cbf_i8'), i8))
FROM pf_t;
-- the setting off: a plain Seq Scan
SET sketchshare.prefetch = off;
EXPLAIN (COSTS OFF)
SELECT count(*) FILTER (WHERE cbf_contains((SELECT c FROM pf_filters WHERE name = 'cbf_i8'), i8)) FROM pf_t;
RESET sketchshare.prefetch;

-- Same answers on and off: every layout, every item type. Each row counts the
-- positives and the members missed (always 0: no false negatives); 6666 of
-- the 20000 ids are multiples of 3 (less the NULL items of that column).
-- The first takes its filter from another relation of a join: no node there.
SELECT * FROM pg_temp.check($$
    SELECT count(*) FILTER (WHERE bloom_contains(f, i8)) AS positives,
           count(*) FILTER (WHERE id % 3 = 0 AND NOT bloom_contains(f, i8)) AS missed
    FROM pf_t, (SELECT b AS f FROM pf_filters WHERE name = 'classic_i8' OFFSET 0) x $$);
SELECT * FROM pg_temp.check($$
    SELECT count(*) FILTER (WHERE bloom_contains((SELECT b FROM pf_filters WHERE name = 'classic_i8'), i8)) AS positives,
           count(*) FILTER (WHERE id % 3 = 0 AND NOT bloom_contains((SELECT b FROM pf_filters WHERE name = 'classic_i8'), i8)) AS missed
    FROM pf_t $$);
SELECT * FROM pg_temp.check($$
    SELECT count(*) FILTER (WHERE (SELECT b FROM pf_filters WHERE name = 'block_i4') @> i4) AS positives,
           count(*) FILTER (WHERE id % 3 = 0 AND i4 IS NOT NULL AND NOT (SELECT b FROM pf_filters WHERE name = 'block_i4') @> i4) AS missed,
           count(*) FILTER (WHERE bloom_contains((SELECT b FROM pf_filters WHERE name = 'block_i4'), i4) IS NULL) AS null_items
    FROM pf_t $$);
SELECT * FROM pg_temp.check($$
    SELECT count(*) FILTER (WHERE bloom_contains((SELECT b FROM pf_filters WHERE name = 'fmb32_s'), s)) AS positives,
           count(*) FILTER (WHERE id % 3 = 0 AND s IS NOT NULL AND NOT bloom_contains((SELECT b FROM pf_filters WHERE name = 'fmb32_s'), s)) AS missed,
           count(*) FILTER (WHERE id <= 30 AND bloom_contains((SELECT b FROM pf_filters WHERE name = 'fmb32_s'), s)) AS long_positives
    FROM pf_t $$);
SELECT * FROM pg_temp.check($$
    SELECT count(*) FILTER (WHERE (SELECT b FROM pf_filters WHERE name = 'fmb64_u') @> u) AS positives,
           count(*) FILTER (WHERE id % 3 = 0 AND u IS NOT NULL AND NOT (SELECT b FROM pf_filters WHERE name = 'fmb64_u') @> u) AS missed
    FROM pf_t $$);
SELECT * FROM pg_temp.check($$
    SELECT count(*) FILTER (WHERE bloom_contains((SELECT b FROM pf_filters WHERE name = 'stride_i8'), i8)) AS positives,
           count(*) FILTER (WHERE id % 3 = 0 AND NOT bloom_contains((SELECT b FROM pf_filters WHERE name = 'stride_i8'), i8)) AS missed
    FROM pf_t $$);
-- varchar, and a domain over int (anycompatible resolves it to int): both are
-- still the bare column
SELECT * FROM pg_temp.check($$
    SELECT count(*) FILTER (WHERE bloom_contains((SELECT b FROM pf_filters WHERE name = 'multiblock_v'), v)) AS positives,
           count(*) FILTER (WHERE id % 3 = 0 AND NOT bloom_contains((SELECT b FROM pf_filters WHERE name = 'multiblock_v'), v)) AS missed
    FROM pf_t $$);
SELECT * FROM pg_temp.check($$
    SELECT count(*) FILTER (WHERE bloom_contains((SELECT b FROM pf_filters WHERE name = 'block_i4'), d)) AS positives,
           count(*) FILTER (WHERE id % 3 = 0 AND i4 IS NOT NULL AND NOT bloom_contains((SELECT b FROM pf_filters WHERE name = 'block_i4'), d)) AS missed
    FROM pf_t $$);
-- the cbf<7> projection of a counting filter answers as the counting filter
SELECT * FROM pg_temp.check($$
    SELECT count(*) FILTER (WHERE bloom_contains((SELECT b FROM pf_filters WHERE name = 'cbf_i8'), i8)) AS positives,
           count(*) FILTER (WHERE bloom_contains((SELECT b FROM pf_filters WHERE name = 'cbf_i8'), i8)
                              IS DISTINCT FROM cbf_contains((SELECT c FROM pf_filters WHERE name = 'cbf_i8'), i8)) AS disagree
    FROM pf_t $$);
-- counting filters: contains, @>, and the sum of count_of (members with
-- id % 6 = 0 were added twice: at least 3333 * 2 + 3333 = 9999), also from
-- the compressed copy
SELECT * FROM pg_temp.check($$
    SELECT count(*) FILTER (WHERE cbf_contains((SELECT c FROM pf_filters WHERE name = 'cbf_i8'), i8)) AS positives,
           count(*) FILTER (WHERE (SELECT c FROM pf_filters WHERE name = 'cbf_i8') @> i8) AS operator_positives,
           sum(cbf_count_of((SELECT c FROM pf_filters WHERE name = 'cbf_i8'), i8)) AS sum_count_of,
           sum(cbf_count_of((SELECT c FROM pf_filters WHERE name = 'cbf_i8'), i8)) FILTER (WHERE id % 3 = 0) AS members_count_of
    FROM pf_t $$);
SELECT * FROM pg_temp.check($$
    SELECT count(*) FILTER (WHERE cbf_contains((SELECT cz FROM pf_filters WHERE name = 'cbf_i8'), i8)) AS compressed_positives,
           sum(cbf_count_of((SELECT cz FROM pf_filters WHERE name = 'cbf_i8'), i8)) AS compressed_sum_count_of
    FROM pf_t $$);
SELECT * FROM pg_temp.check($$
    SELECT count(*) FILTER (WHERE cbf_contains((SELECT c FROM pf_filters WHERE name = 'cbf_s'), s)) AS positives,
           count(*) FILTER (WHERE id % 3 = 0 AND s IS NOT NULL AND NOT cbf_contains((SELECT c FROM pf_filters WHERE name = 'cbf_s'), s)) AS missed,
           sum(cbf_count_of((SELECT c FROM pf_filters WHERE name = 'cbf_s'), s)) FILTER (WHERE id <= 30) AS long_count_of
    FROM pf_t $$);
-- a filter in line (not TOASTed): ids 1..10 less the NULL i4s (none) are members
SELECT * FROM pg_temp.check($$
    SELECT count(*) FILTER (WHERE cbf_contains((SELECT c FROM pf_filters WHERE name = 'small_cbf'), i4)) >= 10 AS at_least_members,
           count(*) FILTER (WHERE id <= 10 AND NOT cbf_contains((SELECT c FROM pf_filters WHERE name = 'small_cbf'), i4)) AS missed
    FROM pf_t $$);

-- The WHERE form, and row output (the node returns whole rows, projected)
SELECT * FROM pg_temp.check($$
    SELECT count(*) FROM pf_t WHERE cbf_contains((SELECT c FROM pf_filters WHERE name = 'cbf_i8'), i8) $$);
SELECT * FROM pg_temp.check($$
    SELECT md5(string_agg(t::text, ',' ORDER BY id)) FROM pf_t t
    WHERE cbf_contains((SELECT c FROM pf_filters WHERE name = 'cbf_s'), s) AND id % 7 = 1 $$);
SELECT * FROM pg_temp.check($$
    SELECT id, i8, cbf_count_of((SELECT c FROM pf_filters WHERE name = 'cbf_i8'), i8) AS n
    FROM pf_t WHERE id BETWEEN 4 AND 9 $$);
-- system columns
SELECT * FROM pg_temp.check($$
    SELECT md5(string_agg(ctid::text || tableoid::regclass::text, ',' ORDER BY ctid)) FROM pf_t
    WHERE cbf_contains((SELECT c FROM pf_filters WHERE name = 'cbf_i8'), i8) $$);

-- system columns and a whole row as the item: not prefetched (user columns
-- only), the same answers
SELECT * FROM pg_temp.check($$
    SELECT count(*) FILTER (WHERE cbf_contains(cbf_add(cbf_add(cbf_empty(100), '(0,1)'::tid), '(1,3)'::tid), ctid)) AS ctid_found,
           count(*) FILTER (WHERE bloom_contains(bloom_add(bloom_empty(100, 0.01), 'pf_t'::regclass::oid), tableoid)) AS tableoid_found
    FROM pf_t $$);
-- a LIMIT stops the scan early; an error in the middle of the scan; then the
-- same scan again (no buffer pin or state left behind: no warnings)
SELECT * FROM pg_temp.check($$
    SELECT id FROM pf_t WHERE cbf_contains((SELECT c FROM pf_filters WHERE name = 'cbf_i8'), i8) LIMIT 4 $$);
SELECT count(*) FILTER (WHERE cbf_contains((SELECT c FROM pf_filters WHERE name = 'cbf_i8'), i8) AND 1 / (id - 5001) IS NOT NULL) FROM pf_t;
SELECT * FROM pg_temp.check($$
    SELECT count(*) FILTER (WHERE cbf_contains((SELECT c FROM pf_filters WHERE name = 'cbf_i8'), i8) AND 1 / (id - 50000) IS NOT NULL) FROM pf_t $$);

-- A NULL filter (stored NULL, or a subquery with no row): every call is NULL
SELECT * FROM pg_temp.check($$
    SELECT count(*) FILTER (WHERE bloom_contains((SELECT b FROM pf_filters WHERE name = 'null_bloom'), i8)) AS positives,
           count(*) FILTER (WHERE bloom_contains((SELECT b FROM pf_filters WHERE name = 'null_bloom'), i8) IS NULL) AS nulls,
           count(*) FILTER (WHERE cbf_contains((SELECT c FROM pf_filters WHERE name = 'no such'), i8) IS NULL) AS no_row
    FROM pf_t $$);
-- A constant filter: an immutable expression folded to one, and a literal (a
-- 64-bit filter of the i8 of ids 1..5)
SELECT * FROM pg_temp.check($$
    SELECT count(*) FILTER (WHERE cbf_contains(cbf_add(cbf_add(cbf_empty(100), 5), 7), i4)) >= 2 AS found,
           count(*) FILTER (WHERE i4 IN (5, 7) AND NOT cbf_contains(cbf_add(cbf_add(cbf_empty(100), 5), 7), i4)) AS missed,
           count(*) FILTER (WHERE bloom_contains('\x0100030103000000000000004000000000000000000000000000000021a02430080a8320'::bloom, i8)) AS literal_positives,
           count(*) FILTER (WHERE id <= 5 AND NOT bloom_contains('\x0100030103000000000000004000000000000000000000000000000021a02430080a8320'::bloom, i8)) AS literal_missed
    FROM pf_t $$);
EXPLAIN (COSTS OFF)
SELECT count(*) FILTER (WHERE cbf_contains(cbf_add(cbf_add(cbf_empty(100), 5), 7), i4)) FROM pf_t;

-- A parameter of a generic plan
SET plan_cache_mode = force_generic_plan;
CREATE FUNCTION pg_temp.stored(n text) RETURNS cbf LANGUAGE sql STABLE AS $$ SELECT c FROM pf_filters WHERE name = n $$;
PREPARE pf_on(cbf) AS SELECT count(*) FILTER (WHERE cbf_contains($1, i8)) AS positives, sum(cbf_count_of($1, i8)) AS sum_count_of FROM pf_t;
EXPLAIN (COSTS OFF) EXECUTE pf_on(pg_temp.stored('cbf_i8'));
EXECUTE pf_on(pg_temp.stored('cbf_i8'));
EXECUTE pf_on(pg_temp.stored('small_cbf'));
EXECUTE pf_on(NULL);
EXECUTE pf_on(pg_temp.stored('cbf_i8'));
SET sketchshare.prefetch = off;
PREPARE pf_off(cbf) AS SELECT count(*) FILTER (WHERE cbf_contains($1, i8)) AS positives, sum(cbf_count_of($1, i8)) AS sum_count_of FROM pf_t;
EXPLAIN (COSTS OFF) EXECUTE pf_off(pg_temp.stored('cbf_i8'));
EXECUTE pf_off(pg_temp.stored('cbf_i8'));
EXECUTE pf_off(pg_temp.stored('small_cbf'));
EXECUTE pf_off(NULL);
RESET sketchshare.prefetch;
DEALLOCATE pf_on;
DEALLOCATE pf_off;
RESET plan_cache_mode;

-- A filter that changes per outer row: a correlated subquery and a LATERAL
-- join rescan the node with each group's filter (TOASTed, NULL, in line, and
-- the same one again). Group g holds the i8 of the ids with id % 5 = g.
CREATE TABLE pf_groups (pos int, g int, f cbf);
INSERT INTO pf_groups
SELECT pos, g, CASE WHEN g = 5 THEN NULL WHEN g = 6 THEN cbf_add(cbf_empty(10), 15 * 1000003::bigint)
                    ELSE (SELECT cbf_agg(i8, 5000) FROM pf_t WHERE id % 5 = g) END
FROM (VALUES (1, 3), (2, 5), (3, 0), (4, 6), (5, 1), (6, 5), (7, 2), (8, 3), (9, 4)) v(pos, g);
SELECT * FROM pg_temp.check($$
    SELECT pos, g, (SELECT count(*) FILTER (WHERE cbf_contains(p.f, t.i8)) FROM pf_t t) AS positives,
           (SELECT count(*) FROM pf_t t WHERE t.id % 5 = p.g AND NOT p.f @> t.i8) AS missed
    FROM pf_groups p $$);
SELECT * FROM pg_temp.check($$
    SELECT pos, (SELECT t.id FROM pf_t t WHERE cbf_contains(p.f, t.i8) LIMIT 1) AS first_member FROM pf_groups p $$);
SELECT * FROM pg_temp.check($$
    SELECT p.pos, c.positives FROM pf_groups p,
           LATERAL (SELECT count(*) FILTER (WHERE cbf_count_of(p.f, t.i8) > 0) AS positives FROM pf_t t) c $$);
-- short scans (LIMIT 1 of the members of each group, 200 outer rows) switching
-- between the stored filters many times
SELECT * FROM pg_temp.check($$
    SELECT count(*) AS outer_rows, sum(first_member) AS sum_first, count(first_member) AS found
    FROM (SELECT (SELECT t.id FROM pf_t t WHERE t.id > o.i AND cbf_contains(p.f, t.i8) LIMIT 1) AS first_member
          FROM generate_series(1, 200) o(i) JOIN pf_groups p ON p.pos = o.i % 9 + 1) s $$);
EXPLAIN (COSTS OFF)
SELECT pos, (SELECT count(*) FILTER (WHERE cbf_contains(p.f, t.i8)) FROM pf_t t) FROM pf_groups p;
-- a SubPlan in the node's select list that also depends on the outer row: the
-- outer parameter's change must reach it on each rescan (the rows it keeps for
-- one outer row, here under a Materialize, are read again), and EXPLAIN shows it
CREATE TABLE pf_side AS SELECT i AS k, i % 9 + 1 AS pos, i % 10 AS g FROM generate_series(1, 5000) i;
ANALYZE pf_side;
EXPLAIN (COSTS OFF)
SELECT p.pos, ARRAY(SELECT (SELECT count(*) FROM pf_side q JOIN pf_side q2 ON q.g = q2.g
                            WHERE q.pos = p.pos AND q.k < 50 AND q2.k % 7 = t.id % 7)
                    FROM pf_t t WHERE cbf_contains(p.f, t.i8) AND t.id < 12) FROM pf_groups p;
SELECT * FROM pg_temp.check($$
    SELECT p.pos, ARRAY(SELECT (SELECT count(*) FROM pf_side q JOIN pf_side q2 ON q.g = q2.g
                                WHERE q.pos = p.pos AND q.k < 50 AND q2.k % 7 = t.id % 7)
                        FROM pf_t t WHERE cbf_contains(p.f, t.i8) AND t.id < 12) AS counts
    FROM pf_groups p $$);
-- a join: the filter of the other side is not a constant of the scan (few
-- rows: each call switches filters, and each switch fetches one again)
SELECT * FROM pg_temp.check($$
    SELECT p.pos, count(*) FROM pf_groups p JOIN pf_t t ON cbf_contains(p.f, t.i8) WHERE t.id <= 300 GROUP BY p.pos $$);

-- A filter that is a column of another relation of the join: where the
-- planner knows that relation gives one row (a primary key, a VALUES list,
-- statistics), a nested loop over it hands the filter to a node parameterized
-- by it. The planner prefers it by one operator evaluation a row.
CREATE TABLE pf_named (name text PRIMARY KEY, f cbf, b bloom);
INSERT INTO pf_named SELECT name, c, b FROM pf_filters;
EXPLAIN (COSTS OFF)
SELECT count(*) FILTER (WHERE n.f @> t.i8) FROM pf_t t, pf_named n WHERE n.name = 'cbf_i8';
SELECT * FROM pg_temp.check($$
    SELECT count(*) FILTER (WHERE cbf_contains(n.f, t.i8)) AS positives, sum(cbf_count_of(n.f, t.i8)) AS sum_count_of,
           count(*) FILTER (WHERE n.b @> t.i8) AS bloom_positives,
           count(*) FILTER (WHERE t.id % 3 = 0 AND NOT n.f @> t.i8) AS missed
    FROM pf_t t, pf_named n WHERE n.name = 'cbf_i8' $$);
SELECT * FROM pg_temp.check($$
    SELECT count(*) FILTER (WHERE n.f @> t.i8) FROM pf_t t JOIN pf_named n ON n.name = 'small_cbf' $$);
-- the lookup in the WHERE clause (a join clause: whether the planner takes
-- the node for it is a matter of cost), and the rows themselves
SELECT * FROM pg_temp.check($$
    SELECT t.id FROM pf_t t, pf_named n WHERE n.name = 'cbf_s' AND cbf_contains(n.f, t.s) AND t.id % 101 = 0 $$);
-- a NULL filter, and no row at all
SELECT * FROM pg_temp.check($$
    SELECT count(*) FILTER (WHERE n.b @> t.i8) AS positives, count(*) FILTER (WHERE (n.b @> t.i8) IS NULL) AS nulls
    FROM pf_t t, pf_named n WHERE n.name = 'null_bloom' $$);
SELECT * FROM pg_temp.check($$
    SELECT count(*) FILTER (WHERE n.f @> t.i8) FROM pf_t t, pf_named n WHERE n.name = 'no such' $$);
-- Each row of the other side rescans the node with its own filter when the
-- nested loop goes that way (here forced: no Materialize on the other side,
-- and statistics that tell it has 9 rows): TOASTed, NULL, in line, and the
-- same filter again.
ANALYZE pf_groups;
SET enable_material = off;
EXPLAIN (COSTS OFF)
SELECT p.pos, count(*) FILTER (WHERE cbf_contains(p.f, t.i8)) FROM pf_groups p, pf_t t GROUP BY p.pos;
SELECT * FROM pg_temp.check($$
    SELECT p.pos, count(*) FILTER (WHERE cbf_contains(p.f, t.i8)) AS positives,
           count(*) FILTER (WHERE t.id % 5 = p.g AND NOT p.f @> t.i8) AS missed
    FROM pf_groups p, pf_t t GROUP BY p.pos $$);
RESET enable_material;
DROP TABLE pf_named;


-- An InitPlan that would fail (more than one row) where the function is never
-- reached: the node must not run it, in either setting.
CREATE TABLE pf_two_rows AS SELECT c AS f FROM pf_filters WHERE c IS NOT NULL;
SELECT * FROM pg_temp.check($$
    SELECT count(*) FILTER (WHERE id < 0 AND cbf_contains((SELECT f FROM pf_two_rows), i8)) AS never FROM pf_t $$);
SELECT * FROM pg_temp.check($$
    SELECT count(*) FROM pf_t WHERE id < 0 AND cbf_contains((SELECT f FROM pf_two_rows), i8) $$);
-- reached, it fails in both
SELECT count(*) FILTER (WHERE cbf_contains((SELECT f FROM pf_two_rows), i8)) FROM pf_t;
SET sketchshare.prefetch = off;
SELECT count(*) FILTER (WHERE cbf_contains((SELECT f FROM pf_two_rows), i8)) FROM pf_t;
RESET sketchshare.prefetch;

-- A forced parallel plan: Parallel Custom Scan under Gather, the same counts
-- as the serial plan above (cbf_i8: positives and sum_count_of)
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF)
SELECT count(*) FILTER (WHERE cbf_contains((SELECT c FROM pf_filters WHERE name = 'cbf_i8'), i8)) AS positives,
       sum(cbf_count_of((SELECT c FROM pf_filters WHERE name = 'cbf_i8'), i8)) AS sum_count_of FROM pf_t;
SELECT count(*) FILTER (WHERE cbf_contains((SELECT c FROM pf_filters WHERE name = 'cbf_i8'), i8)) AS positives,
       sum(cbf_count_of((SELECT c FROM pf_filters WHERE name = 'cbf_i8'), i8)) AS sum_count_of FROM pf_t;
SELECT count(*) AS positives, md5(string_agg(id::text, ',' ORDER BY id)) AS ids FROM pf_t
WHERE bloom_contains((SELECT b FROM pf_filters WHERE name = 'fmb32_s'), s);
SET sketchshare.prefetch = off;
EXPLAIN (COSTS OFF)
SELECT count(*) FILTER (WHERE cbf_contains((SELECT c FROM pf_filters WHERE name = 'cbf_i8'), i8)) FROM pf_t;
SELECT count(*) AS positives, md5(string_agg(id::text, ',' ORDER BY id)) AS ids FROM pf_t
WHERE bloom_contains((SELECT b FROM pf_filters WHERE name = 'fmb32_s'), s);
RESET sketchshare.prefetch;
SET max_parallel_workers_per_gather = 0;
SELECT count(*) AS positives, md5(string_agg(id::text, ',' ORDER BY id)) AS ids FROM pf_t
WHERE bloom_contains((SELECT b FROM pf_filters WHERE name = 'fmb32_s'), s);
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

-- A SCROLL cursor: the node scans backward as a Seq Scan does (it prefetches
-- only going forward)
EXPLAIN (COSTS OFF)
DECLARE pf_cur SCROLL CURSOR FOR
SELECT id, cbf_count_of((SELECT c FROM pf_filters WHERE name = 'cbf_i8'), i8) AS n FROM pf_t;
BEGIN;
DECLARE pf_cur SCROLL CURSOR FOR
SELECT id, cbf_count_of((SELECT c FROM pf_filters WHERE name = 'cbf_i8'), i8) AS n FROM pf_t;
FETCH 7 FROM pf_cur;
FETCH BACKWARD 3 FROM pf_cur;
FETCH ABSOLUTE 12 FROM pf_cur;
FETCH BACKWARD 2 FROM pf_cur;
FETCH LAST FROM pf_cur;
FETCH BACKWARD 2 FROM pf_cur;
COMMIT;

-- A cursor declared without SCROLL may still fetch backward when its plan can
-- run backward (a Seq Scan can): the same with the node
\set backward_fetches 'BEGIN; DECLARE pf_cur CURSOR FOR SELECT id, cbf_count_of((SELECT c FROM pf_filters WHERE name = ''cbf_i8''), i8) AS n FROM pf_t; FETCH 7 FROM pf_cur; FETCH BACKWARD 2 FROM pf_cur; FETCH 3 FROM pf_cur; COMMIT;'
:backward_fetches
SET sketchshare.prefetch = off;
:backward_fetches
RESET sketchshare.prefetch;

-- UPDATE ... WHERE CURRENT OF a cursor whose row comes from the node (the row
-- identity reaches the update), rolled back
EXPLAIN (COSTS OFF)
DECLARE pf_cur CURSOR FOR SELECT id FROM pf_t WHERE cbf_contains((SELECT c FROM pf_filters WHERE name = 'cbf_i8'), i8);
BEGIN;
DECLARE pf_cur CURSOR FOR SELECT id FROM pf_t WHERE cbf_contains((SELECT c FROM pf_filters WHERE name = 'cbf_i8'), i8);
FETCH 2 FROM pf_cur;
UPDATE pf_t SET d = -d WHERE CURRENT OF pf_cur RETURNING id, d;
FETCH 1 FROM pf_cur;
DELETE FROM pf_t WHERE CURRENT OF pf_cur RETURNING id;
SELECT id, d FROM pf_t WHERE d < 0 OR id BETWEEN 6 AND 9 ORDER BY id;
ROLLBACK;

-- A dropped column, and a column added with a default after the rows (its
-- value is not in the old tuples)
CREATE TABLE pf_dropped (a int, junk text, x bigint);
INSERT INTO pf_dropped SELECT i, repeat('j', i % 50), i FROM generate_series(1, 3000) i;
ALTER TABLE pf_dropped DROP COLUMN junk;
ALTER TABLE pf_dropped ADD COLUMN y bigint DEFAULT 15;
INSERT INTO pf_dropped SELECT i, i, i FROM generate_series(3001, 3100) i;
SELECT * FROM pg_temp.check($$
    SELECT count(*) FILTER (WHERE cbf_contains(cbf_add(cbf_add(cbf_empty(100), 15), 3050), x)) AS x_found,
           count(*) FILTER (WHERE cbf_contains(cbf_add(cbf_add(cbf_empty(100), 15), 3050), y)) AS y_found
    FROM pf_dropped $$);
SELECT * FROM pg_temp.check($$
    SELECT count(*) FILTER (WHERE bloom_contains((SELECT bloom_agg(r, 1000, 0.001) FROM pf_dropped r WHERE a % 10 = 0), d)) AS rows_found
    FROM pf_dropped d $$);
-- an empty table
CREATE TABLE pf_empty (x bigint);
SELECT * FROM pg_temp.check($$
    SELECT count(*) FILTER (WHERE cbf_contains((SELECT c FROM pf_filters WHERE name = 'cbf_i8'), x)) FROM pf_empty $$);

-- Items of types hashed through their text output (date; numeric, where 2.50
-- and 2.5 are two items: the node leaves those lookups alone, hashing them
-- twice would cost more than it saves), char(n)
-- (hashed without its trailing spaces), a materialized view
CREATE TABLE pf_misc AS
SELECT i, date '2026-01-01' + i AS dt, round(i / 8.0, 2) AS n, ('c' || i)::char(8) AS c FROM generate_series(1, 4000) i;
CREATE MATERIALIZED VIEW pf_mat AS SELECT * FROM pf_misc;
SELECT * FROM pg_temp.check($$
    SELECT count(*) FILTER (WHERE bloom_contains(bloom_add(bloom_add(bloom_empty(1000, 0.001), date '2026-01-11'), date '2027-01-01'), dt)) AS dates,
           count(*) FILTER (WHERE cbf_contains(cbf_add(cbf_add(cbf_empty(1000, 0.001), 1.25), 2.50), n)) AS numerics,
           count(*) FILTER (WHERE cbf_contains(cbf_add(cbf_empty(1000, 0.001), 'c77'), c)) AS chars
    FROM pf_misc $$);
SELECT * FROM pg_temp.check($$
    SELECT count(*) FILTER (WHERE bloom_contains(bloom_add(bloom_empty(1000, 0.001), date '2026-01-11'), dt)) FROM pf_mat $$);
-- more lookups than the node follows (4): the first ones are prefetched
EXPLAIN (COSTS OFF)
SELECT count(*) FILTER (WHERE cbf_contains('\x010101000000000040000000000000000a00000000000000000000000000e03f0000000000000000000000000000000000000000000000000000000000010000000000000000000000000000'::cbf, i)),
       count(*) FILTER (WHERE cbf_count_of(cbf_add(cbf_empty(10), 1), i) > 0),
       count(*) FILTER (WHERE bloom_contains(bloom_add(bloom_empty(10, 0.1), 2), i)),
       count(*) FILTER (WHERE bloom_contains(bloom_add(bloom_empty(10, 0.1), 3), i)),
       count(*) FILTER (WHERE bloom_contains(bloom_add(bloom_empty(10, 0.1), 4), i))
FROM pf_misc;
-- A plain aggregate over the table alone takes the scan's rows whole (no
-- projection per row, as from a Seq Scan); other queries get the columns they ask for
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(*) FILTER (WHERE bloom_contains((SELECT b FROM pf_filters WHERE name = 'classic_i8'), i)) FROM pf_misc;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT i FROM pf_misc WHERE bloom_contains((SELECT b FROM pf_filters WHERE name = 'classic_i8'), i);

-- Where the node must not go
SET sketchshare.prefetch = on;
-- the item an expression, the filter a column of the scanned row, a function not
-- in the list
EXPLAIN (COSTS OFF)
SELECT count(*) FILTER (WHERE cbf_contains((SELECT c FROM pf_filters WHERE name = 'cbf_i8'), i8 + 1)) FROM pf_t;
EXPLAIN (COSTS OFF)
SELECT count(*) FILTER (WHERE cbf_contains(c, 5)) FROM pf_filters;
EXPLAIN (COSTS OFF)
SELECT count(*) FILTER (WHERE sketch_hash(i8) IS NOT NULL) FROM pf_t;
-- a partitioned table and an inheritance parent
CREATE TABLE pf_parted (x bigint) PARTITION BY RANGE (x);
CREATE TABLE pf_part1 PARTITION OF pf_parted FOR VALUES FROM (0) TO (1000);
CREATE TABLE pf_part2 PARTITION OF pf_parted FOR VALUES FROM (1000) TO (2000);
INSERT INTO pf_parted SELECT i FROM generate_series(0, 1999) i;
EXPLAIN (COSTS OFF)
SELECT count(*) FILTER (WHERE cbf_contains(cbf_add(cbf_empty(100), 5), x)) FROM pf_parted;
SELECT * FROM pg_temp.check($$
    SELECT count(*) FILTER (WHERE cbf_contains(cbf_add(cbf_add(cbf_empty(100), 5), 1500), x)) FROM pf_parted $$);
CREATE TABLE pf_parent (x bigint);
CREATE TABLE pf_child () INHERITS (pf_parent);
INSERT INTO pf_parent SELECT i FROM generate_series(1, 1000) i;
INSERT INTO pf_child SELECT i FROM generate_series(1001, 2000) i;
EXPLAIN (COSTS OFF)
SELECT count(*) FILTER (WHERE cbf_contains(cbf_add(cbf_empty(100), 5), x)) FROM pf_parent;
SELECT * FROM pg_temp.check($$
    SELECT count(*) FILTER (WHERE cbf_contains(cbf_add(cbf_add(cbf_empty(100), 5), 1500), x)) FROM pf_parent $$);
-- the parent's own rows alone (ONLY): a plain table scan again
SELECT * FROM pg_temp.check($$
    SELECT count(*) FILTER (WHERE cbf_contains(cbf_add(cbf_add(cbf_empty(100), 5), 1500), x)) FROM ONLY pf_parent $$);
-- an index scan stays an index scan
CREATE INDEX pf_t_id ON pf_t (id);
EXPLAIN (COSTS OFF)
SELECT cbf_contains((SELECT c FROM pf_filters WHERE name = 'cbf_i8'), i8) FROM pf_t WHERE id = 6;
DROP INDEX pf_t_id;

-- Writes: UPDATE, DELETE and row locks through the node (the row identity
-- must come through), the same rows as with the setting off
CREATE TABLE pf_dml_on AS SELECT id, i8, false AS hit FROM pf_t;
CREATE TABLE pf_dml_off AS SELECT * FROM pf_dml_on;
EXPLAIN (COSTS OFF)
UPDATE pf_dml_on SET hit = true WHERE cbf_contains((SELECT c FROM pf_filters WHERE name = 'cbf_i8'), i8);
UPDATE pf_dml_on SET hit = true WHERE cbf_contains((SELECT c FROM pf_filters WHERE name = 'cbf_i8'), i8);
DELETE FROM pf_dml_on WHERE id % 2 = 0 AND bloom_contains((SELECT b FROM pf_filters WHERE name = 'classic_i8'), i8);
SELECT count(*) FROM (SELECT id FROM pf_dml_on WHERE cbf_contains((SELECT c FROM pf_filters WHERE name = 'small_cbf'), i8) FOR UPDATE) s;
SET sketchshare.prefetch = off;
UPDATE pf_dml_off SET hit = true WHERE cbf_contains((SELECT c FROM pf_filters WHERE name = 'cbf_i8'), i8);
DELETE FROM pf_dml_off WHERE id % 2 = 0 AND bloom_contains((SELECT b FROM pf_filters WHERE name = 'classic_i8'), i8);
SELECT count(*) FROM (SELECT id FROM pf_dml_off WHERE cbf_contains((SELECT c FROM pf_filters WHERE name = 'small_cbf'), i8) FOR UPDATE) s;
RESET sketchshare.prefetch;
SELECT (SELECT count(*) FROM pf_dml_on) AS rows_on, (SELECT count(*) FROM pf_dml_off) AS rows_off,
       (SELECT count(*) FROM pf_dml_on a FULL JOIN pf_dml_off b USING (id) WHERE a.hit IS DISTINCT FROM b.hit) AS differ;

-- Rows deleted, inserted and updated by the current transaction: the node
-- sees what the Seq Scan sees
BEGIN;
DELETE FROM pf_dml_on WHERE id % 5 = 0;
INSERT INTO pf_dml_on SELECT id + 100000, i8, true FROM pf_dml_on WHERE id % 7 = 0;
UPDATE pf_dml_on SET hit = NOT hit WHERE id % 11 = 0;
SELECT * FROM pg_temp.check($$
    SELECT count(*), sum(id), count(*) FILTER (WHERE hit) FROM pf_dml_on
    WHERE cbf_contains((SELECT c FROM pf_filters WHERE name = 'cbf_i8'), i8) $$);
ROLLBACK;

-- Shared objects: adds through the node (on) and without it (off) into two
-- objects leave them identical; contains and count_of agree row by row.
SELECT shared_cbf_create('pf_cbf_on', 30000), shared_cbf_create('pf_cbf_off', 30000),
       shared_bloom_create('pf_bloom_on', 30000, 0.01, 'classic'), shared_bloom_create('pf_bloom_off', 30000, 0.01, 'classic');
SET sketchshare.prefetch = on;
EXPLAIN (COSTS OFF) SELECT count(*) FILTER (WHERE shared_cbf_add('pf_cbf_on', i8)) FROM pf_t;
SELECT count(*) FILTER (WHERE shared_cbf_add('pf_cbf_on', i8)) AS new_first,
       count(*) FILTER (WHERE shared_bloom_add('pf_bloom_on', s)) AS new_s FROM pf_t;
SELECT count(*) FILTER (WHERE shared_cbf_add('pf_cbf_on', i8)) AS new_second FROM pf_t WHERE id % 6 = 0;
SET sketchshare.prefetch = off;
SELECT count(*) FILTER (WHERE shared_cbf_add('pf_cbf_off', i8)) AS new_first,
       count(*) FILTER (WHERE shared_bloom_add('pf_bloom_off', s)) AS new_s FROM pf_t;
SELECT count(*) FILTER (WHERE shared_cbf_add('pf_cbf_off', i8)) AS new_second FROM pf_t WHERE id % 6 = 0;
RESET sketchshare.prefetch;
SELECT shared_cbf_snapshot('pf_cbf_on') = shared_cbf_snapshot('pf_cbf_off') AS same_cbf,
       shared_bloom_snapshot('pf_bloom_on') = shared_bloom_snapshot('pf_bloom_off') AS same_bloom;
SELECT * FROM pg_temp.check($$
    SELECT count(*) FILTER (WHERE shared_cbf_contains('pf_cbf_on', i8)) AS cbf_positives,
           sum(shared_cbf_count_of('pf_cbf_on', i8)) AS cbf_sum_count_of,
           count(*) FILTER (WHERE shared_cbf_count_of('pf_cbf_on', i8) IS DISTINCT FROM shared_cbf_count_of('pf_cbf_off', i8)) AS cbf_differ,
           count(*) FILTER (WHERE shared_bloom_contains('pf_bloom_on', s)) AS bloom_positives,
           count(*) FILTER (WHERE shared_bloom_contains('pf_bloom_on', s) IS DISTINCT FROM shared_bloom_contains('pf_bloom_off', s)) AS bloom_differ
    FROM pf_t $$);
-- frozen (read without the lock)
SELECT shared_freeze('pf_bloom_on');
SELECT * FROM pg_temp.check($$
    SELECT count(*) FILTER (WHERE shared_bloom_contains('pf_bloom_on', s)) AS bloom_positives,
           count(*) FILTER (WHERE shared_bloom_contains('pf_bloom_on', s) IS DISTINCT FROM shared_bloom_contains('pf_bloom_off', s)) AS bloom_differ
    FROM pf_t $$);
-- an object that does not exist: no error where the function is never called,
-- the same error where it is
SELECT * FROM pg_temp.check($$
    SELECT count(*) FILTER (WHERE id < 0 AND shared_cbf_contains('pf_missing', i8)) FROM pf_t $$);
SELECT count(*) FILTER (WHERE shared_bloom_contains('pf_missing', i8)) FROM pf_t;
SET sketchshare.prefetch = off;
SELECT count(*) FILTER (WHERE shared_bloom_contains('pf_missing', i8)) FROM pf_t;
RESET sketchshare.prefetch;
-- a name that is not valid (64 characters): the same
SELECT * FROM pg_temp.check($$
    SELECT count(*) FILTER (WHERE id < 0 AND shared_cbf_add(repeat('x', 64), i8)) FROM pf_t $$);
SELECT count(*) FILTER (WHERE shared_cbf_add(repeat('x', 64), i8)) FROM pf_t;
SET sketchshare.prefetch = off;
SELECT count(*) FILTER (WHERE shared_cbf_add(repeat('x', 64), i8)) FROM pf_t;
RESET sketchshare.prefetch;
-- The prefetching scan across query shapes: every lookup function under each
-- of 19 query shapes (filters, aggregates, GROUP BY and ROLLUP, DISTINCT,
-- ORDER BY with LIMIT, window functions, EXISTS, joins, CTEs, UNION, a
-- correlated subquery, LATERAL, whole rows, system columns) gives the same
-- rows with sketchshare.prefetch on and off (pg_temp.check), and the node is in
-- every plan with the setting on. Parallel plans as the session allows them.
-- The filters are 4 MiB or more, or (bm) between 1 and 4 MiB: the node reads
-- ahead for each of them (from 1 MiB).
-- dq_t has NULL items, a dropped column, and 12000 rows (about 80 pages).
RESET max_parallel_workers_per_gather;
CREATE TABLE dq_t (id int, junk text, a bigint, b text, c int);
INSERT INTO dq_t SELECT i, 'j', CASE WHEN i % 13 <> 0 THEN i * 7 END, CASE WHEN i % 11 <> 0 THEN 'b' || (i % 500) END, i % 10
FROM generate_series(1, 12000) i;
ALTER TABLE dq_t DROP COLUMN junk;
CREATE TABLE dq_u (k int, a bigint);
INSERT INTO dq_u SELECT i, i * 7 FROM generate_series(1, 3000, 3) i;
ANALYZE dq_t, dq_u;
CREATE TABLE dq_f AS
SELECT bloom_agg(a, 5000000, 0.01) AS bf, cbf_agg(a, 1000000) AS cf, bloom_agg(b, 5000000, 0.01, 'block<uint64,5>') AS bb,
       bloom_agg(a, 1000000, 0.01) AS bm
FROM dq_t WHERE id % 4 = 0;
SELECT shared_cbf_create('dq_sc', 2000000);
SELECT shared_cbf_add_many('dq_sc', array_agg(a)) FROM dq_t WHERE id % 5 = 0;
SELECT shared_bloom_create('dq_sb', 5000000, 0.01);
SELECT shared_bloom_add_many('dq_sb', array_agg(b)) FROM dq_t WHERE id % 6 = 0;
SELECT (bloom_info(bf)->>'bytes')::int >= 4194304 AS bf_large, (bloom_info(bb)->>'bytes')::int >= 4194304 AS bb_large,
       (cbf_stats(cf)->>'bytes')::int >= 4194304 AS cf_large, (shared_cbf_stats('dq_sc')->>'bytes')::int >= 4194304 AS sc_large,
       (shared_bloom_stats('dq_sb')->>'bytes')::int >= 4194304 AS sb_large,
       (bloom_info(bm)->>'bytes')::int BETWEEN 1048576 AND 4194303 AS bm_mid
FROM dq_f;

DO $$
DECLARE
    preds text[] := ARRAY[
        'bloom_contains((SELECT bf FROM dq_f), t.a)', '(SELECT bf FROM dq_f) @> t.a', 'cbf_contains((SELECT cf FROM dq_f), t.a)',
        'cbf_count_of((SELECT cf FROM dq_f), t.a) > 0', 'bloom_contains((SELECT bb FROM dq_f), t.b)',
        'shared_cbf_contains(''dq_sc'', t.a)', 'shared_cbf_count_of(''dq_sc'', t.a) > 0',
        'shared_bloom_contains(''dq_sb'', t.b)', 'bloom_contains((SELECT bm FROM dq_f), t.a)'];
    shapes text[] := ARRAY[
        'SELECT t.id FROM dq_t t WHERE %s',
        'SELECT count(*) FILTER (WHERE %s) FROM dq_t t',
        'SELECT t.c, count(*) FROM dq_t t WHERE %s GROUP BY t.c',
        'SELECT DISTINCT t.b FROM dq_t t WHERE %s',
        'SELECT t.id FROM dq_t t WHERE %s ORDER BY t.id DESC LIMIT 37',
        'SELECT t.id, row_number() OVER (PARTITION BY t.c ORDER BY t.id) FROM dq_t t WHERE %s',
        'SELECT u.k FROM dq_u u WHERE EXISTS (SELECT 1 FROM dq_t t WHERE t.a = u.a AND %s)',
        'SELECT u.k, t.id FROM dq_u u JOIN dq_t t ON t.a = u.a WHERE %s',
        'WITH m AS (SELECT t.* FROM dq_t t WHERE %s) SELECT count(*), sum(id) FROM m',
        'WITH m AS MATERIALIZED (SELECT t.* FROM dq_t t WHERE %s) SELECT a.id FROM m a JOIN m b ON a.id = b.id + 4',
        'SELECT t.id FROM dq_t t WHERE %s UNION SELECT k FROM dq_u',
        'SELECT u.k, (SELECT count(*) FROM dq_t t WHERE t.c = u.k %% 10 AND %s) FROM dq_u u WHERE u.k < 200',
        'SELECT u.k, x.n FROM dq_u u, LATERAL (SELECT count(*) n FROM dq_t t WHERE t.id < u.k AND %s) x WHERE u.k < 100',
        'SELECT t.id, %s AS hit FROM dq_t t WHERE t.id %% 7 = 0',
        'SELECT t FROM dq_t t WHERE %s AND t.id > 11000',
        'SELECT t.ctid, t.id FROM dq_t t WHERE %s AND t.id < 500',
        'SELECT count(*) FROM dq_t t WHERE t.c = 3 AND %s',
        'SELECT array_agg(t.id ORDER BY t.id) FROM dq_t t WHERE %s AND t.b LIKE ''b1%%''',
        'SELECT t.c, sum(t.a) FILTER (WHERE %s) FROM dq_t t GROUP BY ROLLUP (t.c)'];
    p text; sh text; q text; c record; n int := 0; bad int := 0; node int := 0;
BEGIN
    FOREACH sh IN ARRAY shapes LOOP
        FOREACH p IN ARRAY preds LOOP
            q := format(sh, p);
            n := n + 1;
            SELECT * INTO c FROM pg_temp.check(q);
            IF c.node_on AND NOT c.node_off THEN
                node := node + 1;
            ELSE
                RAISE NOTICE 'node on: %, off: %: %', c.node_on, c.node_off, q;
            END IF;
            IF NOT c.identical THEN bad := bad + 1; RAISE NOTICE 'different rows: %', q; END IF;
        END LOOP;
    END LOOP;
    RAISE NOTICE 'queries % with node % differing %', n, node, bad;
END $$;
-- The node answers the lookups of a large value filter ahead, for a whole
-- page at once. Two filters of 4 MiB or more of each kind answer differently
-- (k = 1: the even ids, those with id % 4 = 0 counted twice; k = 2: the odd
-- ids). Each answer must follow its own filter: in one query that looks up
-- the same item in both, and per outer row of a correlated subquery that
-- rescans the node with one or the other.
CREATE TABLE dq_two AS
SELECT 1 AS k, cbf_agg(a, 1000000) AS cf, bloom_agg(a, 5000000, 0.01) AS bf
FROM (SELECT a FROM dq_t WHERE id % 2 = 0 UNION ALL SELECT a FROM dq_t WHERE id % 4 = 0) s
UNION ALL SELECT 2, cbf_agg(a, 1000000), bloom_agg(a, 5000000, 0.01) FROM dq_t WHERE id % 2 = 1;
SELECT * FROM pg_temp.check($$
    SELECT count(*) FILTER (WHERE bloom_contains((SELECT bf FROM dq_two WHERE k = 1), t.a)) AS even,
           count(*) FILTER (WHERE bloom_contains((SELECT bf FROM dq_two WHERE k = 2), t.a)) AS odd,
           sum(cbf_count_of((SELECT cf FROM dq_two WHERE k = 1), t.a)) AS even_counts,
           count(*) FILTER (WHERE cbf_contains((SELECT cf FROM dq_two WHERE k = 2), t.a)) AS odd_cbf
    FROM dq_t t $$);
-- (serial: a filter set per outer row cannot be read in a worker, so with
-- parallel plans forced the planner may take a Parallel Seq Scan instead)
SET max_parallel_workers_per_gather = 0;
SELECT * FROM pg_temp.check($$
    SELECT r, w.k, (SELECT sum(cbf_count_of(w.cf, t.a)) FROM dq_t t) AS counts,
           (SELECT count(*) FILTER (WHERE cbf_contains(w.cf, t.a)) FROM dq_t t) AS cbf_hits,
           (SELECT count(*) FILTER (WHERE bloom_contains(w.bf, t.a)) FROM dq_t t) AS bloom_hits
    FROM generate_series(1, 3) r, dq_two w ORDER BY r, w.k $$);
-- the filter as an InitPlan of the rescanned subquery, run again per outer
-- row: at each rescan it is not computed yet when the node starts
SELECT * FROM pg_temp.check($$
    SELECT o.n, (SELECT count(*) FILTER (WHERE bloom_contains((SELECT w.bf FROM dq_two w WHERE w.k = o.k), t.a))
                 FROM dq_t t) AS hits
    FROM (SELECT n, 1 + n % 2 AS k FROM generate_series(1, 6) n) o ORDER BY o.n $$);
SELECT r, w.k, (SELECT sum(cbf_count_of(w.cf, t.a)) FROM dq_t t) AS counts,
       (SELECT count(*) FILTER (WHERE bloom_contains(w.bf, t.a)) FROM dq_t t WHERE t.id % 2 = w.k - 1) AS members
FROM generate_series(1, 2) r, dq_two w ORDER BY r, w.k;
-- EXPLAIN ANALYZE reports what the node did: rows read ahead (hashed, their
-- filter lines requested), pages that read ahead, pages paused (its rows were
-- not looked up as returned), and filters resolved (a value once per scan, a
-- shared object at each page). A stored value is read ahead for from the
-- second page on (the function fetches it at the first row); a shared object
-- the session opened before, from the first. Plain EXPLAIN shows none of
-- these lines. (Serial, with parallel plans not forced: the counts are the
-- scanning process's own.)
CREATE FUNCTION pg_temp.prefetch_counts(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
    PERFORM set_config('max_parallel_workers_per_gather', '0', true);  -- no parallel plan, not even a forced one
    FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
        IF line ~ '(Rows Read Ahead|Pages Read Ahead|Pages Paused|Filters Resolved):' THEN
            RETURN NEXT btrim(line);
        END IF;
    END LOOP;
END $$;
SELECT pg_relation_size('dq_t') / current_setting('block_size')::int AS dq_t_pages;
SELECT pg_temp.prefetch_counts($$
    SELECT count(*) FILTER (WHERE bloom_contains((SELECT bf FROM dq_f), t.a)) FROM dq_t t $$);
SELECT pg_temp.prefetch_counts($$
    SELECT count(*) FILTER (WHERE shared_cbf_contains('dq_sc', t.a)) FROM dq_t t $$);
-- a filter under 1 MiB: nothing read ahead
SELECT pg_temp.prefetch_counts($$
    SELECT count(*) FROM pf_t WHERE cbf_contains((SELECT c FROM pf_filters WHERE name = 'cbf_i8'), i8) $$);
-- one row in 50 looked up: the node pauses reading ahead
SELECT pg_temp.prefetch_counts($$
    SELECT count(*) FROM dq_t t WHERE CASE WHEN t.id % 50 = 0 THEN bloom_contains((SELECT bf FROM dq_f), t.a) END $$);
-- plain EXPLAIN: the Prefetch line only
EXPLAIN (COSTS OFF) SELECT count(*) FILTER (WHERE bloom_contains((SELECT bf FROM dq_f), t.a)) FROM dq_t t;
SELECT shared_drop('dq_sc'), shared_drop('dq_sb');
DROP TABLE dq_t, dq_u, dq_f, dq_two;

-- Whatever the join's order, the node reads the filters of a small other
-- table itself and reads ahead in the one each row is joined to: by a key the
-- query joins the two on (a filter per day), or in each of a few rows
-- without one. pf_days has no statistics (a table of a few rows that
-- autovacuum never analyzes), so the planner guesses it large and scans pf_e
-- once, outside any nested loop over pf_days.
CREATE TEMP TABLE pf_e AS SELECT i % 5 AS day, i::int8 * 7919 AS x FROM generate_series(1, 20000) i;
ANALYZE pf_e;
CREATE TEMP TABLE pf_days AS
SELECT day, cbf_agg(x, 300000, 0.01, 'block<7>') FILTER (WHERE x % 3 = 0) AS c,
       bloom_agg(x, 300000, 0.01) FILTER (WHERE x % 3 = 0) AS b
FROM pf_e WHERE day < 4 GROUP BY day;
INSERT INTO pf_days VALUES (4, NULL, NULL);
CREATE TEMP TABLE pf_one_filter AS SELECT cbf_agg(x, 300000, 0.01) FILTER (WHERE x % 2 = 0) AS c FROM pf_e;
-- the Prefetch lines of a query's plan
CREATE FUNCTION pg_temp.prefetch_lines(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        IF line LIKE '%Prefetch:%' THEN RETURN NEXT trim(line); END IF;
    END LOOP;
END $$;
SELECT pg_temp.prefetch_lines($$ SELECT count(*) FROM pf_e e JOIN pf_days d ON d.day = e.day WHERE cbf_contains(d.c, e.x) $$);
SELECT pg_temp.prefetch_lines($$ SELECT count(*) FROM pf_e e, pf_one_filter o WHERE o.c @> e.x $$);
SELECT * FROM pg_temp.check($$
    SELECT e.day, count(*) FROM pf_e e JOIN pf_days d ON d.day = e.day WHERE cbf_contains(d.c, e.x) GROUP BY e.day $$);
-- the node fetches the filters of the days itself and reads ahead from the
-- first page, where each row is joined as it is returned (a hash join; a
-- merge join sorts the rows first, and the node pauses)
SET enable_mergejoin = off;
SELECT pg_temp.prefetch_counts($$
    SELECT count(*) FROM pf_e e JOIN pf_days d ON d.day = e.day WHERE cbf_contains(d.c, e.x) $$);
RESET enable_mergejoin;
SELECT * FROM pg_temp.check($$
    SELECT count(*) FROM pf_e e WHERE EXISTS (SELECT FROM pf_days d WHERE d.day = e.day AND d.b @> e.x) $$);
SELECT * FROM pg_temp.check($$
    SELECT e.day, sum(cbf_count_of(d.c, e.x)) AS sum_count_of, count(d.day) AS joined
    FROM pf_e e LEFT JOIN pf_days d ON d.day = e.day GROUP BY e.day $$);
SELECT * FROM pg_temp.check($$
    SELECT count(*) FILTER (WHERE bloom_contains(d.b, e.x)) FROM pf_e e JOIN pf_days d USING (day) $$);
SELECT * FROM pg_temp.check($$
    SELECT count(*) FROM pf_e e, pf_one_filter o WHERE o.c @> e.x $$);
SELECT * FROM pg_temp.check($$
    SELECT count(*) FROM pf_e e CROSS JOIN LATERAL (SELECT 1 FROM pf_one_filter o WHERE cbf_contains(o.c, e.x)) s $$);
-- shared objects named by a column, one per day
SELECT count(shared_cbf_create('pf_day_' || day, 300000, 0.01, 'block<7>')) FROM pf_days;
SELECT sum(shared_cbf_add_many('pf_day_' || day, xs, false))
FROM (SELECT day, array_agg(x) AS xs FROM pf_e WHERE x % 3 = 0 AND day < 4 GROUP BY day) s;
CREATE TEMP TABLE pf_day_names AS SELECT day, 'pf_day_' || day AS name FROM pf_days;
SELECT pg_temp.prefetch_lines($$
    SELECT count(*) FROM pf_e e JOIN pf_day_names n USING (day) WHERE shared_cbf_contains(n.name, e.x) $$);
SELECT * FROM pg_temp.check($$
    SELECT e.day, count(*) FROM pf_e e JOIN pf_day_names n USING (day) WHERE shared_cbf_contains(n.name, e.x) GROUP BY e.day $$);
SELECT count(shared_drop(name)) FROM pf_day_names;
DROP TABLE pf_e, pf_days, pf_one_filter, pf_day_names;
SET max_parallel_workers_per_gather = 0;

-- Stored filters that change between executions and within a transaction,
-- 4 MiB each (the node answers their lookups ahead): each execution, cursor
-- and loop reads the filter its snapshot sees, with the node as without it.
-- ps_f holds 5 filters and the values of two of them again (other TOAST
-- values of the same bytes).
SET max_parallel_workers_per_gather = 0;
CREATE TABLE ps_t AS SELECT i AS id, i::bigint AS x FROM generate_series(1, 6000) i;
CREATE TABLE ps_f (k int PRIMARY KEY, c cbf);
INSERT INTO ps_f SELECT k, cbf_agg(x, 600000) FROM ps_t, generate_series(1, 5) k WHERE id % (k + 1) = 0 GROUP BY k;
INSERT INTO ps_f SELECT 10 + k, c FROM ps_f WHERE k IN (1, 2);
ANALYZE ps_t, ps_f;
SELECT count(*) AS filters, min(pg_column_size(c)) >= 4194304 AS large, pg_temp.toasted_values('ps_f') AS toasted_values FROM ps_f;
-- each of the 7 filters in turn, twice (more than a call site keeps), through
-- a nested loop that rescans the node with each one
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SET enable_memoize = off;
EXPLAIN (COSTS OFF)
SELECT g, f.k, count(*) FILTER (WHERE f.c @> t.x) FROM generate_series(1, 2) g, ps_f f, ps_t t GROUP BY g, f.k;
SELECT * FROM pg_temp.check($$
    SELECT g, f.k, count(*) FILTER (WHERE f.c @> t.x) AS positives, sum(cbf_count_of(f.c, t.x)) AS sum_count_of
    FROM generate_series(1, 2) g, ps_f f, ps_t t GROUP BY g, f.k $$);
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;
RESET enable_memoize;
-- Prepared statements (generic plans: the filter a parameter of a nested loop
-- or an InitPlan) executed again after the stored filter is updated, deleted
-- and inserted again, moved by VACUUM FULL and CLUSTER, truncated; a cursor
-- WITH HOLD, and cursors open while the filter row is updated in their
-- transaction (they read the filter of their snapshot). Run with the node
-- (the plans show it) and without it: the same output.
SET plan_cache_mode = force_generic_plan;
\set ps_round 'EXECUTE ps_join(1); EXECUTE ps_init(1); BEGIN; DECLARE ps_hold CURSOR WITH HOLD FOR SELECT t.id, cbf_count_of(f.c, t.x) AS n FROM ps_t t, ps_f f WHERE f.k = 1 AND t.id % 1000 = 0; FETCH 2 FROM ps_hold; COMMIT; BEGIN; DECLARE ps_cur SCROLL CURSOR FOR SELECT id, cbf_count_of((SELECT c FROM ps_f WHERE k = 1), x) AS n FROM ps_t WHERE id % 1000 = 0; FETCH 2 FROM ps_cur; UPDATE ps_f SET c = (SELECT c FROM ps_f WHERE k = 3) WHERE k = 1; FETCH 2 FROM ps_cur; FETCH BACKWARD 3 FROM ps_cur; FETCH ALL FROM ps_hold; EXECUTE ps_join(1); EXECUTE ps_init(1); DELETE FROM ps_f WHERE k = 1; INSERT INTO ps_f SELECT 1, c FROM ps_f WHERE k = 4; EXECUTE ps_join(1); EXECUTE ps_init(1); ROLLBACK; CLOSE ps_hold; VACUUM FULL ps_f; EXECUTE ps_join(1); EXECUTE ps_init(2); CLUSTER ps_f USING ps_f_pkey; EXECUTE ps_join(2); EXECUTE ps_init(1); BEGIN; CREATE TEMP TABLE ps_keep AS SELECT * FROM ps_f; TRUNCATE ps_f; EXECUTE ps_join(1); INSERT INTO ps_f SELECT * FROM ps_keep WHERE k <> 1; INSERT INTO ps_f SELECT 1, c FROM ps_keep WHERE k = 5; EXECUTE ps_join(1); EXECUTE ps_init(1); ROLLBACK; EXECUTE ps_join(1);'
PREPARE ps_join(int) AS SELECT count(*) FILTER (WHERE f.c @> t.x) AS positives, sum(cbf_count_of(f.c, t.x)) AS sum_count_of FROM ps_t t, ps_f f WHERE f.k = $1;
PREPARE ps_init(int) AS SELECT count(*) FILTER (WHERE (SELECT c FROM ps_f WHERE k = $1) @> x) AS positives FROM ps_t;
EXPLAIN (COSTS OFF) EXECUTE ps_join(1);
EXPLAIN (COSTS OFF) EXECUTE ps_init(1);
:ps_round
DEALLOCATE ps_join;
DEALLOCATE ps_init;
SET sketchshare.prefetch = off;
PREPARE ps_join(int) AS SELECT count(*) FILTER (WHERE f.c @> t.x) AS positives, sum(cbf_count_of(f.c, t.x)) AS sum_count_of FROM ps_t t, ps_f f WHERE f.k = $1;
PREPARE ps_init(int) AS SELECT count(*) FILTER (WHERE (SELECT c FROM ps_f WHERE k = $1) @> x) AS positives FROM ps_t;
:ps_round
DEALLOCATE ps_join;
DEALLOCATE ps_init;
RESET sketchshare.prefetch;
RESET plan_cache_mode;
-- A plpgsql loop over the same call sites: a filter held in a variable (a
-- TOAST pointer), a loop over a query stopped by an exception in the middle
-- of the scan (its subtransaction rolled back), then more lookups. Its plans
-- are made again for the setting off (DISCARD PLANS): the same text.
CREATE FUNCTION pg_temp.ps_loop() RETURNS text LANGUAGE plpgsql AS $$
DECLARE r record; res text := ''; n bigint; fc cbf;
BEGIN
    FOR i IN 1..4 LOOP
        SELECT c INTO fc FROM ps_f WHERE k = i;
        BEGIN
            FOR r IN SELECT id, fc @> x AS hit FROM ps_t WHERE cbf_count_of(fc, x) >= 0 LOOP
                IF r.id = 1000 * i THEN RAISE EXCEPTION 'stop'; END IF;
            END LOOP;
        EXCEPTION WHEN raise_exception THEN res := res || 'stopped ';
        END;
        SELECT count(*) FILTER (WHERE fc @> x) + sum(cbf_count_of(fc, x)) INTO n FROM ps_t;
        res := res || n || ' ';
        SELECT count(*) INTO n FROM ps_t t, ps_f f WHERE f.k = i + 1 AND f.c @> t.x;
        res := res || n || '; ';
    END LOOP;
    RETURN res;
END $$;
SELECT pg_temp.ps_loop() AS node_on;
SET sketchshare.prefetch = off;
DISCARD PLANS;
SELECT pg_temp.ps_loop() AS node_off;
RESET sketchshare.prefetch;
DISCARD PLANS;
DROP TABLE ps_t, ps_f;
RESET max_parallel_workers_per_gather;

-- A new backend: its first query naming a function loads the library while it
-- is planned, in time for the node. In another, a SET before the library is
-- loaded is a placeholder that the library takes when it loads. Then the
-- objects, which that backend has not opened yet, are scanned with first.
\c -
SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF) SELECT count(*) FILTER (WHERE shared_cbf_contains('pf_cbf_on', i8)) FROM pf_t;
\c -
SET max_parallel_workers_per_gather = 0;
SET sketchshare.prefetch = off;
EXPLAIN (COSTS OFF) SELECT count(*) FILTER (WHERE shared_cbf_contains('pf_cbf_on', i8)) FROM pf_t;
SHOW sketchshare.prefetch;
RESET sketchshare.prefetch;
EXPLAIN (COSTS OFF) SELECT count(*) FILTER (WHERE shared_cbf_contains('pf_cbf_on', i8)) FROM pf_t;
SELECT count(*) FILTER (WHERE shared_cbf_contains('pf_cbf_on', i8)) AS cbf_positives,
       sum(shared_cbf_count_of('pf_cbf_off', i8)) AS cbf_sum_count_of,
       count(*) FILTER (WHERE shared_bloom_contains('pf_bloom_on', s)) AS bloom_positives
FROM pf_t;
SELECT shared_drop('pf_cbf_on'), shared_drop('pf_cbf_off'), shared_drop('pf_bloom_on'), shared_drop('pf_bloom_off');

RESET max_parallel_workers_per_gather;
DROP MATERIALIZED VIEW pf_mat;
DROP TABLE pf_t, pf_filters, pf_groups, pf_two_rows, pf_dropped, pf_empty, pf_parted, pf_parent, pf_child,
           pf_dml_on, pf_dml_off, pf_misc, pf_side;
DROP DOMAIN pf_int;

-- A digest lives only as long as its scan. An error ends a scan without the
-- executor's end: a later query (the node off) must not take the dead scan's
-- digest for an item that has come to sit at the same address (VACUUM moves
-- row 1510 to where row 1500 was).
SET max_parallel_workers_per_gather = 0;
CREATE TABLE pf_err (id int, s text) WITH (autovacuum_enabled = off);
INSERT INTO pf_err SELECT i, 'a' || lpad(i::text, 5, '0') FROM generate_series(1, 2000) i;
CREATE TABLE pf_err_f AS SELECT bloom_agg(s, 4000000, 0.01) AS f FROM pf_err;
CREATE TABLE pf_err_one AS SELECT bloom_add(bloom_empty(100, 0.01), 'a01500') AS f;
SELECT count(*) FROM pf_err WHERE bloom_contains((SELECT f FROM pf_err_f), s) AND 1 / (id - 1500) > -1;
DELETE FROM pf_err WHERE id BETWEEN 1490 AND 1499;
VACUUM pf_err;
SET sketchshare.prefetch = off;
SELECT id, s FROM pf_err WHERE bloom_contains((SELECT f FROM pf_err_one), s);
RESET sketchshare.prefetch;
-- The scan answers lookups only in the stored filter it reads, never in
-- another filter that comes to sit at the same address: per outer row an
-- in-memory filter of another seed (or k), while the inner scan, stopped
-- early by EXISTS, still publishes its last row. 7919 is in every filter.
CREATE TEMP TABLE pf_one AS SELECT 7919::int8 AS x FROM generate_series(1, 1000);
SELECT g, bloom_contains(q.f, 7919::int8) AS outer_lookup,
       EXISTS (SELECT 1 FROM pf_one WHERE bloom_contains(q.f, pf_one.x)) AS inner_lookup
FROM (SELECT g, bloom_add(bloom_empty(4000000, 0.01, NULL, g), 7919::int8) f FROM generate_series(1, 5) g OFFSET 0) q;
SELECT g, cbf_count_of(q.c, 7919::int8) AS outer_count_of,
       EXISTS (SELECT 1 FROM pf_one WHERE cbf_contains(q.c, pf_one.x)) AS inner_lookup
FROM (SELECT g, cbf_add(cbf_add(cbf_empty(1000000, CASE WHEN g % 2 = 0 THEN 0.01 ELSE 0.0156 END), 7919::int8), 7919::int8) c
      FROM generate_series(1, 6) g OFFSET 0) q;
DROP TABLE pf_err, pf_err_f, pf_err_one, pf_one;
RESET max_parallel_workers_per_gather;

