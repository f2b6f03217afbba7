-- Bloom filters against what a user would otherwise run over the same rows:
-- count(x) (the scan and aggregate floor), hll_add_agg (another sketch), and
-- for lookups a trivial predicate over the same rows.
-- Serial plans: on a small shared machine parallel workers only add noise
-- (the aggregates do run in parallel; pg_regress tests that).
-- A _seqscan statement is the one before it with sketchshare.prefetch = off:
-- a plain Seq Scan instead of the prefetching scan, timed in the same run.
-- @setup
SET max_parallel_workers_per_gather = 0;
DROP TABLE IF EXISTS bloom_bench_f;
CREATE TABLE bloom_bench_f AS SELECT bloom_agg(x, 10000000, 0.01) AS f FROM t;
ANALYZE bloom_bench_f;
DROP TABLE IF EXISTS bloom_bench_small;
CREATE TABLE bloom_bench_small AS SELECT bloom_agg(x, 100000, 0.01) AS f FROM (SELECT x FROM t LIMIT 100000) s;
DROP TABLE IF EXISTS bloom_bench_mid;
CREATE TABLE bloom_bench_mid AS SELECT bloom_agg(x, 1000000, 0.01) AS f FROM (SELECT x FROM t LIMIT 1000000) s;
-- @name count_x
SELECT count(x) FROM t;
-- @name hll_add_agg vs count_x
SELECT hll_add_agg(hll_hash_bigint(x)) FROM t;
-- @name bloom_agg_default vs count_x,hll_add_agg
SELECT bloom_agg(x, 10000000, 0.01) FROM t;
-- The aggregates without sending their result to the client (a 13 MB
-- filter's text costs more than hll_add_agg's whole work): issue 27's form.
-- @name hll_add_agg_not_null vs count_x
SELECT hll_add_agg(hll_hash_bigint(x)) IS NOT NULL FROM t;
-- @name bloom_agg_not_null vs count_x,hll_add_agg_not_null
SELECT bloom_agg(x, 10000000, 0.01) IS NOT NULL FROM t;
-- The floor under it: a filter of a few bytes, past its capacity from the
-- first rows (its warning silenced), so each row costs the aggregate's call
-- and hash with no memory beyond the caches to touch.
-- @name bloom_agg_tiny_not_null vs count_x,bloom_agg_not_null
SET client_min_messages = error;
SELECT bloom_agg(x, 1, 0.5) IS NOT NULL FROM t;
RESET client_min_messages;
-- @name bloom_agg_fast_multiblock32 vs count_x,hll_add_agg
SELECT bloom_agg(x, 10000000, 0.01, 'fast_multiblock32') FROM t;
-- @name bloom_agg_block_uint64 vs count_x,hll_add_agg
SELECT bloom_agg(x, 10000000, 0.01, 'block<uint64>') FROM t;
-- @name bloom_agg_classic vs count_x,hll_add_agg
SELECT bloom_agg(x, 10000000, 0.01, 'classic') FROM t;
-- @name count_s
SELECT count(s) FROM t;
-- @name bloom_agg_text vs count_s
SELECT bloom_agg(s, 10000000, 0.01) FROM t;
-- @name filter_x_ne_0
SELECT count(*) FILTER (WHERE x <> 0) FROM t;
-- @name filter_bloom_contains vs filter_x_ne_0
SELECT count(*) FILTER (WHERE bloom_contains((SELECT f FROM bloom_bench_f), x)) FROM t;
-- @name filter_bloom_contains_seqscan vs filter_x_ne_0
SET sketchshare.prefetch = off;
SELECT count(*) FILTER (WHERE bloom_contains((SELECT f FROM bloom_bench_f), x)) FROM t;
RESET sketchshare.prefetch;
-- @name filter_contains_operator vs filter_x_ne_0
SELECT count(*) FILTER (WHERE (SELECT f FROM bloom_bench_f) @> x) FROM t;
-- The filter as a column of a joined one-row table (README's form): a nested
-- loop over it with the scan parameterized by it, and the plain nested loop.
-- @name filter_contains_join vs filter_x_ne_0
SELECT count(*) FILTER (WHERE f @> x) FROM t, bloom_bench_f;
-- @name filter_contains_join_seqscan vs filter_x_ne_0
SET sketchshare.prefetch = off;
SELECT count(*) FILTER (WHERE f @> x) FROM t, bloom_bench_f;
RESET sketchshare.prefetch;
-- The same lookups in a filter that fits the caches (100k items, 128 kB).
-- @name filter_contains_small vs filter_x_ne_0
SELECT count(*) FILTER (WHERE bloom_contains((SELECT f FROM bloom_bench_small), x)) FROM t;
-- @name filter_contains_small_seqscan vs filter_x_ne_0
SET sketchshare.prefetch = off;
SELECT count(*) FILTER (WHERE bloom_contains((SELECT f FROM bloom_bench_small), x)) FROM t;
RESET sketchshare.prefetch;
-- A filter of 1.3 MB (1M items): beyond a core's second-level cache, within the
-- last level's, read ahead as the 13 MB one is.
-- @name filter_contains_mid vs filter_x_ne_0
SELECT count(*) FILTER (WHERE bloom_contains((SELECT f FROM bloom_bench_mid), x)) FROM t;
