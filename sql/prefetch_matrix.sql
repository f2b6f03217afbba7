-- The prefetching scan across query shapes: every lookup function under each
-- of 19 query shapes (filters, aggregates, GROUP BY and ROLLUP, DISTINCT,
-- ORDER BY with LIMIT, window functions, EXISTS, joins, CTEs, UNION, a
-- correlated subquery, LATERAL, whole rows, system columns) gives the same
-- rows with sketchshare.prefetch on and off, and the node is in every plan.
-- The filters are 4 MiB or more, so the node reads ahead for each of them.
-- dq_t has NULL items, a dropped column, and 12000 rows (about 80 pages).
CREATE TABLE dq_t (id int, junk text, a bigint, b text, c int);
INSERT INTO dq_t SELECT i, 'j', CASE WHEN i % 13 <> 0 THEN i * 7 END, CASE WHEN i % 11 <> 0 THEN 'b' || (i % 500) END, i % 10
FROM generate_series(1, 12000) i;
ALTER TABLE dq_t DROP COLUMN junk;
CREATE TABLE dq_u (k int, a bigint);
INSERT INTO dq_u SELECT i, i * 7 FROM generate_series(1, 3000, 3) i;
ANALYZE dq_t, dq_u;
CREATE TABLE dq_f AS
SELECT bloom_agg(a, 5000000, 0.01) AS bf, cbf_agg(a, 1000000) AS cf, bloom_agg(b, 5000000, 0.01, 'block<uint64,5>') AS bb
FROM dq_t WHERE id % 4 = 0;
SELECT shared_cbf_create('dq_sc', 2000000);
SELECT shared_cbf_add_many('dq_sc', array_agg(a)) FROM dq_t WHERE id % 5 = 0;
SELECT shared_bloom_create('dq_sb', 5000000, 0.01);
SELECT shared_bloom_add_many('dq_sb', array_agg(b)) FROM dq_t WHERE id % 6 = 0;
SELECT (bloom_info(bf)->>'bytes')::int >= 4194304 AS bf_large, (bloom_info(bb)->>'bytes')::int >= 4194304 AS bb_large,
       (cbf_stats(cf)->>'bytes')::int >= 4194304 AS cf_large, (shared_cbf_stats('dq_sc')->>'bytes')::int >= 4194304 AS sc_large,
       (shared_bloom_stats('dq_sb')->>'bytes')::int >= 4194304 AS sb_large
FROM dq_f;

CREATE FUNCTION pg_temp.rows_of(q text, setting text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
    PERFORM set_config('sketchshare.prefetch', setting, true);
    EXECUTE format('SELECT md5(coalesce(string_agg(r::text, '' '' ORDER BY r::text), '''')) || '':'' || count(*) FROM (%s) r', q) INTO r;
    RETURN r;
END $$;
CREATE FUNCTION pg_temp.uses_node(q text) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE line text; found bool := false;
BEGIN
    PERFORM set_config('sketchshare.prefetch', 'on', true);
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP found := found OR line LIKE '%SketchPrefetch%'; END LOOP;
    RETURN found;
END $$;
DO $$
DECLARE
    preds text[] := ARRAY[
        'bloom_contains((SELECT bf FROM dq_f), t.a)', '(SELECT bf FROM dq_f) @> t.a', 'cbf_contains((SELECT cf FROM dq_f), t.a)',
        'cbf_count_of((SELECT cf FROM dq_f), t.a) > 0', 'bloom_contains((SELECT bb FROM dq_f), t.b)',
        'shared_cbf_contains(''dq_sc'', t.a)', 'shared_cbf_count_of(''dq_sc'', t.a) > 0',
        'shared_bloom_contains(''dq_sb'', t.b)'];
    shapes text[] := ARRAY[
        'SELECT t.id FROM dq_t t WHERE %s',
        'SELECT count(*) FILTER (WHERE %s) FROM dq_t t',
        'SELECT t.c, count(*) FROM dq_t t WHERE %s GROUP BY t.c',
        'SELECT DISTINCT t.b FROM dq_t t WHERE %s',
        'SELECT t.id FROM dq_t t WHERE %s ORDER BY t.id DESC LIMIT 37',
        'SELECT t.id, row_number() OVER (PARTITION BY t.c ORDER BY t.id) FROM dq_t t WHERE %s',
        'SELECT u.k FROM dq_u u WHERE EXISTS (SELECT 1 FROM dq_t t WHERE t.a = u.a AND %s)',
        'SELECT u.k, t.id FROM dq_u u JOIN dq_t t ON t.a = u.a WHERE %s',
        'WITH m AS (SELECT t.* FROM dq_t t WHERE %s) SELECT count(*), sum(id) FROM m',
        'WITH m AS MATERIALIZED (SELECT t.* FROM dq_t t WHERE %s) SELECT a.id FROM m a JOIN m b ON a.id = b.id + 4',
        'SELECT t.id FROM dq_t t WHERE %s UNION SELECT k FROM dq_u',
        'SELECT u.k, (SELECT count(*) FROM dq_t t WHERE t.c = u.k %% 10 AND %s) FROM dq_u u WHERE u.k < 200',
        'SELECT u.k, x.n FROM dq_u u, LATERAL (SELECT count(*) n FROM dq_t t WHERE t.id < u.k AND %s) x WHERE u.k < 100',
        'SELECT t.id, %s AS hit FROM dq_t t WHERE t.id %% 7 = 0',
        'SELECT t FROM dq_t t WHERE %s AND t.id > 11000',
        'SELECT t.ctid, t.id FROM dq_t t WHERE %s AND t.id < 500',
        'SELECT count(*) FROM dq_t t WHERE t.c = 3 AND %s',
        'SELECT array_agg(t.id ORDER BY t.id) FROM dq_t t WHERE %s AND t.b LIKE ''b1%%''',
        'SELECT t.c, sum(t.a) FILTER (WHERE %s) FROM dq_t t GROUP BY ROLLUP (t.c)'];
    p text; sh text; q text; r_on text; r_off text; n int := 0; bad int := 0; node int := 0;
BEGIN
    FOREACH sh IN ARRAY shapes LOOP
        FOREACH p IN ARRAY preds LOOP
            q := format(sh, p);
            n := n + 1;
            IF pg_temp.uses_node(q) THEN node := node + 1; ELSE RAISE NOTICE 'no node: %', q; END IF;
            r_on := pg_temp.rows_of(q, 'on');
            r_off := pg_temp.rows_of(q, 'off');
            IF r_on IS DISTINCT FROM r_off THEN bad := bad + 1; RAISE NOTICE 'different rows: %', q; END IF;
        END LOOP;
    END LOOP;
    RAISE NOTICE 'queries % with node % differing %', n, node, bad;
END $$;
SELECT shared_drop('dq_sc'), shared_drop('dq_sb');
DROP TABLE dq_t, dq_u, dq_f;
