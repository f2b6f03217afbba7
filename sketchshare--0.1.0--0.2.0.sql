-- sketchshare 0.1.0 -> 0.2.0 (ALTER EXTENSION sketchshare UPDATE)
\echo Use "ALTER EXTENSION sketchshare UPDATE" to load this file. \quit

-- Each change of 0.2.0 to the SQL objects adds its statements here, so that an
-- updated database ends with the objects a fresh 0.2.0 install creates
-- (test/scripts/upgrade.sh compares the two catalogs). The packaging of 0.2.0
-- (license, META.json, the Debian package) changes no SQL object.

-- transactional adds (issue 24, part 1): the adds take part in the transaction; the
-- overloads with a transactional argument keep the immediate adds of 0.1.0 by choice

CREATE FUNCTION shared_cbf_add(name text, item anycompatible, transactional boolean) RETURNS boolean
AS 'MODULE_PATHNAME', 'shared_cbf_add' LANGUAGE C VOLATILE SUPPORT sketchshare_support;
COMMENT ON FUNCTION shared_cbf_add(text, anycompatible, boolean) IS
'Adds an item to a shared counting Bloom filter; transactional => false adds it at once (not rolled back, no waits)';

CREATE FUNCTION shared_cbf_add_many(name text, items anyarray, transactional boolean) RETURNS bigint
AS 'MODULE_PATHNAME', 'shared_cbf_add_many' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION shared_cbf_add_many(text, anyarray, boolean) IS
'Adds every non-null element of an array; transactional => false adds them at once under one lock acquisition (not rolled back)';

CREATE FUNCTION shared_bloom_add(name text, item anycompatible, transactional boolean) RETURNS boolean
AS 'MODULE_PATHNAME', 'shared_bloom_add' LANGUAGE C VOLATILE SUPPORT sketchshare_support;
COMMENT ON FUNCTION shared_bloom_add(text, anycompatible, boolean) IS
'Adds an item to a shared Bloom filter; transactional => false adds it at once (not rolled back, no waits)';

CREATE FUNCTION shared_bloom_add_many(name text, items anyarray, transactional boolean) RETURNS bigint
AS 'MODULE_PATHNAME', 'shared_bloom_add_many' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION shared_bloom_add_many(text, anyarray, boolean) IS
'Adds every non-null element of an array to a shared Bloom filter; transactional => false adds them at once under one lock acquisition (not rolled back)';

COMMENT ON FUNCTION shared_cbf_add(text, anycompatible) IS
'Adds an item to a shared counting Bloom filter when the transaction commits; true if it was probably new (waits for a transaction adding the same item)';

COMMENT ON FUNCTION shared_cbf_add_many(text, anyarray) IS
'Adds every non-null element of an array when the transaction commits; returns how many were probably new';

COMMENT ON FUNCTION shared_bloom_add(text, anycompatible) IS
'Adds an item to a shared Bloom filter when the transaction commits; true if it was probably new (waits for a transaction adding the same item)';

COMMENT ON FUNCTION shared_bloom_add_many(text, anyarray) IS
'Adds every non-null element of an array to a shared Bloom filter when the transaction commits; returns how many were probably new';
