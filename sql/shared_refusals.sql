-- Refusals of shared object calls, in the user's terms.
\i sql/include/sqlstate_of.sql

-- A missing object is an error whatever the item: a NULL item (value, array,
-- weight, seed) gives NULL only once the object is found and may be used.
SELECT shared_cbf_add('nosuch', NULL);
SELECT shared_cbf_add_many('nosuch', NULL::int[]);
SELECT shared_cbf_contains('nosuch', NULL);
SELECT shared_cbf_count_of('nosuch', NULL);
SELECT shared_cbf_remove('nosuch', NULL);
SELECT shared_cbf_merge('nosuch', NULL);
SELECT shared_bloom_add('nosuch', NULL);
SELECT shared_bloom_add_many('nosuch', NULL::int[]);
SELECT shared_bloom_contains('nosuch', NULL);
SELECT shared_bloom_merge('nosuch', NULL);
SELECT shared_reservoir_add('nosuch', NULL);
SELECT shared_reservoir_add('nosuch', 'x', NULL);
SELECT shared_reservoir_add_many('nosuch', NULL::text[]);
SELECT shared_reservoir_add_many('nosuch', ARRAY['x'], NULL);
SELECT shared_reservoir_seed('nosuch', NULL);
-- of another kind, or a bad name: the same errors as with an item
SELECT shared_cbf_create('rf_cbf', 100), shared_bloom_create('rf_bloom', 100, 0.01),
       shared_reservoir_create('rf_res', 10), shared_reservoir_create('rf_wres', 10, weighted => true);
SELECT shared_bloom_add('rf_cbf', NULL);
SELECT shared_cbf_contains('bad/name', NULL);
-- a NULL name is NULL, as before
SELECT shared_cbf_add(NULL, 1) IS NULL AS cbf, shared_bloom_contains(NULL, NULL::int) IS NULL AS bloom,
       shared_reservoir_add(NULL, 1) IS NULL AS reservoir;
-- an object that exists: NULL, and nothing changed
SELECT shared_cbf_add('rf_cbf', NULL) IS NULL AS add, shared_cbf_add_many('rf_cbf', NULL::int[]) IS NULL AS add_many,
       shared_cbf_contains('rf_cbf', NULL) IS NULL AS contains, shared_cbf_count_of('rf_cbf', NULL) IS NULL AS count_of,
       shared_cbf_remove('rf_cbf', NULL) IS NULL AS remove, shared_cbf_merge('rf_cbf', NULL) IS NULL AS merge;
SELECT shared_bloom_add('rf_bloom', NULL) IS NULL AS add, shared_bloom_add_many('rf_bloom', NULL::int[]) IS NULL AS add_many,
       shared_bloom_contains('rf_bloom', NULL) IS NULL AS contains, shared_bloom_merge('rf_bloom', NULL) IS NULL AS merge;
SELECT shared_reservoir_add('rf_res', NULL) IS NULL AS add, shared_reservoir_add('rf_wres', 'x', NULL) IS NULL AS add_weighted,
       shared_reservoir_add_many('rf_res', NULL::text[]) IS NULL AS add_many,
       shared_reservoir_add_many('rf_wres', ARRAY['x'], NULL) IS NULL AS add_many_weighted,
       shared_reservoir_seed('rf_res', NULL) IS NULL AS seed;
SELECT shared_cbf_stats('rf_cbf')->'ops' AS cbf_ops, shared_bloom_stats('rf_bloom')->'ops' AS bloom_ops,
       shared_reservoir_seen('rf_res') AS res_seen, shared_reservoir_seen('rf_wres') AS wres_seen;
-- a NULL item still needs the privilege the call needs
CREATE ROLE regress_rf_nobody;
SET ROLE regress_rf_nobody;
SELECT shared_cbf_add('rf_cbf', NULL);
SELECT shared_reservoir_add('rf_wres', 'x', NULL);
RESET ROLE;

-- Read-only transactions: every change is refused, saying what was refused
BEGIN READ ONLY;
SELECT shared_cbf_create('rf_new', 100);
ROLLBACK;
BEGIN READ ONLY;
SELECT shared_create_from('rf_new', cbf_empty(100));
ROLLBACK;
BEGIN READ ONLY;
SELECT shared_reservoir_create('rf_new', 10);
ROLLBACK;
BEGIN READ ONLY;
SELECT shared_attach('rf_new', '/nonexistent/file');
ROLLBACK;
BEGIN READ ONLY;
SELECT shared_drop('rf_cbf');
ROLLBACK;
BEGIN READ ONLY;
SELECT shared_drop('nosuch', true);
ROLLBACK;
BEGIN READ ONLY;
SELECT shared_grant('rf_cbf', 'regress_rf_nobody', 'read');
ROLLBACK;
BEGIN READ ONLY;
SELECT shared_revoke('rf_cbf', 'regress_rf_nobody', 'read');
ROLLBACK;
BEGIN READ ONLY;
SELECT shared_cbf_add('rf_cbf', 1);
ROLLBACK;
BEGIN READ ONLY;
SELECT shared_freeze('rf_cbf');
ROLLBACK;
BEGIN READ ONLY;
SELECT pg_temp.sqlstate_of($$SELECT shared_cbf_create('rf_new', 100)$$) AS "create",
       pg_temp.sqlstate_of($$SELECT shared_drop('rf_cbf')$$) AS "drop",
       pg_temp.sqlstate_of($$SELECT shared_grant('rf_cbf', 'regress_rf_nobody', 'read')$$) AS "grant",
       pg_temp.sqlstate_of($$SELECT shared_cbf_add('rf_cbf', 1)$$) AS "add";
ROLLBACK;
-- reads work
BEGIN READ ONLY;
SELECT shared_cbf_contains('rf_cbf', 1) AS contains, name FROM shared_objects WHERE name = 'rf_cbf';
ROLLBACK;

-- Merging filters of another hash seed says so (the seed is in the byte form,
-- bytes 33 to 40, see docs/formats.md)
CREATE TEMP TABLE rf_seeded AS
SELECT overlay(cbf_empty(100)::bytea PLACING '\x2a00000000000000'::bytea FROM 33)::cbf AS f;
SELECT cbf_empty(100) + f FROM rf_seeded;
SELECT cbf_union_agg(x) FROM (SELECT cbf_empty(100) AS x UNION ALL SELECT f FROM rf_seeded) u;
-- (rf_cbf scales: its first sub-filter is sized for half the fpr)
SELECT shared_cbf_merge('rf_cbf', overlay(cbf_empty(100, 0.005)::bytea PLACING '\x2a00000000000000'::bytea FROM 33)::cbf);

SELECT shared_drop('rf_cbf'), shared_drop('rf_bloom'), shared_drop('rf_res'), shared_drop('rf_wres');
DROP ROLE regress_rf_nobody;
