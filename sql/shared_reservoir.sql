-- Shared reservoirs: the SQL surface, transactions, freeze, privileges and
-- every error. Samples are made reproducible with shared_reservoir_seed.
\i sql/include/sqlstate_of.sql

-- create, fill, sample
SELECT shared_reservoir_create('rs', 5);
SELECT shared_reservoir_seed('rs', 42);
SELECT name, kind, bytes, frozen, readonly, capacity, fpr, layout, m AS item_size, k, ops, status
FROM shared_objects WHERE name = 'rs';
-- the first k items are always stored
SELECT g, shared_reservoir_add('rs', g) AS stored FROM generate_series(1, 5) g ORDER BY g;
SELECT shared_reservoir_seen('rs') AS seen, shared_reservoir_count('rs') AS count;
SELECT s FROM shared_reservoir_sample('rs') s ORDER BY s::int;
-- then item i is stored with probability k / i (fixed by the seed)
SELECT count(*) FILTER (WHERE shared_reservoir_add('rs', g)) AS stored_of_995 FROM generate_series(6, 1000) g;
SELECT shared_reservoir_seen('rs') AS seen, shared_reservoir_count('rs') AS count;
SELECT array_agg(s::int ORDER BY s::int) AS sample FROM shared_reservoir_sample('rs') s;
SELECT bool_and(s::int BETWEEN 1 AND 1000) AS all_added FROM shared_reservoir_sample('rs') s;
-- the same seed and the same adds draw the same sample
SELECT shared_reservoir_create('rs2', 5);
SELECT shared_reservoir_seed('rs2', 42);
SELECT count(*) FILTER (WHERE shared_reservoir_add('rs2', g)) AS stored FROM generate_series(1, 1000) g;
SELECT (SELECT array_agg(s ORDER BY s) FROM shared_reservoir_sample('rs') s)
     = (SELECT array_agg(s ORDER BY s) FROM shared_reservoir_sample('rs2') s) AS same_sample;
SELECT s->'k' AS k, s->'item_size' AS item_size, s->'weighted' AS weighted, s->'count' AS count,
       s->'seen' AS seen, (s->>'stored')::int BETWEEN 5 AND 1000 AS stored_ok, s->'ops' AS ops,
       s->'bytes' AS bytes, s->'frozen' AS frozen, s->'readonly' AS readonly,
       s->'lock_recoveries' AS lock_recoveries, s->'journal_replays' AS journal_replays
FROM shared_reservoir_stats('rs2') s;

-- items: the text form of any type, bytea by its bytes, cut to item_size
SELECT shared_reservoir_create('items', 10, item_size => 6);
SELECT shared_reservoir_add('items', 'abc') AS literal, shared_reservoir_add('items', 'abcdefghij'::text) AS long_text,
       shared_reservoir_add('items', 'héhéhé'::varchar) AS multibyte, shared_reservoir_add('items', 12345678) AS int,
       shared_reservoir_add('items', '2026-11-30'::date) AS date, shared_reservoir_add('items', '\x00ff41'::bytea) AS bytea,
       shared_reservoir_add('items', '\x0102030405060708'::bytea) AS long_bytea;
SELECT s, octet_length(s) AS bytes FROM shared_reservoir_sample('items') s ORDER BY s;
SELECT b FROM shared_reservoir_sample_bytea('items') b ORDER BY b;
SELECT shared_reservoir_count('items') AS count;
-- char(n) is stored as its cast to text (no padding), alone or in an array; "char" as its character
SELECT shared_reservoir_create('chars', 10);
SELECT shared_reservoir_add('chars', 'ab'::char(5)) AS alone, shared_reservoir_add_many('chars', ARRAY['cd'::char(4)]) AS in_array,
       shared_reservoir_add('chars', 'r'::"char") AS one_byte_char;
SELECT s, octet_length(s) AS bytes FROM shared_reservoir_sample('chars') s ORDER BY s;
SELECT shared_drop('chars');

-- add_many: NULLs skipped, returns how many were stored
SELECT shared_reservoir_create('many', 3);
SELECT shared_reservoir_seed('many', 7);
SELECT shared_reservoir_add_many('many', ARRAY[1, NULL, 2]) AS stored;
SELECT shared_reservoir_add_many('many', ARRAY[]::int[]) AS none;
SELECT shared_reservoir_add_many('many', ARRAY['x', 'y', 'z']) AS text_items;
SELECT shared_reservoir_add_many('many', ARRAY[[10, 11], [12, 13]]) AS two_dims;
SELECT shared_reservoir_seen('many') AS seen, shared_reservoir_count('many') AS count;
SELECT s FROM shared_reservoir_sample('many') s ORDER BY s;

-- weighted (A-Res): a weight per item
SELECT shared_reservoir_create('w', 2, weighted => true);
SELECT shared_reservoir_seed('w', 1);
SELECT shared_reservoir_add('w', 'light', 1) AS first, shared_reservoir_add('w', 'light2', 1) AS second;
SELECT shared_reservoir_add('w', g, 1e-9) FROM generate_series(1, 3) g;
SELECT shared_reservoir_add('w', 'heavy', 1e12) AS heavy, shared_reservoir_add('w', 'heavier', 1e15) AS heavier;
SELECT s FROM shared_reservoir_sample('w') s ORDER BY s;
SELECT shared_reservoir_add_many('w', ARRAY['a', NULL, 'b'], ARRAY[1, NULL, 2]) AS stored_of_light;
SELECT shared_reservoir_seen('w') AS seen, shared_reservoir_count('w') AS count;
SELECT s->'weighted' AS weighted, s->'k' AS k FROM shared_reservoir_stats('w') s;
SELECT layout FROM shared_objects WHERE name = 'w';

-- add_many converts and offers its items in chunks of 1024: NULLs before a
-- chunk boundary leave every later item with its own weight (the one heavy
-- item of 3000, past two boundaries, is the sample of k = 1)
SELECT shared_reservoir_create('chunks', 1, weighted => true);
SELECT shared_reservoir_seed('chunks', 3);
SELECT shared_reservoir_add_many('chunks',
           array_agg(CASE WHEN g BETWEEN 1000 AND 1100 THEN NULL ELSE g END ORDER BY g),
           array_agg(CASE WHEN g = 2500 THEN 1e12 WHEN g BETWEEN 1000 AND 1100 THEN NULL ELSE 1e-9 END ORDER BY g)) >= 1 AS stored
FROM generate_series(1, 3000) g;
SELECT shared_reservoir_seen('chunks') AS seen, array(SELECT shared_reservoir_sample('chunks')) AS sample;
SELECT s->'ops' AS ops FROM shared_reservoir_stats('chunks') s;
SELECT shared_drop('chunks');

-- clear: empty, seen back to 0
SELECT shared_reservoir_clear('w');
SELECT shared_reservoir_seen('w') AS seen, shared_reservoir_count('w') AS count,
       (SELECT count(*) FROM shared_reservoir_sample('w')) AS items;
SELECT shared_reservoir_add('w', 'after clear', 2.5) AS stored;
SELECT s FROM shared_reservoir_sample('w') s;

-- a quick uniformity check through the seed: k = 5 of n = 20 over 600
-- trials; each item's inclusion count (expected 150) gives a chi-square
-- statistic below 43.82 (19 degrees of freedom, p = 0.001).
SELECT shared_reservoir_create('uni', 5, 8);
SELECT shared_reservoir_seed('uni', 2026);
CREATE TEMP TABLE uni_hits (item int);
DO $$
BEGIN
    FOR t IN 1..600 LOOP
        PERFORM shared_reservoir_clear('uni');
        PERFORM shared_reservoir_add_many('uni', array_agg(g)) FROM generate_series(1, 20) g;
        INSERT INTO uni_hits SELECT s::int FROM shared_reservoir_sample('uni') s;
    END LOOP;
END $$;
SELECT count(*) AS hits, count(DISTINCT item) AS items,
       sum((n - 150.0) ^ 2 / 150.0) < 43.82 AS chi_square_ok
FROM (SELECT item, count(*) AS n FROM uni_hits GROUP BY item) x;

-- bad input
SELECT shared_reservoir_create('bad', 0);
SELECT shared_reservoir_create('bad', -1);
SELECT shared_reservoir_create('bad', 10000001);
SELECT shared_reservoir_create('bad', 10, 0);
SELECT shared_reservoir_create('bad', 10, 1048577);
SELECT shared_reservoir_create('bad', 10000000, 1048576);
SELECT shared_reservoir_create('bad/name', 10);
SELECT shared_reservoir_create('rs', 10);
SELECT shared_reservoir_create('bad', NULL) IS NULL AS null_k;
SELECT count(*) AS bad_rows FROM shared_objects WHERE name = 'bad';
SELECT shared_reservoir_add('w', 'x', 0);
SELECT shared_reservoir_add('w', 'x', -1);
SELECT shared_reservoir_add('w', 'x', 'NaN');
SELECT shared_reservoir_add('w', 'x', 'Infinity');
SELECT shared_reservoir_add('w', 'x', '-Infinity');
SELECT shared_reservoir_add('w', 'x', 4.9e-324);
SELECT shared_reservoir_add('w', 'x');
SELECT shared_reservoir_add('rs', 'x', 1);
SELECT shared_reservoir_add_many('w', ARRAY['a', 'b'], ARRAY[1]);
SELECT shared_reservoir_add_many('w', ARRAY['a'], ARRAY[1, 2]);
SELECT shared_reservoir_add_many('w', ARRAY['a', 'b'], ARRAY[1, NULL]);
SELECT shared_reservoir_add_many('w', ARRAY['a', 'b'], ARRAY[1, 0]);
SELECT shared_reservoir_add_many('w', ARRAY['a'], ARRAY['NaN'::float8]);
SELECT shared_reservoir_add_many('w', ARRAY['a']);
SELECT shared_reservoir_add_many('rs', ARRAY['a'], ARRAY[1]);
SELECT shared_reservoir_seen('w') AS seen_unchanged;
SELECT shared_reservoir_add('nope', 1);
SELECT shared_reservoir_sample('nope');
SELECT shared_cbf_create('a_cbf', 100);
SELECT shared_reservoir_add('a_cbf', 1);
SELECT shared_reservoir_sample('a_cbf');
SELECT shared_cbf_add('rs', 1);
SELECT shared_reservoir_add(NULL, 1) IS NULL AS null_name, shared_reservoir_add('rs', NULL::int) IS NULL AS null_item,
       shared_reservoir_add('w', 'x', NULL) IS NULL AS null_weight;
SELECT pg_temp.sqlstate_of($$SELECT shared_reservoir_create('bad', 0)$$) AS bad_k,
       pg_temp.sqlstate_of($$SELECT shared_reservoir_create('bad', 10000000, 1048576)$$) AS too_large,
       pg_temp.sqlstate_of($$SELECT shared_reservoir_add('w', 'x', 0)$$) AS bad_weight,
       pg_temp.sqlstate_of($$SELECT shared_reservoir_add('w', 'x')$$) AS missing_weight,
       pg_temp.sqlstate_of($$SELECT shared_reservoir_add_many('w', ARRAY['a'], ARRAY[1, 2])$$) AS lengths,
       pg_temp.sqlstate_of($$SELECT shared_reservoir_add('a_cbf', 1)$$) AS wrong_kind,
       pg_temp.sqlstate_of($$SELECT shared_reservoir_add('nope', 1)$$) AS missing;

-- create and drop follow the transaction; adds do not
BEGIN;
SELECT shared_reservoir_create('tx', 3);
SELECT shared_reservoir_add('tx', 1);
ROLLBACK;
SELECT shared_reservoir_count('tx');
BEGIN;
SELECT shared_reservoir_add('rs2', 'added in a rolled back transaction') IS NOT NULL AS added;
SELECT shared_drop('rs2');
ROLLBACK;
SELECT shared_reservoir_seen('rs2') AS seen_kept_drop_undone;

-- a read-only transaction changes nothing (25006), as for nextval; reads work
BEGIN READ ONLY;
SELECT pg_temp.sqlstate_of($$SELECT shared_reservoir_add('rs2', 1)$$) AS add,
       pg_temp.sqlstate_of($$SELECT shared_reservoir_add_many('rs2', ARRAY[1])$$) AS add_many,
       pg_temp.sqlstate_of($$SELECT shared_reservoir_clear('rs2')$$) AS clear,
       pg_temp.sqlstate_of($$SELECT shared_reservoir_seed('rs2', 1)$$) AS seed,
       pg_temp.sqlstate_of($$SELECT shared_freeze('rs2')$$) AS freeze,
       shared_reservoir_seen('rs2') AS seen;
ROLLBACK;
SELECT shared_reservoir_seen('rs2') AS seen_unchanged, shared_reservoir_stats('rs2')->'frozen' AS frozen;

-- freeze: every change refused, reads take no lock
SELECT shared_freeze('rs2');
SELECT shared_reservoir_add('rs2', 1);
SELECT shared_reservoir_add_many('rs2', ARRAY[1]);
SELECT shared_reservoir_clear('rs2');
SELECT shared_reservoir_seed('rs2', 1);
SELECT pg_temp.sqlstate_of($$SELECT shared_reservoir_clear('rs2')$$) AS frozen_state;
SELECT (SELECT count(*) FROM shared_reservoir_sample('rs2')) AS items, shared_reservoir_seen('rs2') AS seen,
       shared_reservoir_stats('rs2')->'frozen' AS frozen;

-- privileges: read covers sample, seen, count and stats; write covers the rest
CREATE ROLE regress_sres_reader;
CREATE ROLE regress_sres_writer;
SET ROLE regress_sres_reader;
SELECT shared_reservoir_count('rs');
RESET ROLE;
SELECT shared_grant('rs', 'regress_sres_reader', 'read');
SELECT shared_grant('rs', 'regress_sres_writer', 'write');
SET ROLE regress_sres_reader;
SELECT shared_reservoir_count('rs') AS count, (SELECT count(*) FROM shared_reservoir_sample('rs')) AS items,
       shared_reservoir_stats('rs')->'k' AS k;
SELECT shared_reservoir_add('rs', 1);
SELECT shared_reservoir_clear('rs');
SELECT shared_reservoir_seed('rs', 1);
SELECT shared_drop('rs');
SET ROLE regress_sres_writer;
SELECT shared_reservoir_add('rs', 1001) IS NOT NULL AS added, shared_reservoir_add_many('rs', ARRAY[1002]) >= 0 AS added_many;
SELECT shared_reservoir_seed('rs', 3);
SELECT shared_reservoir_seen('rs') AS seen;
SELECT shared_freeze('rs');
SELECT shared_drop('rs');
RESET ROLE;

-- Items of many types stored through their output functions (here arrays,
-- whose output keeps a cache of its own): cycling through more types than
-- the backend keeps output functions for (8) costs no memory per switch.
SELECT shared_reservoir_create('types', 4);
CREATE FUNCTION pg_temp.kept_bytes() RETURNS bigint LANGUAGE sql AS $$
    SELECT sum(total_bytes) FROM pg_backend_memory_contexts
    WHERE name IN ('TopMemoryContext', 'sketchshare output function') $$;
CREATE TEMP TABLE kept_before AS SELECT pg_temp.kept_bytes() AS bytes;
DO $$
DECLARE
    types text[] := ARRAY['int2[]', 'int4[]', 'int8[]', 'float4[]', 'float8[]', 'numeric[]', 'text[]', 'oid[]',
                          'xid[]', 'cid[]'];
BEGIN
    FOR round IN 1..300 LOOP
        FOR i IN 1..array_length(types, 1) LOOP
            EXECUTE format('SELECT shared_reservoir_add(%L, %L::%s)', 'types', '{1}', types[i]);
        END LOOP;
    END LOOP;
END $$;
SELECT shared_reservoir_seen('types') AS seen, pg_temp.kept_bytes() - bytes < 65536 AS no_growth FROM kept_before;

SELECT shared_drop(name) FROM shared_objects WHERE name IN ('rs', 'rs2', 'items', 'many', 'w', 'uni', 'a_cbf', 'types') ORDER BY name;
DROP ROLE regress_sres_reader;
DROP ROLE regress_sres_writer;
