-- Counting Bloom filters of the block layout over t (one cache line per
-- item) beside the classic layout's, in the same run: building one with
-- cbf_agg against count(x), and probing one of 10M items against the
-- plainest per-row predicate.
-- @setup
DROP TABLE IF EXISTS cbf_block_bench;
CREATE TABLE cbf_block_bench AS
SELECT cbf_agg(x, 10000000, 0.01, 'block') AS block, cbf_agg(x, 10000000, 0.01) AS classic FROM t;
-- @name count_x
SELECT count(x) FROM t;
-- @name cbf_agg_block vs count_x
SELECT cbf_agg(x, 10000000, 0.01, 'block') IS NOT NULL FROM t;
-- @name cbf_agg_classic vs count_x
SELECT cbf_agg(x, 10000000, 0.01) IS NOT NULL FROM t;
-- @name count_nonzero
SELECT count(*) FILTER (WHERE x <> 0) FROM t;
-- @name cbf_contains_block vs count_nonzero
SELECT count(*) FILTER (WHERE cbf_contains((SELECT block FROM cbf_block_bench), x)) FROM t;
-- @name cbf_contains_classic vs count_nonzero
SELECT count(*) FILTER (WHERE cbf_contains((SELECT classic FROM cbf_block_bench), x)) FROM t;
