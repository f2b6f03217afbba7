-- bloom aggregates: serial and parallel plans give identical filters, grouped
-- aggregation (hash and sort), the batched path of large states, windows.
SET extra_float_digits = 0;
CREATE TABLE bloom_rows AS
SELECT i AS x, md5(i::text) AS s, i % 7 AS g FROM generate_series(1, 200000) i;
ANALYZE bloom_rows;

-- Serial reference filters: a small one, and a large one (over 128 kB, so
-- its state buffers hashes and flushes them in prefetching batches).
SET max_parallel_workers_per_gather = 0;
CREATE TABLE bloom_serial AS
SELECT bloom_agg(x, 200000, 0.01, 'classic') AS small_x, bloom_agg(s, 400000, 0.001) AS big_s,
       bloom_agg(x, 400000, 0.001, 'block<uint64[8]>') AS big_x
FROM bloom_rows;
SELECT bloom_info(big_s)->>'bytes' AS big_s_bytes, bloom_info(big_x)->>'bytes' AS big_x_bytes FROM bloom_serial;
RESET max_parallel_workers_per_gather;

-- A parallel plan: partial aggregates in workers, combined in the leader
-- (moving their states costs nothing here, see the planning section below).
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET sketchshare.partial_state_page_cost = 0;
EXPLAIN (COSTS OFF)
SELECT bloom_agg(x, 200000, 0.01, 'classic') FROM bloom_rows;
CREATE TABLE bloom_parallel AS
SELECT bloom_agg(x, 200000, 0.01, 'classic') AS small_x, bloom_agg(s, 400000, 0.001) AS big_s,
       bloom_agg(x, 400000, 0.001, 'block<uint64[8]>') AS big_x
FROM bloom_rows;
SELECT p.small_x = s.small_x AS small_identical, p.big_s = s.big_s AS big_s_identical,
       p.big_x = s.big_x AS big_x_identical, md5(p.big_s::bytea) = md5(s.big_s::bytea) AS same_bytes
FROM bloom_parallel p, bloom_serial s;
-- No hash lost on any path: every row is found.
SELECT count(*) FILTER (WHERE NOT f.small_x @> x) AS small_missing,
       count(*) FILTER (WHERE NOT f.big_s @> s) AS big_s_missing,
       count(*) FILTER (WHERE NOT f.big_x @> x) AS big_x_missing
FROM bloom_rows, bloom_parallel f;
-- The same bits whatever the order and batching: union of per-group filters.
SELECT bloom_union_agg(f) = (SELECT big_s FROM bloom_serial) AS union_of_groups
FROM (SELECT bloom_agg(s, 400000, 0.001) AS f FROM bloom_rows GROUP BY g) t;

-- Planning: a parallel plan pays sketchshare.partial_state_page_cost per 8 kB
-- page of each partial state (the size the constant arguments give), so a
-- large filter is built serially and a small one in parallel; unknown sizes
-- (arguments that are not constants) and a cost of 0 plan as before.
SELECT boot_val FROM pg_settings WHERE name = 'sketchshare.partial_state_page_cost';
SET sketchshare.partial_state_page_cost = 20;
EXPLAIN (COSTS OFF) SELECT bloom_agg(x, 10000000, 0.01) FROM bloom_rows;
EXPLAIN (COSTS OFF) SELECT bloom_agg(x, 1000, 0.01) FROM bloom_rows;
EXPLAIN (COSTS OFF) SELECT bloom_agg(x, 10000000, 0.01, 'block<uint64>') FROM bloom_rows;
EXPLAIN (COSTS OFF) SELECT cbf_agg(x, 10000000) FROM bloom_rows;
EXPLAIN (COSTS OFF) SELECT cbf_agg(x, 1000, 0.001) FROM bloom_rows;
-- the cost is per partial state: a small and a large filter in one query pay for the large one
EXPLAIN (COSTS OFF) SELECT cbf_agg(x, 1000), bloom_agg(x, 10000000, 0.01) FROM bloom_rows;
-- cbf_union_agg's states have no size the planner can know
EXPLAIN (COSTS OFF) SELECT cbf_union_agg(cbf_add(cbf_empty(10000000), x)) FROM bloom_rows;
-- arguments that size no filter plan as unknown and fail when the aggregate runs
EXPLAIN (COSTS OFF) SELECT cbf_agg(x, 0) FROM bloom_rows;
EXPLAIN (COSTS OFF) SELECT bloom_agg(x, 1000, 2.0, 'no such layout') FROM bloom_rows;
SET sketchshare.partial_state_page_cost = 0;
EXPLAIN (COSTS OFF) SELECT cbf_agg(x, 10000000) FROM bloom_rows;
SET sketchshare.partial_state_page_cost = -1;
-- the support functions take an internal planner request, which no SQL value can be (errors);
-- which functions name them
SELECT bloom_agg_combine_support(NULL::internal);
SELECT cbf_agg_combine_support(42);
SELECT proname, prosupport FROM pg_proc WHERE prosupport IN ('bloom_agg_combine_support'::regproc,
       'cbf_agg_combine_support'::regproc) ORDER BY proname;

-- Grouped aggregation, hashed and sorted, serial and parallel: same filters.
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT g, bloom_agg(x, 50000, 0.01) AS f FROM bloom_rows GROUP BY g;
CREATE TABLE bloom_hashed AS SELECT g, bloom_agg(x, 50000, 0.01) AS f FROM bloom_rows GROUP BY g;
RESET enable_sort;
SET enable_hashagg = off;
EXPLAIN (COSTS OFF) SELECT g, bloom_agg(x, 50000, 0.01) AS f FROM bloom_rows GROUP BY g;
CREATE TABLE bloom_sorted AS SELECT g, bloom_agg(x, 50000, 0.01) AS f FROM bloom_rows GROUP BY g;
RESET enable_hashagg;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE bloom_grouped_serial AS SELECT g, bloom_agg(x, 50000, 0.01) AS f FROM bloom_rows GROUP BY g;
SELECT count(*) AS groups,
       count(*) FILTER (WHERE h.f = s.f AND s.f = r.f) AS identical
FROM bloom_hashed h JOIN bloom_sorted s USING (g) JOIN bloom_grouped_serial r USING (g);
SELECT g, (SELECT count(*) FROM bloom_rows b WHERE b.g = h.g AND NOT h.f @> b.x) AS missing,
       round(bloom_estimated_count(f)) BETWEEN 27000 AND 30100 AS count_ok
FROM bloom_hashed h ORDER BY g;

-- Union and intersection aggregates.
SELECT bloom_union_agg(f) = (SELECT bloom_agg(x, 50000, 0.01) FROM bloom_rows) AS union_agg,
       bloom_intersect_agg(f) @> 3 AS in_every_group_is_unlikely,
       bloom_union_agg(f) @> 199999 AS found,
       bloom_union_agg(NULL::bloom) IS NULL AS all_null
FROM bloom_hashed;
SELECT bloom_intersect_agg(f) = (SELECT f FROM bloom_hashed WHERE g = 1) AS intersect_of_equal,
       bloom_intersect_agg(f) & (SELECT f FROM bloom_hashed WHERE g = 2) = bloom_intersect(
           (SELECT f FROM bloom_hashed WHERE g = 1), (SELECT f FROM bloom_hashed WHERE g = 2)) AS intersect_fn
FROM (SELECT f FROM bloom_hashed WHERE g = 1 UNION ALL SELECT f FROM bloom_hashed WHERE g = 1) t;

-- NULL items are skipped; no rows: NULL; untyped literals are text.
SELECT bloom_agg(v, 10, 0.01) = bloom_agg(v, 10, 0.01) FILTER (WHERE v IS NOT NULL) AS nulls_skipped,
       bloom_estimated_count(bloom_agg(v, 10, 0.01))::int AS count
FROM (VALUES (1), (NULL), (2)) t(v);
SELECT bloom_agg(x, 10, 0.01) IS NULL AS no_rows FROM bloom_rows WHERE false;
SELECT bloom_agg('abc', 10, 0.01) @> 'abc'::text AS literal_item;

-- As a window aggregate (a running filter).
SELECT i, bloom_estimated_count(bloom_agg(i, 100, 0.01) OVER (ORDER BY i))::int AS running
FROM generate_series(1, 5) i;
SELECT count(*) FILTER (WHERE f @> i) AS found_in_running_filter
FROM (SELECT i, bloom_agg(i, 300000, 0.001) OVER (ORDER BY i) AS f FROM generate_series(1, 300) i) t;

-- n, fpr and layout that are not constants of the plan (a column of a
-- subquery, parameters of a generic plan: checked on every row) give the
-- filter the constants give.
SET plan_cache_mode = force_generic_plan;
PREPARE agg_params(bigint, float8, text) AS
    SELECT bloom_agg(x, $1, $2, $3) AS f FROM bloom_rows WHERE x <= 30000;
SELECT (SELECT bloom_agg(x, 50000, 0.01, 'block<uint64,5>') FROM bloom_rows WHERE x <= 30000) =
       (SELECT bloom_agg(x, n, 0.01, 'block<uint64,5>') FROM bloom_rows, (SELECT 50000::bigint AS n OFFSET 0) c WHERE x <= 30000)
       AS same_as_constants;
CREATE TEMP TABLE agg_params_result AS EXECUTE agg_params(50000, 0.01, 'block<uint64,5>');
SELECT f = (SELECT bloom_agg(x, 50000, 0.01, 'block<uint64,5>') FROM bloom_rows WHERE x <= 30000) AS generic_plan_same
FROM agg_params_result;
DEALLOCATE agg_params;
RESET plan_cache_mode;

-- Past capacity: a filter whose estimated items and rate are both above the
-- n and fpr asked for gets one warning per filter built (per group), not per
-- row; one at its n gets none (the default layout, a classic one, and a
-- buffered state of 1.2 MB).
SELECT g, bloom_estimated_count(bloom_agg(i, 100, 0.01))::int / 100 AS hundreds
FROM generate_series(1, 2) g, generate_series(1, 100 + (g - 1) * 400) i GROUP BY g ORDER BY g;
SELECT bloom_info(bloom_agg(i, 1000, 0.01, 'classic'))->>'estimated_fpr' AS at_n FROM generate_series(1, 1000) i;
SELECT bloom_info(bloom_agg(i, 1000, 0.01, 'classic'))->>'estimated_fpr' AS past_n FROM generate_series(1, 1300) i;
SELECT bloom_estimated_count(bloom_agg(i, 1000000, 0.01))::int / 100000 AS past_n FROM generate_series(1, 1300000) i;
-- a parallel plan warns once, in its final step (the states record n and
-- fpr), not once per partial state; per group too
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET sketchshare.partial_state_page_cost = 0;
SET enable_hashagg = off;
EXPLAIN (COSTS OFF) SELECT bloom_agg(x, 10000, 0.01) FROM bloom_rows;
SELECT bloom_estimated_count(bloom_agg(x, 10000, 0.01))::int / 10000 AS tens_of_thousands FROM bloom_rows;
EXPLAIN (COSTS OFF) SELECT x % 2, bloom_agg(x, 10000, 0.01) FROM bloom_rows GROUP BY 1;
SELECT x % 2 AS half, bloom_estimated_count(bloom_agg(x, 10000, 0.01))::int / 10000 AS tens_of_thousands
FROM bloom_rows GROUP BY 1 ORDER BY 1;
-- bloom_union_agg in a parallel plan: the union keeps the values' n and fpr
EXPLAIN (COSTS OFF) SELECT bloom_union_agg(bloom_add(bloom_empty(300000, 0.01), x)) FROM bloom_rows;
SELECT bloom_info(u)->'capacity' AS capacity, bloom_info(u)->'fp_rate' AS fp_rate, bloom_info(u)->'version' AS version,
       u = (SELECT bloom_agg(x, 300000, 0.01) FROM bloom_rows) AS same_filter
FROM (SELECT bloom_union_agg(bloom_add(bloom_empty(300000, 0.01), x)) AS u FROM bloom_rows) s;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET sketchshare.partial_state_page_cost;
RESET enable_hashagg;
-- n or fpr that are not constants of the call: the value records them, so
-- the aggregate warns all the same
SELECT bloom_estimated_count(bloom_agg(i, n, 0.01))::int / 100 AS hundreds
FROM generate_series(1, 500) i, (SELECT 100::bigint AS n OFFSET 0) c;

DROP TABLE bloom_rows, bloom_serial, bloom_parallel, bloom_hashed, bloom_sorted, bloom_grouped_serial;
