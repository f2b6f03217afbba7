-- cbf_to_bloom: the projection answers exactly as the counting filter did
CREATE TABLE c2b_items AS SELECT i::bigint AS x FROM generate_series(1, 3000) i;
CREATE TABLE c2b AS SELECT cbf_agg(x, 2000, 0.02) AS f FROM c2b_items;
CREATE TABLE c2b_bloom AS SELECT cbf_to_bloom(f) AS b FROM c2b;
-- same m and k, a quarter of the bytes, layout cbf<k>
SELECT bloom_info(b) ->> 'layout' AS layout,
       (bloom_info(b) ->> 'capacity_bits')::bigint = (cbf_stats(f) ->> 'counters')::bigint AS same_m,
       (bloom_info(b) ->> 'k')::int = (cbf_stats(f) ->> 'hashes')::int AS same_k,
       (bloom_info(b) ->> 'bits_set')::bigint = (cbf_stats(f) ->> 'counters_set')::bigint AS same_bits_set,
       octet_length(f::bytea) AS cbf_bytes, octet_length(b::bytea) AS bloom_bytes
FROM c2b, c2b_bloom;
-- every probe agrees: members (all true), and 100000 non-members (some false positives)
SELECT count(*) AS probes,
       count(*) FILTER (WHERE bloom_contains(b, p.x) = cbf_contains(f, p.x)) AS agree,
       count(*) FILTER (WHERE bloom_contains(b, p.x)) > 3000 AS has_false_positives
FROM c2b, c2b_bloom, (SELECT i::bigint AS x FROM generate_series(1, 103000) i) p;
-- text items and removals: the projection is taken of the filter as it is
SELECT bloom_contains(cbf_to_bloom(cbf_add(cbf_empty(100), 'abc')), 'abc') AS text_member,
       bloom_contains(cbf_to_bloom(cbf_remove(cbf_add(cbf_empty(100), 'abc'), 'abc')), 'abc') AS removed_absent;
-- an empty filter projects to an empty Bloom filter
SELECT bloom_info(cbf_to_bloom(cbf_empty(10, 0.5))) ->> 'bits_set' AS bits_set,
       bloom_info(cbf_to_bloom(cbf_empty(10, 0.5))) ->> 'capacity_bits' AS capacity_bits;
-- bad input: NULL gives NULL, a corrupted value is refused
SELECT cbf_to_bloom(NULL) IS NULL AS null_in_null_out;
SELECT cbf_to_bloom('\x00'::bytea::cbf);

-- Rows that take turns among stored filters, as a join makes them: each row
-- reads its own filter, for 20 filters in turn (more than a call site keeps
-- besides the current one, 15: each turn fetches one again) and for 3, as
-- when one filter serves a run of rows. (Serial: a hash join probes the
-- filters in the rows' order, d = 1, 2, ..., 19, 0, 1, ...)
CREATE TABLE turns AS SELECT i % 20 AS d, bloom_agg(i, 200000, 0.01) AS b, cbf_agg(i, 200000) AS c
FROM generate_series(1, 20000) i GROUP BY i % 20;
SELECT bool_and(pg_column_size(b) > 8192 AND pg_column_size(c) > 8192) AS out_of_line FROM turns;  -- larger than a page: TOASTed
CREATE TEMP TABLE turns_in_runs AS  -- the same lookups, a filter at a time
SELECT sum(n_b) AS b_others, sum(n_c) AS c_others FROM turns r, LATERAL (
    SELECT count(*) FILTER (WHERE r.b @> (i + 1)) AS n_b, count(*) FILTER (WHERE r.c @> (i + 1)) AS n_c
    FROM generate_series(1, 2000) i WHERE i % 20 = r.d) l;
SET enable_mergejoin = off;
SET enable_nestloop = off;
SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF) SELECT count(*) FROM generate_series(1, 2000) i JOIN turns t ON t.d = i % 20 WHERE t.b @> i;
SELECT count(*) FILTER (WHERE t.b @> i) AS bloom_members, count(*) FILTER (WHERE t.c @> i) AS cbf_members,
       count(*) FILTER (WHERE cbf_count_of(t.c, i) = 1) AS counted_once,
       (count(*) FILTER (WHERE t.b @> (i + 1)), count(*) FILTER (WHERE t.c @> (i + 1)))
           = (SELECT b_others, c_others FROM turns_in_runs) AS others_as_in_runs
FROM generate_series(1, 2000) i JOIN turns t ON t.d = i % 20;
SELECT count(*) FILTER (WHERE t.b @> i AND t.c @> i) AS members_of_3
FROM generate_series(1, 20000) i JOIN turns t ON t.d = i % 20 WHERE i % 20 < 3;
RESET enable_mergejoin;
RESET enable_nestloop;
RESET max_parallel_workers_per_gather;

-- Both types are hashable: DISTINCT, GROUP BY, UNION and hash joins see equal
-- filters as one, whether stored (TOASTed) or just built.
CREATE TEMP TABLE eqs AS
SELECT g, bloom_agg(x, 200000, 0.01) AS b, cbf_agg(x, 200000) AS c
FROM generate_series(1, 6) g, generate_series(1, 1000 * (g % 3)) x GROUP BY g;
SELECT count(*) AS rows, bool_and(pg_column_size(b) > 8192 AND pg_column_size(c) > 8192) AS toasted FROM eqs;
SELECT (SELECT count(*) FROM (SELECT DISTINCT b FROM eqs) s) AS distinct_blooms,
       (SELECT count(*) FROM (SELECT DISTINCT c FROM eqs) s) AS distinct_cbfs,
       (SELECT count(*) FROM (SELECT b, c FROM eqs UNION SELECT b, c FROM eqs) s) AS union_rows;
SELECT count(*) AS groups, bool_and(n = 2) AS two_each FROM (SELECT b, c, count(*) AS n FROM eqs GROUP BY b, c) s;
SET enable_mergejoin = off;
SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM eqs x JOIN eqs y ON x.b = y.b AND x.c = y.c;
SELECT count(*) AS pairs FROM eqs x JOIN eqs y ON x.b = y.b AND x.c = y.c;
RESET enable_mergejoin;
RESET enable_nestloop;
SELECT bool_and(bloom_hash(b) = bloom_hash(b::bytea::bloom) AND cbf_hash(c) = cbf_hash(c::bytea::cbf)) AS stored_and_built_alike,
       count(DISTINCT bloom_hash(b)) AS bloom_hashes, count(DISTINCT cbf_hash(c)) AS cbf_hashes FROM eqs;
SELECT bloom_hash(NULL) IS NULL AS bloom_null, cbf_hash(NULL) IS NULL AS cbf_null;  -- strict
