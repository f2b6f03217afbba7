-- Transactional adds to shared Bloom and counting filters, in one session:
-- aborts leave no trace, a transaction sees its own adds, savepoints, the
-- bound on key locks, the immediate form, PREPARE and freeze.
SELECT shared_cbf_create('seen', 100000, 1e-6);
SELECT shared_bloom_create('seen_bf', 100000, 1e-6);

-- an abort leaves no trace; a transaction sees its own adds
BEGIN;
SELECT shared_cbf_add('seen', 1) AS first, shared_cbf_add('seen', 1) AS again, shared_cbf_contains('seen', 1) AS own;
SELECT shared_bloom_add('seen_bf', 1) AS first, shared_bloom_add('seen_bf', 1) AS again,
       shared_bloom_contains('seen_bf', 1) AS own;
SELECT shared_cbf_contains_many('seen', ARRAY[1, 3]) AS cbf_own_many,
       shared_bloom_contains_many('seen_bf', ARRAY[1, 3]) AS bloom_own_many;
ROLLBACK;
SELECT shared_cbf_contains('seen', 1) AS cbf_after_rollback, shared_bloom_contains('seen_bf', 1) AS bloom_after_rollback;
-- committed adds are there; a cbf counts every add, a repeated one too
BEGIN;
SELECT shared_cbf_add('seen', 2), shared_cbf_add('seen', 2), shared_bloom_add('seen_bf', 2);
SELECT shared_cbf_count_of('seen', 2) AS committed_count;
COMMIT;
SELECT shared_cbf_count_of('seen', 2) AS count_of, shared_bloom_contains('seen_bf', 2) AS bloom_in,
       shared_cbf_add('seen', 2) AS cbf_again, shared_bloom_add('seen_bf', 2) AS bloom_again;

-- README's dedup pattern: a load that fails on a constraint, then a retry
CREATE TABLE target (k int CHECK (k <= 900));
INSERT INTO target SELECT g FROM generate_series(1, 1000) g WHERE shared_cbf_add('seen', g + 10);
ALTER TABLE target DROP CONSTRAINT target_k_check;
INSERT INTO target SELECT g FROM generate_series(1, 1000) g WHERE shared_cbf_add('seen', g + 10);
-- a load's repeated keys keep one row
INSERT INTO target SELECT 2000 + g % 100 FROM generate_series(1, 1000) g WHERE shared_cbf_add('seen', 2000 + g % 100);
SELECT count(*) AS rows, count(DISTINCT k) AS keys FROM target;
-- the same through a Bloom filter, with savepoints
TRUNCATE target;
BEGIN;
INSERT INTO target SELECT g FROM generate_series(1, 100) g WHERE shared_bloom_add('seen_bf', g + 10);
SAVEPOINT a;
INSERT INTO target SELECT g FROM generate_series(101, 200) g WHERE shared_bloom_add('seen_bf', g + 10);
ROLLBACK TO a;
SELECT shared_bloom_contains('seen_bf', 150 + 10) AS rolled_back_own, shared_bloom_contains('seen_bf', 50 + 10) AS kept_own;
SAVEPOINT b;
SAVEPOINT c;
INSERT INTO target SELECT g FROM generate_series(101, 200) g WHERE shared_bloom_add('seen_bf', g + 10);
RELEASE c;
INSERT INTO target SELECT g FROM generate_series(1, 300) g WHERE shared_bloom_add('seen_bf', g + 10);
RELEASE b;
COMMIT;
SELECT count(*) AS rows, count(DISTINCT k) AS keys, min(k), max(k) FROM target;
SELECT count(*) FILTER (WHERE shared_bloom_contains('seen_bf', g + 10)) AS committed FROM generate_series(1, 300) g;

-- beyond 64 key locks the transaction overflows: still correct, and the
-- lock table holds at most 64 keys of it (and no object lock: an adder
-- enters by its slot in the object's header)
BEGIN;
SELECT count(*) FILTER (WHERE shared_cbf_add('seen', g)) AS new FROM generate_series(100001, 110000) g;
SELECT count(*) FILTER (WHERE shared_cbf_add('seen', g)) AS new_again FROM generate_series(100001, 110000) g;
SELECT count(*) FILTER (WHERE objsubid = 21320) AS key_locks,
       string_agg(mode, ',') FILTER (WHERE objsubid = 21327) AS object_lock,
       string_agg(mode, ',') FILTER (WHERE objsubid = 21334) AS overflow_lock
FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid();
SAVEPOINT s;
SELECT count(*) FILTER (WHERE shared_cbf_add('seen', g)) AS new_in_savepoint FROM generate_series(110001, 120000) g;
ROLLBACK TO s;
SELECT shared_cbf_contains('seen', 115000) AS rolled_back, shared_cbf_contains('seen', 105000) AS own;
COMMIT;
SELECT count(*) FILTER (WHERE shared_cbf_contains('seen', g)) AS committed FROM generate_series(100001, 110000) g;
SELECT count(*) FILTER (WHERE shared_cbf_contains('seen', g)) AS rolled_back FROM generate_series(110001, 120000) g;
SELECT count(*) AS locks_left FROM pg_locks WHERE locktype = 'advisory' AND objsubid IN (21320, 21327, 21334);

-- add_many takes part too
BEGIN;
SELECT shared_cbf_add_many('seen', ARRAY[7, 8, 8, NULL]) AS cbf_new, shared_bloom_add_many('seen_bf', ARRAY[7, 8, 8]) AS bloom_new;
ROLLBACK;
SELECT shared_cbf_contains('seen', 7) AS cbf_7, shared_bloom_contains('seen_bf', 8) AS bloom_8;

-- the immediate form: in the filter at once, kept whatever the transaction does
BEGIN;
SELECT shared_cbf_add('seen', 9, transactional => false) AS cbf_new, shared_bloom_add('seen_bf', 9, false) AS bloom_new,
       shared_cbf_add_many('seen', ARRAY[10, 11], transactional => false) AS cbf_many,
       shared_bloom_add_many('seen_bf', ARRAY[10, 11], transactional => false) AS bloom_many;
ROLLBACK;
SELECT shared_cbf_contains('seen', 9) AS cbf_9, shared_bloom_contains('seen_bf', 11) AS bloom_11,
       shared_cbf_add('seen', 900012, true) AS explicit_transactional;
-- a NULL choice, like a NULL item, adds nothing
SELECT shared_cbf_add('seen', 900013, NULL) AS null_choice, shared_cbf_contains('seen', 900013) AS added;

-- a transaction that prepares may not have pending adds
BEGIN;
SELECT shared_cbf_add('seen', 900014);
PREPARE TRANSACTION 'adds';
SELECT shared_cbf_contains('seen', 900014) AS after_refused_prepare;
-- freeze waits for other transactions' adds, and refuses this one's
SELECT shared_cbf_create('tofreeze', 100, 0.01);
BEGIN;
SELECT shared_cbf_add('tofreeze', 1);
SELECT shared_freeze('tofreeze');
ROLLBACK;
-- a sync refuses them too (its image, which a dump carries, would lack
-- them); an immediate add needs no commit, so a sync after one is taken
BEGIN;
SELECT shared_cbf_add('tofreeze', 2);
SELECT shared_sync('tofreeze');
ROLLBACK;
BEGIN;
SELECT shared_cbf_add('tofreeze', 3, false);
SELECT shared_sync('tofreeze');
COMMIT;
SELECT shared_cbf_contains('tofreeze', 2) AS rolled_back, shared_cbf_contains('tofreeze', 3) AS immediate;
SELECT shared_freeze('tofreeze');
SELECT shared_cbf_add('tofreeze', 1);
-- a drop in the transaction that added: the adds go first, then the object
SELECT shared_cbf_create('todrop', 100, 0.01);
BEGIN;
SELECT shared_cbf_add('todrop', 1);
SELECT shared_drop('todrop');
COMMIT;
SELECT count(*) AS left FROM shared_objects WHERE name = 'todrop';
-- a remove of an item the transaction added (and did not commit) is refused:
-- the add would reach the object at the commit all the same
BEGIN;
SELECT shared_cbf_add('seen', 900015) AS pending, shared_cbf_contains('seen', 900015) AS sees_it;
SELECT shared_cbf_remove('seen', 900015);
ROLLBACK;
BEGIN;
SELECT shared_cbf_add('seen', 900016);
SAVEPOINT s;
SELECT shared_cbf_remove('seen', 900016);
ROLLBACK TO s;
COMMIT;
SELECT shared_cbf_count_of('seen', 900016) AS committed_once;
-- committed, it can be removed
SELECT shared_cbf_remove('seen', 900016) AS removed, shared_cbf_contains('seen', 900016) AS still_there;
-- the adds write shared objects: never in a parallel worker
SELECT proname, pronargs, proparallel, provolatile FROM pg_proc
WHERE proname IN ('shared_cbf_add', 'shared_bloom_add', 'shared_cbf_add_many', 'shared_bloom_add_many')
ORDER BY proname, pronargs;

DROP TABLE target;
SELECT shared_drop('seen'), shared_drop('seen_bf'), shared_drop('tofreeze');
