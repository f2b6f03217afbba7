-- Shared counting Bloom filters: the SQL surface, transactions and every error.
-- (Privileges are in shared_privileges.sql.)
\i sql/include/sqlstate_of.sql

-- create, add, contains, count_of
SELECT shared_cbf_create('seen', 1000);
SELECT shared_cbf_add('seen', 42) AS first_add, shared_cbf_add('seen', 42) AS second_add;
-- items hash as sketch_hash does: every integer width agrees, text is bytes
SELECT shared_cbf_contains('seen', 42::bigint) AS as_bigint, shared_cbf_contains('seen', 42::int2) AS as_int2,
       shared_cbf_contains('seen', 43) AS other;
-- the first add recorded the class of the items (integers): others are refused
SELECT shared_cbf_contains('seen', '42');
-- a parameter without a type (what drivers send) is text: the hint names the cast
PREPARE untyped AS SELECT shared_cbf_add('seen', $1);
EXECUTE untyped('42');
PREPARE typed AS SELECT shared_cbf_contains('seen', $1::bigint);
EXECUTE typed('42');
DEALLOCATE untyped;
DEALLOCATE typed;
SELECT shared_cbf_add('seen', '2026-11-30'::date);
SELECT shared_cbf_add('seen', 1001) AS other_add, shared_cbf_contains('seen', 1001::int8) AS as_int8,
       shared_cbf_contains('seen', 1002) AS other;
SELECT shared_cbf_count_of('seen', 42) AS c42, shared_cbf_count_of('seen', 1001) AS c1001,
       shared_cbf_count_of('seen', 7) AS c7;
SELECT shared_cbf_add('seen', 1005), shared_cbf_contains('seen', 1005);
-- text items of every text type agree
SELECT shared_cbf_create('words', 100);
SELECT shared_cbf_add('words', 'abc') AS literal_add, shared_cbf_contains('words', 'abc'::text) AS as_text,
       shared_cbf_contains('words', 'abc'::varchar) AS as_varchar, shared_cbf_contains('words', 'abd') AS other;
SELECT shared_drop('words');
-- items are anycompatible: untyped literals are text, a char(n) item (or a domain over
-- one) hashes as its text cast, as sketch_hash does, and "char" works
CREATE DOMAIN pg_temp.code6 AS char(6);
SELECT shared_cbf_create('chars', 100);
SELECT shared_cbf_add('chars', 'pad  '::char(5)) AS char_add, shared_cbf_contains('chars', 'pad'::text) AS as_text,
       shared_cbf_contains('chars', 'pad  '::text) AS padded_text, shared_cbf_contains('chars', 'pad'::pg_temp.code6) AS as_domain,
       shared_cbf_contains('chars', 'pad'::name) AS as_name, sketch_hash('pad  '::char(5)) = sketch_hash('pad') AS sketch_hash_too;
SELECT shared_cbf_add('chars', 'q'::"char") AS char1_add, shared_cbf_contains('chars', 'q'::text) AS as_text,
       shared_cbf_count_of('chars', 'q'::"char") AS n;
SELECT pg_typeof(c), shared_cbf_contains('chars', c) AS column_of_char9 FROM (VALUES ('pad'::char(9))) v(c);
-- the same rule for the elements of an array given to add_many
SELECT shared_cbf_add_many('chars', ARRAY['many '::char(5), 'more'::char(5)]) AS char_array_new,
       shared_cbf_contains('chars', 'many'::char(7)) AS many_in, shared_cbf_contains('chars', 'more') AS more_in,
       shared_cbf_add('chars', 'many'::text) AS many_again_is_new;
SELECT shared_drop('chars');
-- add_many: one call, NULLs skipped, returns the probably-new count
SELECT shared_cbf_add_many('seen', ARRAY[1, 2, 3, 42, NULL]) AS new_of_5;
SELECT shared_cbf_add_many('seen', ARRAY[]::int[]) AS none;
SELECT shared_cbf_add_many('seen', ARRAY[2001, 2002, 2001]) AS text_items;
SELECT shared_cbf_contains('seen', 1) AND shared_cbf_contains('seen', 3) AND shared_cbf_contains('seen', 2002) AS all_in;
SELECT shared_cbf_count('seen') AS count;
-- remove: only what is present (42 was added 3 times so far, once more now)
SELECT shared_cbf_add('seen', 42);
SELECT shared_cbf_count_of('seen', 42) AS four;
SELECT shared_cbf_remove('seen', 42) AS removed, shared_cbf_count_of('seen', 42) AS three;
SELECT shared_cbf_add('seen', 3001);
SELECT shared_cbf_remove('seen', 3001) AS removed, shared_cbf_contains('seen', 3001) AS still_in;
SELECT shared_cbf_remove('seen', 3002) AS removed;
-- stats: ops counts every write-path call (add, add_many, remove, merge, clear)
SELECT s->'ops' AS ops, s->'capacity' AS capacity, s->'fp_rate' AS fp_rate, s->'counters' AS counters,
       s->'hashes' AS hashes, s->'count' AS count, s->'frozen' AS frozen, s->'readonly' AS readonly,
       s->'bytes' AS bytes, s->'mmap_size' AS mmap_size, (s->>'counters_set')::int > 0 AS some_set,
       (s->>'fill_ratio')::float8 BETWEEN 0 AND 1 AS fill_ok, s->'saturated' AS saturated
FROM shared_cbf_stats('seen') s;
SELECT name, kind, owner, bytes, frozen, readonly, capacity, fpr, layout, m, k, ops, status FROM shared_objects;

-- snapshots are cbf values, hashed alike
SELECT cbf_contains(shared_cbf_snapshot('seen'), 1001) AS snap_has_abc,
       cbf_contains(shared_cbf_snapshot('seen'), 1002) AS snap_has_abd,
       cbf_count(shared_cbf_snapshot('seen')) = shared_cbf_count('seen') AS same_count,
       cbf_stats(shared_cbf_snapshot('seen'))->'counters' AS counters;
-- a value seeds a shared object, and merges into one
SELECT shared_create_from('copy', shared_cbf_snapshot('seen'));
SELECT shared_cbf_snapshot('copy') = shared_cbf_snapshot('seen') AS identical;
-- (a scaling object's first sub-filter is sized for half the fpr: 0.005)
SELECT shared_cbf_merge('copy', cbf_add(cbf_add(cbf_empty(1000, 0.005), 3003), 3003));
SELECT shared_cbf_merge('copy', cbf_empty(1000));
SELECT shared_cbf_count_of('copy', 3003) AS merged, shared_cbf_contains('seen', 3003) AS not_in_source;
SELECT shared_cbf_merge('copy', cbf_empty(10));
SELECT shared_cbf_merge('copy', cbf_empty(1000, 0.001));
SELECT shared_cbf_clear('copy');
SELECT shared_cbf_count('copy') AS after_clear, shared_cbf_contains('copy', 1001) AS abc_after_clear;

-- create, drop and adds follow the transaction (shared_transactional has the adds' cases)
BEGIN;
SELECT shared_cbf_create('tx', 10);
SELECT shared_cbf_add('tx', 1);
SELECT name FROM shared_objects WHERE name = 'tx';
ROLLBACK;
SELECT shared_cbf_contains('tx', 1);
SELECT count(*) AS tx_rows FROM shared_objects WHERE name = 'tx';
BEGIN;
SELECT shared_drop('copy');
SELECT shared_cbf_count('copy');
ROLLBACK;
SELECT shared_cbf_count('copy') AS copy_survives_rolled_back_drop, name FROM shared_objects WHERE name = 'copy';
BEGIN;
SELECT shared_cbf_add('seen', 4001);
SELECT shared_cbf_add('seen', 4002, transactional => false) AS immediate;
ROLLBACK;
SELECT shared_cbf_contains('seen', 4001) AS add_kept,
       shared_cbf_contains('seen', 4002) AS immediate_kept;
-- savepoints
BEGIN;
SAVEPOINT a;
SELECT shared_cbf_create('sp', 10);
ROLLBACK TO a;
SELECT shared_cbf_create('sp', 20);
SAVEPOINT b;
SELECT shared_cbf_add('sp', 1);
RELEASE b;
COMMIT;
SELECT shared_cbf_contains('sp', 1) AS sp_in, capacity FROM shared_objects WHERE name = 'sp';
-- a name dropped in a transaction is not created again before the drop
-- commits (the dropped file keeps the name until then): a rollback, of the
-- whole transaction or of a savepoint, gives the object back intact
BEGIN;
SELECT shared_drop('sp');
SELECT shared_cbf_create('sp', 30);
ROLLBACK;
BEGIN;
SELECT shared_drop('sp');
SAVEPOINT c;
SELECT pg_temp.sqlstate_of($$SELECT shared_bloom_create('sp', 30, 0.01)$$) AS other_kind_refused;
SELECT pg_temp.sqlstate_of($$SELECT shared_create_from('sp', cbf_empty(30))$$) AS from_value_refused;
ROLLBACK TO c;
RELEASE c;
ROLLBACK;
SELECT shared_cbf_contains('sp', 1) AS sp_kept, capacity, status FROM shared_objects WHERE name = 'sp';
-- drop, commit, then the name is free again
SELECT shared_drop('sp');
SELECT shared_cbf_create('sp', 30);
SELECT shared_cbf_contains('sp', 1) AS fresh;
SELECT capacity FROM shared_objects WHERE name = 'sp';
SELECT shared_drop('sp');
SELECT shared_cbf_contains('sp', 1);
SELECT shared_drop('sp');
SELECT shared_drop('sp', if_exists => true) AS dropped;
-- create then drop in one transaction leaves nothing
BEGIN;
SELECT shared_cbf_create('brief', 10);
SELECT shared_drop('brief');
COMMIT;
SELECT count(*) AS brief_rows FROM shared_objects WHERE name = 'brief';
-- a two-phase commit cannot carry file changes
BEGIN;
SELECT shared_cbf_create('prepared', 10);
PREPARE TRANSACTION 'sketchshare_shared';
SELECT count(*) AS prepared_rows FROM shared_objects WHERE name = 'prepared';

-- bad names are refused before any file is touched
SELECT shared_cbf_create('../etc/passwd', 10);
SELECT shared_cbf_create('a/b', 10);
SELECT shared_cbf_create('.hidden', 10);
SELECT shared_cbf_create('', 10);
SELECT shared_cbf_create(repeat('a', 64), 10);
-- a longer name is shown cut to 64 characters (it may be megabytes long)
SELECT shared_cbf_create(repeat('b', 100000), 10);
SELECT shared_cbf_create('with space', 10);
SELECT shared_cbf_add('../seen', 1);
SELECT shared_drop('..');
SELECT shared_cbf_create(repeat('a', 63), 10);
SELECT shared_drop(repeat('a', 63));
-- bad geometry
SELECT shared_cbf_create('bad', 0);
SELECT shared_cbf_create('bad', -5);
SELECT shared_cbf_create('bad', 10, 0);
SELECT shared_cbf_create('bad', 10, 1);
SELECT shared_cbf_create('bad', 10, 'NaN');
SELECT shared_cbf_create('bad', 9223372036854775807);
SELECT count(*) AS bad_rows FROM shared_objects WHERE name = 'bad';
-- duplicates, missing objects, NULLs
SELECT shared_cbf_create('seen', 10);
SELECT shared_create_from('seen', cbf_empty(10));
SELECT shared_cbf_add('nope', 1);
SELECT shared_cbf_stats('nope');
SELECT shared_freeze('nope');
SELECT shared_sync('nope');
SELECT shared_cbf_add(NULL, 1) IS NULL AS null_name, shared_cbf_add('seen', NULL::int) IS NULL AS null_item;
SELECT shared_cbf_create('bad', NULL) IS NULL AS null_capacity;
-- SQLSTATEs
SELECT pg_temp.sqlstate_of($$SELECT shared_cbf_create('a/b', 10)$$) AS bad_name,
       pg_temp.sqlstate_of($$SELECT shared_cbf_create('bad', 0)$$) AS bad_capacity,
       pg_temp.sqlstate_of($$SELECT shared_cbf_create('seen', 10)$$) AS duplicate,
       pg_temp.sqlstate_of($$SELECT shared_cbf_add('nope', 1)$$) AS missing,
       pg_temp.sqlstate_of($$SELECT shared_cbf_merge('copy', cbf_empty(10))$$) AS mismatch;

-- a read-only transaction (every one on a hot standby) changes nothing, as for nextval (25006):
-- reads work, and the object is untouched
SELECT shared_cbf_stats('seen')->'ops' AS ops_before, shared_cbf_count_of('seen', 1001) AS abc_before;
BEGIN READ ONLY;
SELECT shared_cbf_contains('seen', 1001) AS reads_work, shared_cbf_count('seen') > 0 AS counted,
       shared_cbf_snapshot('seen') IS NOT NULL AS snapshot;
SELECT shared_cbf_add('seen', 1001);
ROLLBACK;
BEGIN READ ONLY;
SELECT pg_temp.sqlstate_of($$SELECT shared_cbf_add('seen', 1001)$$) AS add,
       pg_temp.sqlstate_of($$SELECT shared_cbf_add_many('seen', ARRAY[1001])$$) AS add_many,
       pg_temp.sqlstate_of($$SELECT shared_cbf_remove('seen', 1001)$$) AS remove,
       pg_temp.sqlstate_of($$SELECT shared_cbf_clear('seen')$$) AS clear,
       pg_temp.sqlstate_of($$SELECT shared_cbf_merge('seen', shared_cbf_snapshot('seen'))$$) AS merge,
       pg_temp.sqlstate_of($$SELECT shared_freeze('seen')$$) AS freeze,
       pg_temp.sqlstate_of($$SELECT shared_cbf_create('ro', 10)$$) AS create_,
       pg_temp.sqlstate_of($$SELECT shared_drop('seen')$$) AS drop_;
ROLLBACK;
SELECT shared_cbf_stats('seen')->'ops' AS ops_after, shared_cbf_count_of('seen', 1001) AS abc_after,
       (SELECT frozen FROM shared_objects WHERE name = 'seen') AS frozen,
       (SELECT count(*) FROM shared_objects WHERE name = 'ro') AS ro_rows;

-- freeze: every mutator refused, reads need no lock
SELECT shared_freeze('seen');
SELECT shared_freeze('seen');
SELECT shared_cbf_add('seen', 5);
SELECT shared_cbf_add_many('seen', ARRAY[5]);
SELECT shared_cbf_remove('seen', 1001);
SELECT shared_cbf_clear('seen');
SELECT shared_cbf_merge('seen', shared_cbf_snapshot('seen'));
SELECT pg_temp.sqlstate_of($$SELECT shared_cbf_add('seen', 5)$$) AS frozen_state;
SELECT shared_cbf_contains('seen', 1001) AS abc, shared_cbf_count_of('seen', 1001) AS n,
       shared_cbf_count('seen') > 0 AS counted, shared_cbf_snapshot('seen') IS NOT NULL AS snapshot,
       shared_cbf_stats('seen')->'frozen' AS frozen, shared_cbf_stats('seen')->'readonly' AS readonly;
SELECT shared_sync('seen');
SELECT name, frozen FROM shared_objects ORDER BY name;
-- export and attach need absolute paths, a frozen object and file privileges
SELECT shared_export('seen', 'relative/path');
SELECT shared_export('copy', '/tmp/never-written');
SELECT shared_attach('elsewhere', '/nonexistent/sketchshare/file');
SELECT shared_attach('elsewhere', 'relative');
SELECT shared_attach('../x', '/tmp/x');

-- sketchshare.max_shared_object_size bounds the file of each new object (kB;
-- 1GB by default, -1 is no limit; superusers only). Every path that makes a
-- file is refused with 54000 before the catalog row or the file exists.
CREATE FUNCTION pg_temp.object_file(name text) RETURNS text LANGUAGE sql AS $$
    SELECT current_setting('data_directory') || '/sketchshare/' || oid || '/' || name
    FROM pg_database WHERE datname = current_database() $$;
CREATE FUNCTION pg_temp.files_named(name text) RETURNS bigint LANGUAGE sql AS $$
    SELECT count(*) FROM pg_ls_dir('sketchshare/' || (SELECT oid FROM pg_database WHERE datname = current_database()),
                                   true, false) f WHERE f = name $$;
SHOW sketchshare.max_shared_object_size;
SELECT shared_cbf_create('cap_src', 100000);  -- made before any limit; frozen, so that it can be attached
SELECT shared_freeze('cap_src');
SELECT bytes FROM shared_objects WHERE name = 'cap_src';
SET sketchshare.max_shared_object_size = '64kB';
SHOW sketchshare.max_shared_object_size;
SELECT shared_cbf_create('cap_big', 100000);
SELECT shared_bloom_create('cap_big', 100000, 0.01);
SELECT shared_create_from('cap_big', cbf_empty(100000));
SELECT shared_create_from('cap_big', bloom_empty(100000, 0.01));
SELECT shared_reservoir_create('cap_big', 1000);
-- attach copies a frozen file (here the frozen object's own file)
SELECT shared_attach('cap_big', pg_temp.object_file('cap_src'));
SELECT pg_temp.sqlstate_of($$SELECT shared_cbf_create('cap_big', 100000)$$) AS cbf,
       pg_temp.sqlstate_of($$SELECT shared_bloom_create('cap_big', 100000, 0.01)$$) AS bloom,
       pg_temp.sqlstate_of($$SELECT shared_create_from('cap_big', cbf_empty(100000))$$) AS from_cbf,
       pg_temp.sqlstate_of($$SELECT shared_create_from('cap_big', bloom_empty(100000, 0.01))$$) AS from_bloom,
       pg_temp.sqlstate_of($$SELECT shared_reservoir_create('cap_big', 1000)$$) AS reservoir,
       pg_temp.sqlstate_of($$SELECT shared_attach('cap_big', pg_temp.object_file('cap_src'))$$) AS attach;
SELECT count(*) AS cap_big_rows, pg_temp.files_named('cap_big') AS cap_big_files
FROM shared_objects WHERE name = 'cap_big';
-- below the limit every path works
SELECT shared_cbf_create('cap_ok_cbf', 1000), shared_bloom_create('cap_ok_bloom', 1000, 0.01),
       shared_create_from('cap_ok_from_cbf', cbf_empty(1000)),
       shared_create_from('cap_ok_from_bloom', bloom_empty(1000, 0.01)),
       shared_reservoir_create('cap_ok_reservoir', 10, 64),
       shared_attach('cap_ok_attached', pg_temp.object_file('seen'));
SELECT name, kind, bytes, readonly, pg_temp.files_named(name) AS files
FROM shared_objects WHERE name LIKE 'cap_ok%' ORDER BY name;
-- the whole file counts, header included: a 1000-item cbf's file is 20 kB
SET sketchshare.max_shared_object_size = 20;
SELECT shared_cbf_create('cap_edge', 1000);
SET sketchshare.max_shared_object_size = 19;
SELECT shared_cbf_create('cap_edge_over', 1000);
-- 0 refuses every new object
SET sketchshare.max_shared_object_size = 0;
SELECT shared_reservoir_create('cap_zero', 1, 1);
-- in a transaction: the refusal leaves nothing and the transaction goes on after a savepoint
SET sketchshare.max_shared_object_size = '64kB';
BEGIN;
SAVEPOINT s;
SELECT shared_cbf_create('cap_tx', 100000);
ROLLBACK TO s;
SELECT shared_cbf_create('cap_tx', 1000);
COMMIT;
SELECT name, bytes FROM shared_objects WHERE name LIKE 'cap_tx%';
-- other roles can neither set it nor escape it
-- values it cannot take: below -1, not a size, beyond INT_MAX kB (22023)
SELECT pg_temp.sqlstate_of($$SET sketchshare.max_shared_object_size = -2$$) AS below_minus_1,
       pg_temp.sqlstate_of($$SET sketchshare.max_shared_object_size = 'lots'$$) AS not_a_size,
       pg_temp.sqlstate_of($$SET sketchshare.max_shared_object_size = '4TB'$$) AS too_large;
SHOW sketchshare.max_shared_object_size;
CREATE ROLE regress_cap_user;
GRANT EXECUTE ON FUNCTION shared_cbf_create(text, bigint, float8, text, int) TO regress_cap_user;
SET ROLE regress_cap_user;
SET sketchshare.max_shared_object_size = -1;
SELECT pg_temp.sqlstate_of($$SET sketchshare.max_shared_object_size = -1$$) AS set_denied,
       pg_temp.sqlstate_of($$SET LOCAL sketchshare.max_shared_object_size = '1GB'$$) AS set_local_denied,
       pg_temp.sqlstate_of($$RESET sketchshare.max_shared_object_size$$) AS reset_denied,
       pg_temp.sqlstate_of($$SELECT set_config('sketchshare.max_shared_object_size', '-1', false)$$) AS set_config_denied,
       pg_temp.sqlstate_of($$SELECT shared_cbf_create('cap_user', 100000)$$) AS create_over;
SHOW sketchshare.max_shared_object_size;
RESET ROLE;
REVOKE EXECUTE ON FUNCTION shared_cbf_create(text, bigint, float8, text, int) FROM regress_cap_user;
DROP ROLE regress_cap_user;
-- RESET: the default limit again
RESET sketchshare.max_shared_object_size;
SHOW sketchshare.max_shared_object_size;
SELECT shared_cbf_create('cap_big', 100000);
SELECT name, bytes FROM shared_objects WHERE name = 'cap_big';

-- The event trigger's function runs only as an event trigger (errors), and
-- both carry a comment
SELECT sketchshare_shared.load_library();
SELECT evtevent, evttags, evtenabled FROM pg_event_trigger WHERE evtname = 'sketchshare_load_before_drop';
SELECT obj_description('sketchshare_shared.load_library()'::regprocedure, 'pg_proc') IS NOT NULL AS function_comment,
       obj_description(oid, 'pg_event_trigger') IS NOT NULL AS trigger_comment
FROM pg_event_trigger WHERE evtname = 'sketchshare_load_before_drop';

-- Lookups are parallel safe: each worker of a parallel scan opens the object
-- itself, and the answers are those of a serial scan (adds are not: they
-- run in the leader, where a read-only transaction is seen)
CREATE TABLE par_items AS SELECT g AS x FROM generate_series(1, 20000) g;
ANALYZE par_items;
SELECT shared_cbf_create('par', 20000), shared_bloom_create('par_b', 20000, 0.01);
SELECT shared_cbf_add_many('par', array_agg(x)), shared_bloom_add_many('par_b', array_agg(x)) FROM par_items WHERE x % 2 = 0;
SET max_parallel_workers_per_gather = 0;
SELECT count(*) FILTER (WHERE shared_cbf_contains('par', x)) AS cbf_in, sum(shared_cbf_count_of('par', x)) AS counts,
       count(*) FILTER (WHERE shared_bloom_contains('par_b', x)) AS bloom_in FROM par_items \gset serial_
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF)
SELECT count(*) FILTER (WHERE shared_cbf_contains('par', x)) AS cbf_in, sum(shared_cbf_count_of('par', x)) AS counts,
       count(*) FILTER (WHERE shared_bloom_contains('par_b', x)) AS bloom_in FROM par_items;
SELECT count(*) FILTER (WHERE shared_cbf_contains('par', x)) = :serial_cbf_in AS cbf_same,
       sum(shared_cbf_count_of('par', x)) = :serial_counts AS counts_same,
       count(*) FILTER (WHERE shared_bloom_contains('par_b', x)) = :serial_bloom_in AS bloom_same,
       count(*) FILTER (WHERE x % 2 = 0 AND shared_cbf_contains('par', x) AND shared_bloom_contains('par_b', x)) AS members_found
FROM par_items;
EXPLAIN (COSTS OFF) SELECT count(*) FROM par_items WHERE shared_cbf_add('par', x);
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
SELECT shared_drop('par'), shared_drop('par_b');
DROP TABLE par_items;

-- Names that do not exist leave nothing behind in the backend's cache of
-- objects: 3000 lookups of distinct missing names grow it by no entry each.
-- (In this backend: no parallel worker runs the lookups.)
SET max_parallel_workers_per_gather = 0;
CREATE FUNCTION pg_temp.cache_bytes() RETURNS bigint LANGUAGE sql AS $$
    SELECT coalesce(sum(total_bytes), 0) FROM pg_backend_memory_contexts WHERE name = 'sketchshare shared objects' $$;
CREATE TEMP TABLE cache_before AS SELECT pg_temp.cache_bytes() AS bytes;
DO $$
BEGIN
    FOR i IN 1..3000 LOOP
        BEGIN
            PERFORM shared_cbf_contains('missing_' || i, 1);
        EXCEPTION WHEN undefined_object THEN
            NULL;
        END;
    END LOOP;
END $$;
SELECT pg_temp.cache_bytes() > 0 AS cache_found, pg_temp.cache_bytes() - bytes < 65536 AS no_growth FROM cache_before;
RESET max_parallel_workers_per_gather;

-- a shared counting filter with every counter set counts as the value does:
-- far past its capacity, not at it (shared_cbf_count, shared_cbf_stats)
SELECT shared_create_from('full_cbf', cbf_agg(i, 100)) FROM generate_series(1, 5000) i;
SELECT shared_cbf_count('full_cbf') > 1000 AS count_far_past,
       (shared_cbf_stats('full_cbf')->>'count')::bigint = shared_cbf_count('full_cbf') AS stats_agree,
       shared_cbf_count('full_cbf') = (SELECT cbf_count(cbf_agg(i, 100)) FROM generate_series(1, 5000) i) AS as_the_value;

SELECT shared_drop(name) FROM shared_objects ORDER BY name;
SELECT count(*) AS left_over FROM shared_objects;
