-- The cbf suite without parallel workers: the per-row cost of building and
-- probing, free of the parallel plan's fixed costs (a 64 MiB state per worker,
-- shipped to the leader and merged there). The _small statements use a filter
-- that fits the caches (capacity 100000: 512 KiB), which separates the
-- per-row cost of the functions from the memory latency of a 64 MiB filter.
-- A _seqscan statement is the one before it with sketchshare.prefetch = off:
-- a plain Seq Scan instead of the prefetching scan, timed in the same run.
-- @setup
SET max_parallel_workers_per_gather = 0;
DROP TABLE IF EXISTS cbf_bench;
CREATE TABLE cbf_bench AS SELECT cbf_agg(x, 10000000) AS f FROM t;
DROP TABLE IF EXISTS cbf_bench_small;
CREATE TABLE cbf_bench_small AS SELECT cbf_agg(x, 100000) AS f FROM (SELECT x FROM t LIMIT 100000) s;
-- @name count_x
SELECT count(x) FROM t;
-- @name cbf_agg vs count_x
SELECT cbf_count(cbf_agg(x, 10000000)) FROM t;
-- @name cbf_agg_small vs count_x
SELECT cbf_count(cbf_agg(x, 100000)) FROM t;
-- @name count_nonzero
SELECT count(*) FILTER (WHERE x <> 0) FROM t;
-- @name cbf_contains vs count_nonzero
SELECT count(*) FILTER (WHERE cbf_contains((SELECT f FROM cbf_bench), x)) FROM t;
-- @name cbf_contains_seqscan vs count_nonzero
SET sketchshare.prefetch = off;
SELECT count(*) FILTER (WHERE cbf_contains((SELECT f FROM cbf_bench), x)) FROM t;
RESET sketchshare.prefetch;
-- @name cbf_contains_small vs count_nonzero
SELECT count(*) FILTER (WHERE cbf_contains((SELECT f FROM cbf_bench_small), x)) FROM t;
-- @name cbf_contains_small_seqscan vs count_nonzero
SET sketchshare.prefetch = off;
SELECT count(*) FILTER (WHERE cbf_contains((SELECT f FROM cbf_bench_small), x)) FROM t;
RESET sketchshare.prefetch;
