-- bloom_agg and reservoir_sample on a Citus cluster against count(x) over the
-- same distributed table (t, 8 shards on two workers; t2, 2 shards: a filter
-- state travels as text once per shard), beside the same ratios
-- on one node (t_local: the same rows in a plain table on the coordinator),
-- timed in the same run. The filter stays on the coordinator (IS NOT NULL):
-- sending 24 MB of hex to psql is not what is measured.
-- The floors under the ratios of sketchshare's aggregates, what Citus's
-- worker_partial_agg costs per row for any custom aggregate:
--   citus_sum, the cheapest custom aggregate Citus can split (one argument,
--   int8pl, a built-in function, which fmgr_info finds in a table);
--   citus_count2, two arguments (int8inc_float8_float8, built in, regr_count's
--   transition): Citus wraps several arguments into a record per row
--   (ROW(...) on the worker) and takes it apart again;
--   bloom_union_agg over fs (one stored 10M-capacity filter per shard, built
--   by citus_bench.sh): no rows to speak of, only the shipping of a large
--   state (text output on the worker, input and combine on the coordinator).
-- bloom_agg(x, 10000, 0.01), a filter that stays in the caches, separates the
-- per-row cost from the memory traffic of the large filter.
-- @setup
SET citus.coordinator_aggregation_strategy = 'disabled';
DROP AGGREGATE IF EXISTS citus_sum(bigint);
CREATE AGGREGATE citus_sum(bigint) (SFUNC = int8pl, STYPE = bigint, COMBINEFUNC = int8pl, PARALLEL = SAFE);
DROP AGGREGATE IF EXISTS citus_count2(float8, float8);
CREATE AGGREGATE citus_count2(float8, float8) (SFUNC = int8inc_float8_float8, STYPE = bigint, INITCOND = 0,
                                               COMBINEFUNC = int8pl, PARALLEL = SAFE);
-- @name count_local
SELECT count(x) FROM t_local;
-- @name bloom_agg_local vs count_local
SELECT bloom_agg(x, 10000000, 0.01) IS NOT NULL FROM t_local;
-- @name bloom_agg_small_local vs count_local
SELECT bloom_agg(x, 10000, 0.01) IS NOT NULL FROM t_local;
-- @name reservoir_sample_local vs count_local
SELECT reservoir_sample(x, 100) IS NOT NULL FROM t_local;
-- @name count_citus
SELECT count(x) FROM t;
-- @name citus_sum_citus vs count_citus
SELECT citus_sum(x % 1000) FROM t;
-- @name citus_count2_citus vs count_citus,citus_sum_citus
SELECT citus_count2(x::float8, 0.01) FROM t;
-- @name shipping_citus vs count_citus
SELECT bloom_union_agg(b) IS NOT NULL FROM fs;
-- @name bloom_agg_small_citus vs count_citus,citus_count2_citus
SELECT bloom_agg(x, 10000, 0.01) IS NOT NULL FROM t;
-- @name bloom_agg_citus vs count_citus,citus_count2_citus
SELECT bloom_agg(x, 10000000, 0.01) IS NOT NULL FROM t;
-- @name reservoir_sample_citus vs count_citus,citus_count2_citus
SELECT reservoir_sample(x, 100) IS NOT NULL FROM t;
-- @name count_citus_2shards
SELECT count(x) FROM t2;
-- @name citus_sum_citus_2shards vs count_citus_2shards
SELECT citus_sum(x % 1000) FROM t2;
-- @name bloom_agg_citus_2shards vs count_citus_2shards,citus_sum_citus_2shards
SELECT bloom_agg(x, 10000000, 0.01) IS NOT NULL FROM t2;
-- @name reservoir_sample_citus_2shards vs count_citus_2shards,citus_sum_citus_2shards
SELECT reservoir_sample(x, 100) IS NOT NULL FROM t2;
