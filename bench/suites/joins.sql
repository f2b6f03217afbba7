-- Filters kept in tables and joined, beside the subquery form and beside the
-- same joins with a trivial condition instead of the lookup (what the join
-- itself costs a row, the floor under each join). Serial plans. The filter
-- tables have no statistics, as a table of a few rows that autovacuum never
-- analyzes: the planner then scans t once under the join, and the node reads
-- the filters ahead from the other table itself (docs/performance.md).
-- join_one: one filter of t's 10M items; join_per_key: a filter per group
-- (t.g, 1000 groups of about 10K items), joined on the group.
-- @setup
SET max_parallel_workers_per_gather = 0;
DROP TABLE IF EXISTS joins_one, joins_per_key;
CREATE TABLE joins_one AS SELECT cbf_agg(x, 10000000, 0.01, 'block<7>') AS c FROM t;
CREATE TABLE joins_per_key AS SELECT g, cbf_agg(x, 20000, 0.01, 'block<7>') AS c FROM t GROUP BY g;
-- @name count_nonzero
SELECT count(*) FILTER (WHERE x <> 0) FROM t;
-- @name subquery vs count_nonzero
SELECT count(*) FILTER (WHERE cbf_contains((SELECT c FROM joins_one), x)) FROM t;
-- @name join_one_floor vs count_nonzero
SELECT count(*) FROM t, joins_one o WHERE t.x <> 0 AND o.c IS NOT NULL;
-- @name join_one vs subquery,join_one_floor
SELECT count(*) FROM t, joins_one o WHERE cbf_contains(o.c, t.x);
-- @name join_one_no_prefetch vs subquery,join_one_floor
SET sketchshare.prefetch = off;
SELECT count(*) FROM t, joins_one o WHERE cbf_contains(o.c, t.x);
RESET sketchshare.prefetch;
-- @name exists_one vs subquery,join_one_floor
SELECT count(*) FROM t WHERE EXISTS (SELECT FROM joins_one o WHERE cbf_contains(o.c, t.x));
-- @name join_per_key_floor vs count_nonzero
SELECT count(*) FROM t JOIN joins_per_key k ON k.g = t.g WHERE t.x <> 0 AND k.c IS NOT NULL;
-- @name join_per_key vs subquery,join_per_key_floor
SELECT count(*) FROM t JOIN joins_per_key k ON k.g = t.g WHERE cbf_contains(k.c, t.x);
