-- Counting Bloom filters over t: building one with cbf_agg against count(x),
-- and probing one against the plainest per-row predicate.
-- A _seqscan statement is the one before it with sketchshare.prefetch = off:
-- a plain Seq Scan instead of the prefetching scan, timed in the same run.
-- @setup
DROP TABLE IF EXISTS cbf_bench;
CREATE TABLE cbf_bench AS SELECT cbf_agg(x, 10000000) AS f FROM t;
-- @name count_x
SELECT count(x) FROM t;
-- @name cbf_agg vs count_x
SELECT cbf_count(cbf_agg(x, 10000000)) FROM t;
-- @name cbf_agg_to_client vs count_x
SELECT cbf_agg(x, 10000000) FROM t;
-- @name count_nonzero
SELECT count(*) FILTER (WHERE x <> 0) FROM t;
-- @name cbf_contains vs count_nonzero
SELECT count(*) FILTER (WHERE cbf_contains((SELECT f FROM cbf_bench), x)) FROM t;
-- @name cbf_contains_seqscan vs count_nonzero
SET sketchshare.prefetch = off;
SELECT count(*) FILTER (WHERE cbf_contains((SELECT f FROM cbf_bench), x)) FROM t;
RESET sketchshare.prefetch;
