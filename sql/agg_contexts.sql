-- The value aggregates in unusual executor contexts: hash aggregation that
-- spills to disk, grouping sets (sorted, hashed, mixed), transition states
-- shared by two aggregates, rescans that finalize a kept hash table again,
-- partitionwise aggregation, sliding and EXCLUDE window frames, DISTINCT,
-- ORDER BY and FILTER. Every result is compared with a value built another
-- way: the union of one-item filters (bloom_add, cbf_add), or the items
-- themselves (a reservoir as large as its group holds all of them). A small
-- filter (a plain state) and a large one (the buffered expanded state of
-- 128 kB or more) take different paths, so both are checked.
CREATE TABLE ctx_rows AS SELECT i AS x, i % 30 AS g, i % 3 AS h FROM generate_series(1, 1500) i;
ANALYZE ctx_rows;

-- References for every cell of CUBE (g, h), built without bloom_agg / cbf_agg.
SET max_parallel_workers_per_gather = 0;
SET enable_hashagg = off;
CREATE TABLE ctx_ref AS
SELECT g, h, bloom_union_agg(bloom_add(bloom_empty(120000, 0.01), x)) AS big_b,
       bloom_union_agg(bloom_add(bloom_empty(1000, 0.01), x)) AS small_b,
       cbf_union_agg(cbf_add(cbf_empty(50000), x)) AS big_c,
       cbf_union_agg(cbf_add(cbf_empty(1000), x)) AS small_c,
       array_agg(x ORDER BY x) AS items
FROM ctx_rows GROUP BY CUBE (g, h);
RESET enable_hashagg;
RESET max_parallel_workers_per_gather;
-- The large filters are at least as large as the thresholds of the buffered
-- states (128 kB of bits, 256 kB of counters); the small ones are far below.
SELECT count(*) AS cells, bloom_info(min(big_b::text)::bloom)->>'bytes' AS big_bloom_bytes,
       (cbf_stats(min(big_c::text)::cbf)->>'counters')::int / 2 AS big_cbf_counter_bytes
FROM ctx_ref;

-- ctx_compare(query): how many groups the query (columns g, h, big_b, small_b,
-- big_c, small_c, sample) returns, and how many of each column differ from
-- the reference cell of the same g and h.
CREATE FUNCTION ctx_compare(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
    EXECUTE format($q$
        SELECT count(*) AS n,
               count(*) FILTER (WHERE a.big_b IS DISTINCT FROM r.big_b) AS big_b,
               count(*) FILTER (WHERE a.small_b IS DISTINCT FROM r.small_b) AS small_b,
               count(*) FILTER (WHERE a.big_c IS DISTINCT FROM r.big_c) AS big_c,
               count(*) FILTER (WHERE a.small_c IS DISTINCT FROM r.small_c) AS small_c,
               count(*) FILTER (WHERE ARRAY(SELECT unnest(a.sample) ORDER BY 1) IS DISTINCT FROM r.items) AS sample
        FROM (%s) a JOIN ctx_ref r ON a.g IS NOT DISTINCT FROM r.g AND a.h IS NOT DISTINCT FROM r.h$q$, query) INTO r;
    RETURN format('%s groups; differing: big_b %s, small_b %s, big_c %s, small_c %s, sample %s',
                  r.n, r.big_b, r.small_b, r.big_c, r.small_c, r.sample);
END $$;
-- ctx_spills(query): whether a hash aggregation of the query went to disk.
CREATE FUNCTION ctx_spills(query text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE plan text;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || query INTO plan;
    RETURN plan ~ '"HashAgg Batches": ([2-9]|[1-9][0-9])';
END $$;

-- Hash aggregation that spills: every state outgrows work_mem.
SET work_mem = '64kB';
SET enable_sort = off;
SELECT ctx_spills($$SELECT g, bloom_agg(x, 120000, 0.01), cbf_agg(x, 50000) FROM ctx_rows GROUP BY g$$) AS spills;
SELECT ctx_compare($$
    SELECT g, NULL::int AS h, bloom_agg(x, 120000, 0.01) AS big_b, bloom_agg(x, 1000, 0.01) AS small_b,
           cbf_agg(x, 50000) AS big_c, cbf_agg(x, 1000) AS small_c, reservoir_sample(x, 10000) AS sample
    FROM ctx_rows GROUP BY g$$) AS hashed_spilling;
-- Hashed grouping sets that spill (xid has hash but no btree equality, so
-- the sets cannot be sorted), then sorted and mixed (hash and sort) ones.
SELECT ctx_spills($$SELECT bloom_agg(x, 120000, 0.01) FROM ctx_rows GROUP BY CUBE (g::text::xid, h::text::xid)$$) AS spills;
SELECT ctx_compare($$
    SELECT g::text::xid::text::int AS g, h::text::xid::text::int AS h, bloom_agg(x, 120000, 0.01) AS big_b,
           bloom_agg(x, 1000, 0.01) AS small_b, cbf_agg(x, 50000) AS big_c, cbf_agg(x, 1000) AS small_c,
           reservoir_sample(x, 10000, 1.0 + x % 3) AS sample
    FROM ctx_rows GROUP BY CUBE (g::text::xid, h::text::xid)$$) AS hashed_cube_spilling;
RESET work_mem;
RESET enable_sort;
SET enable_hashagg = off;
SELECT ctx_compare($$
    SELECT g, h, bloom_agg(x, 120000, 0.01) AS big_b, bloom_agg(x, 1000, 0.01) AS small_b,
           cbf_agg(x, 50000) AS big_c, cbf_agg(x, 1000) AS small_c, reservoir_sample(x, 10000) AS sample
    FROM ctx_rows GROUP BY CUBE (g, h)$$) AS sorted_cube;
RESET enable_hashagg;
SELECT ctx_compare($$
    SELECT g, h, bloom_agg(x, 120000, 0.01) AS big_b, bloom_agg(x, 1000, 0.01) AS small_b,
           cbf_agg(x, 50000) AS big_c, cbf_agg(x, 1000) AS small_c, reservoir_sample(x, 10000) AS sample
    FROM ctx_rows GROUP BY ROLLUP (h, g)$$) AS rollup;

-- One transition state for several calls: the same call twice, inside a
-- function, in HAVING and ORDER BY; reservoir_sample and reservoir_agg (two
-- aggregates, one transition function) over the same arguments.
SELECT count(*) AS groups,
       count(*) FILTER (WHERE a.b1 = r.big_b AND a.b2 = r.big_b AND a.e = bloom_estimated_count(r.big_b)) AS big_b_ok,
       count(*) FILTER (WHERE a.s1 = r.small_b AND a.si = bloom_info(r.small_b)) AS small_b_ok,
       count(*) FILTER (WHERE a.c1 = r.big_c AND a.cc = cbf_count(r.big_c) AND a.cs = r.small_c) AS cbf_ok,
       count(*) FILTER (WHERE a.sample = a.items AND a.wsample = a.witems) AS shared_reservoir_ok
FROM (SELECT g,
             bloom_agg(x, 120000, 0.01) AS b1, bloom_agg(x, 120000, 0.01) AS b2,
             bloom_estimated_count(bloom_agg(x, 120000, 0.01)) AS e,
             bloom_agg(x, 1000, 0.01) AS s1, bloom_info(bloom_agg(x, 1000, 0.01)) AS si,
             cbf_agg(x, 50000) AS c1, cbf_count(cbf_agg(x, 50000)) AS cc, cbf_agg(x, 1000) AS cs,
             reservoir_sample(x, 5) AS sample, reservoir_items(reservoir_agg(x, 5), NULL::int) AS items,
             reservoir_sample(x, 5, x) AS wsample, reservoir_items(reservoir_agg(x, 5, x), NULL::int) AS witems
      FROM ctx_rows GROUP BY g
      HAVING bloom_agg(x, 120000, 0.01) @> g + 30 AND cbf_count_of(cbf_agg(x, 1000), g + 30) = 1
      ORDER BY cbf_count(cbf_agg(x, 50000)), bloom_estimated_count(bloom_agg(x, 1000, 0.01)), g) a
JOIN ctx_ref r ON r.g = a.g AND r.h IS NULL;

-- A subplan rescanned without a changed parameter keeps the hash table of
-- its aggregate and finalizes the same states once per outer row.
SELECT ctx_compare($$
    SELECT o.g, NULL::int AS h,
           (SELECT f FROM (SELECT g, bloom_agg(x, 120000, 0.01) AS f FROM ctx_rows GROUP BY g OFFSET 0) s WHERE s.g = o.g) AS big_b,
           (SELECT f FROM (SELECT g, bloom_agg(x, 1000, 0.01) AS f FROM ctx_rows GROUP BY g OFFSET 0) s WHERE s.g = o.g) AS small_b,
           (SELECT f FROM (SELECT g, cbf_agg(x, 50000) AS f FROM ctx_rows GROUP BY g OFFSET 0) s WHERE s.g = o.g) AS big_c,
           (SELECT f FROM (SELECT g, cbf_agg(x, 1000) AS f FROM ctx_rows GROUP BY g OFFSET 0) s WHERE s.g = o.g) AS small_c,
           (SELECT f FROM (SELECT g, reservoir_sample(x, 10000) AS f FROM ctx_rows GROUP BY g OFFSET 0) s WHERE s.g = o.g) AS sample
    FROM generate_series(0, 29) o(g)$$) AS rescanned_hash_table;
-- A correlated aggregate, rescanned with n from the outer row (its state
-- switches between the small and the large path).
SELECT o.n, s.h, s.b = (SELECT bloom_union_agg(bloom_add(bloom_empty(o.n, 0.01), x)) FROM ctx_rows WHERE h = s.h) AS bloom_ok,
       s.c = (SELECT cbf_union_agg(cbf_add(cbf_empty(o.n), x)) FROM ctx_rows WHERE h = s.h) AS cbf_ok
FROM (VALUES (1000::bigint), (120000), (2000)) o(n),
     LATERAL (SELECT h, bloom_agg(x, o.n, 0.01) AS b, cbf_agg(x, o.n) AS c FROM ctx_rows GROUP BY h) s
ORDER BY o.n, s.h;

-- Partitionwise aggregation: partial states per partition (in this process
-- without parallel workers) combined above an Append.
CREATE TABLE ctx_parts (x int, g int, h int) PARTITION BY RANGE (x);
CREATE TABLE ctx_parts_1 PARTITION OF ctx_parts FOR VALUES FROM (MINVALUE) TO (1000);
CREATE TABLE ctx_parts_2 PARTITION OF ctx_parts FOR VALUES FROM (1000) TO (2500);
CREATE TABLE ctx_parts_3 PARTITION OF ctx_parts FOR VALUES FROM (2500) TO (MAXVALUE);
INSERT INTO ctx_parts SELECT x, g, h FROM ctx_rows;
ANALYZE ctx_parts;
SET enable_partitionwise_aggregate = on;
SET sketchshare.partial_state_page_cost = 0;  -- partial states free to move: the partial plans
SELECT ctx_compare($$
    SELECT g, NULL::int AS h, bloom_agg(x, 120000, 0.01) AS big_b, bloom_agg(x, 1000, 0.01) AS small_b,
           cbf_agg(x, 50000) AS big_c, cbf_agg(x, 1000) AS small_c, reservoir_sample(x, 10000) AS sample
    FROM ctx_parts GROUP BY g$$) AS partitionwise_grouped;
SELECT ctx_compare($$
    SELECT NULL::int AS g, NULL::int AS h, bloom_agg(x, 120000, 0.01) AS big_b, bloom_agg(x, 1000, 0.01) AS small_b,
           cbf_agg(x, 50000) AS big_c, cbf_agg(x, 1000) AS small_c, reservoir_sample(x, 10000) AS sample
    FROM ctx_parts$$) AS partitionwise_total;
-- A k, capacity or fpr varying between rows of a group is an error also when
-- each partition's partial state saw one value (capacities 1000 and 1001 give
-- the same counters); merging stored values of such differences is not
-- (reservoir_union_agg keeps the smaller k, cbf_union_agg the first capacity)
SELECT reservoir_sample(x, CASE WHEN x < 1000 THEN 5 ELSE 6 END) FROM ctx_parts;
SELECT cbf_agg(x, CASE WHEN x < 1000 THEN 1000 ELSE 1001 END) FROM ctx_parts;
SELECT cardinality(reservoir_items(reservoir_union_agg(r), NULL::int)) AS union_k,
       cbf_count(cbf_union_agg(c)) > 0 AS cbf_union_merged
FROM (SELECT reservoir_agg(x, 3), cbf_agg(x, 1000) FROM ctx_parts_1
      UNION ALL SELECT reservoir_agg(x, 5), cbf_agg(x, 1001) FROM ctx_parts_2) s(r, c);
-- The union aggregates over stored filters of a partitioned table.
CREATE TABLE ctx_stored (g int, b bloom, c cbf, r reservoir) PARTITION BY RANGE (g);
CREATE TABLE ctx_stored_1 PARTITION OF ctx_stored FOR VALUES FROM (MINVALUE) TO (10);
CREATE TABLE ctx_stored_2 PARTITION OF ctx_stored FOR VALUES FROM (10) TO (MAXVALUE);
INSERT INTO ctx_stored
SELECT g, big_b, big_c, (SELECT reservoir_agg(x, 10000) FROM ctx_rows r WHERE r.g = ctx_ref.g)
FROM ctx_ref WHERE g IS NOT NULL AND h IS NULL;
SELECT bloom_union_agg(b) = (SELECT big_b FROM ctx_ref WHERE g IS NULL AND h IS NULL) AS bloom_union_ok,
       cbf_union_agg(c) = (SELECT big_c FROM ctx_ref WHERE g IS NULL AND h IS NULL) AS cbf_union_ok,
       bloom_intersect_agg(b) = (SELECT bloom_intersect_agg(b) FROM (SELECT b FROM ctx_stored_1 UNION ALL SELECT b FROM ctx_stored_2 OFFSET 0) s)
           AS bloom_intersect_ok,
       ARRAY(SELECT unnest(reservoir_items(reservoir_union_agg(r), NULL::int)) ORDER BY 1) =
           (SELECT items FROM ctx_ref WHERE g IS NULL AND h IS NULL) AS reservoir_union_ok
FROM ctx_stored;
RESET enable_partitionwise_aggregate;
RESET sketchshare.partial_state_page_cost;

-- Window frames: running, sliding (restarted at every row), EXCLUDE, in
-- three partitions; a row's value does not change as later rows are added.
CREATE TABLE ctx_window AS
SELECT x, h,
       bloom_agg(x, 120000, 0.01) OVER w_run AS run_big, bloom_agg(x, 1000, 0.01) OVER w_run AS run_small,
       cbf_agg(x, 50000) OVER w_slide AS slide_big_c, cbf_agg(x, 1000) OVER w_slide AS slide_small_c,
       bloom_agg(x, 120000, 0.01) OVER w_slide AS slide_big, bloom_agg(x, 1000, 0.01) OVER w_slide AS slide_small,
       bloom_agg(x, 120000, 0.01) OVER w_excl AS excl_big, cbf_agg(x, 1000) OVER w_excl AS excl_small_c,
       reservoir_sample(x, 100) OVER w_slide AS slide_sample
FROM ctx_rows WHERE x <= 60
WINDOW w_run AS (PARTITION BY h ORDER BY x),
       w_slide AS (PARTITION BY h ORDER BY x ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING),
       w_excl AS (PARTITION BY h ORDER BY x ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE CURRENT ROW);
SELECT count(*) AS rows,
       count(*) FILTER (WHERE run_big = (SELECT bloom_union_agg(bloom_add(bloom_empty(120000, 0.01), r.x))
                                         FROM ctx_rows r WHERE r.h = w.h AND r.x <= w.x)) AS run_big,
       count(*) FILTER (WHERE run_small = (SELECT bloom_union_agg(bloom_add(bloom_empty(1000, 0.01), r.x))
                                           FROM ctx_rows r WHERE r.h = w.h AND r.x <= w.x)) AS run_small,
       count(*) FILTER (WHERE slide_big = (SELECT bloom_union_agg(bloom_add(bloom_empty(120000, 0.01), r.x))
                                           FROM ctx_rows r WHERE r.h = w.h AND r.x BETWEEN w.x - 6 AND w.x + 3 AND r.x <= 60)) AS slide_big,
       count(*) FILTER (WHERE slide_small = (SELECT bloom_union_agg(bloom_add(bloom_empty(1000, 0.01), r.x))
                                             FROM ctx_rows r WHERE r.h = w.h AND r.x BETWEEN w.x - 6 AND w.x + 3 AND r.x <= 60)) AS slide_small,
       count(*) FILTER (WHERE slide_big_c = (SELECT cbf_union_agg(cbf_add(cbf_empty(50000), r.x))
                                             FROM ctx_rows r WHERE r.h = w.h AND r.x BETWEEN w.x - 6 AND w.x + 3 AND r.x <= 60)) AS slide_big_c,
       count(*) FILTER (WHERE slide_small_c = (SELECT cbf_union_agg(cbf_add(cbf_empty(1000), r.x))
                                               FROM ctx_rows r WHERE r.h = w.h AND r.x BETWEEN w.x - 6 AND w.x + 3 AND r.x <= 60)) AS slide_small_c,
       count(*) FILTER (WHERE excl_big = (SELECT bloom_union_agg(bloom_add(bloom_empty(120000, 0.01), r.x))
                                          FROM ctx_rows r WHERE r.h = w.h AND r.x <> w.x AND r.x <= 60)) AS excl_big,
       count(*) FILTER (WHERE excl_small_c = (SELECT cbf_union_agg(cbf_add(cbf_empty(1000), r.x))
                                              FROM ctx_rows r WHERE r.h = w.h AND r.x <> w.x AND r.x <= 60)) AS excl_small_c,
       count(*) FILTER (WHERE ARRAY(SELECT unnest(slide_sample) ORDER BY 1) = (SELECT array_agg(r.x ORDER BY r.x)
                                   FROM ctx_rows r WHERE r.h = w.h AND r.x BETWEEN w.x - 6 AND w.x + 3 AND r.x <= 60)) AS slide_sample
FROM ctx_window w;

-- DISTINCT, ORDER BY and FILTER inside the call.
SELECT count(*) AS groups,
       count(*) FILTER (WHERE a.big_b = d.big_b AND a.small_b = d.small_b) AS distinct_bloom,
       count(*) FILTER (WHERE a.big_c = d.big_c AND a.small_c = d.small_c) AS distinct_cbf,
       count(*) FILTER (WHERE a.filtered_c IS NOT DISTINCT FROM d.filtered_c) AS filter_cbf,
       count(*) FILTER (WHERE a.ordered_c = a.unordered_c AND reservoir_seen(a.ordered_r) = 50) AS ordered
FROM (SELECT g, bloom_agg(DISTINCT x % 50, 120000, 0.01) AS big_b, bloom_agg(DISTINCT x % 50, 1000, 0.01) AS small_b,
             cbf_agg(DISTINCT x % 50, 50000) AS big_c, cbf_agg(DISTINCT x % 50, 1000) AS small_c,
             cbf_agg(DISTINCT x % 50, 50000) FILTER (WHERE x % 50 % 4 = 0) AS filtered_c,
             cbf_agg(x % 50, 1000 ORDER BY x DESC) AS ordered_c, cbf_agg(x % 50, 1000) AS unordered_c,
             reservoir_agg(x, 3 ORDER BY x DESC) AS ordered_r
      FROM ctx_rows GROUP BY g) a
JOIN (SELECT g, bloom_union_agg(bloom_add(bloom_empty(120000, 0.01), y)) AS big_b,
             bloom_union_agg(bloom_add(bloom_empty(1000, 0.01), y)) AS small_b,
             cbf_union_agg(cbf_add(cbf_empty(50000), y)) AS big_c, cbf_union_agg(cbf_add(cbf_empty(1000), y)) AS small_c,
             cbf_union_agg(cbf_add(cbf_empty(50000), y)) FILTER (WHERE y % 4 = 0) AS filtered_c
      FROM (SELECT DISTINCT g, x % 50 AS y FROM ctx_rows) s GROUP BY g) d USING (g);

DROP TABLE ctx_rows, ctx_ref, ctx_parts, ctx_stored, ctx_window;
DROP FUNCTION ctx_compare(text), ctx_spills(text);
