-- Counting Bloom filters of the block layout over t (one cache line per
-- item) beside the classic layout's, in the same run: building one with
-- cbf_agg against count(x), and probing one of 10M items against the
-- plainest per-row predicate. The cached entries use a filter of 10000
-- items (52 KiB, saturated by t's rows, so every lookup is a hit as in the
-- 10M filter) whose lines stay in the caches: what a row costs when the
-- counters' memory is free, the floor under the 10M entries. count_x_serial
-- is the baseline of the serial plans the 10M aggregates get (their states
-- are too large to hand between processes).
-- @setup
DROP TABLE IF EXISTS cbf_block_bench;
CREATE TABLE cbf_block_bench AS
SELECT cbf_agg(x, 10000000, 0.01, 'block') AS block, cbf_agg(x, 10000000, 0.01) AS classic,
       cbf_agg(x, 10000, 0.01, 'block') AS block_cached FROM t;
-- @name count_x
SELECT count(x) FROM t;
-- @name count_x_serial
SET max_parallel_workers_per_gather = 0;
SELECT count(x) FROM t;
RESET max_parallel_workers_per_gather;
-- @name cbf_agg_block vs count_x,count_x_serial
SELECT cbf_agg(x, 10000000, 0.01, 'block') IS NOT NULL FROM t;
-- @name cbf_agg_classic vs count_x,count_x_serial
SELECT cbf_agg(x, 10000000, 0.01) IS NOT NULL FROM t;
-- @name cbf_agg_block_cached vs count_x
SELECT cbf_agg(x, 10000, 0.01, 'block') IS NOT NULL FROM t;
-- @name count_nonzero
SELECT count(*) FILTER (WHERE x <> 0) FROM t;
-- @name cbf_contains_block vs count_nonzero
SELECT count(*) FILTER (WHERE cbf_contains((SELECT block FROM cbf_block_bench), x)) FROM t;
-- @name cbf_contains_classic vs count_nonzero
SELECT count(*) FILTER (WHERE cbf_contains((SELECT classic FROM cbf_block_bench), x)) FROM t;
-- @name cbf_contains_block_cached vs count_nonzero
SELECT count(*) FILTER (WHERE cbf_contains((SELECT block_cached FROM cbf_block_bench), x)) FROM t;
