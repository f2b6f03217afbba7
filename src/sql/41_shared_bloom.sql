-- Shared Bloom filters. They take and return values of the `bloom` type
-- (10_bloom.sql); the functions are declared when that type exists, so this
-- piece also installs in a tree without the Bloom filter's SQL face.
DO $shared_bloom$
BEGIN
IF to_regtype('bloom') IS NULL THEN
    RETURN;
END IF;
EXECUTE $sql$
CREATE FUNCTION shared_bloom_create(name text, n bigint, fpr float8, layout text DEFAULT NULL) RETURNS void
AS 'MODULE_PATHNAME', 'shared_bloom_create' LANGUAGE C VOLATILE
$sql$;
EXECUTE $sql$
COMMENT ON FUNCTION shared_bloom_create(text, bigint, float8, text) IS
'Creates a shared Bloom filter sized for n items at false-positive rate fpr, in a layout as bloom_empty takes it (NULL: the SIMD layout that needs least memory)'
$sql$;
EXECUTE $sql$
CREATE FUNCTION shared_create_from(name text, value bloom) RETURNS void
AS 'MODULE_PATHNAME', 'shared_bloom_create_from' LANGUAGE C VOLATILE STRICT
$sql$;
EXECUTE $sql$
COMMENT ON FUNCTION shared_create_from(text, bloom) IS
'Creates a shared Bloom filter holding a copy of a bloom value (same layout, size, seed and bits)'
$sql$;
EXECUTE $sql$
CREATE FUNCTION shared_bloom_add(name text, item anyelement) RETURNS boolean
AS 'MODULE_PATHNAME', 'shared_bloom_add' LANGUAGE C VOLATILE STRICT
$sql$;
EXECUTE $sql$
COMMENT ON FUNCTION shared_bloom_add(text, anyelement) IS
'Adds an item to a shared Bloom filter (immediately, not rolled back); true if it was probably new'
$sql$;
EXECUTE $sql$
CREATE FUNCTION shared_bloom_add(name text, item text) RETURNS boolean
AS 'MODULE_PATHNAME', 'shared_bloom_add' LANGUAGE C VOLATILE STRICT
$sql$;
EXECUTE $sql$
COMMENT ON FUNCTION shared_bloom_add(text, text) IS
'Adds a text item (and untyped literals) to a shared Bloom filter; true if it was probably new'
$sql$;
EXECUTE $sql$
CREATE FUNCTION shared_bloom_add_many(name text, items anyarray) RETURNS bigint
AS 'MODULE_PATHNAME', 'shared_bloom_add_many' LANGUAGE C VOLATILE STRICT
$sql$;
EXECUTE $sql$
COMMENT ON FUNCTION shared_bloom_add_many(text, anyarray) IS
'Adds every non-null element of an array to a shared Bloom filter under one lock acquisition; returns how many were probably new'
$sql$;
EXECUTE $sql$
CREATE FUNCTION shared_bloom_contains(name text, item anyelement) RETURNS boolean
AS 'MODULE_PATHNAME', 'shared_bloom_contains' LANGUAGE C VOLATILE STRICT
$sql$;
EXECUTE $sql$
COMMENT ON FUNCTION shared_bloom_contains(text, anyelement) IS
'True if the item is probably in the shared Bloom filter, false if it is definitely not'
$sql$;
EXECUTE $sql$
CREATE FUNCTION shared_bloom_contains(name text, item text) RETURNS boolean
AS 'MODULE_PATHNAME', 'shared_bloom_contains' LANGUAGE C VOLATILE STRICT
$sql$;
EXECUTE $sql$
COMMENT ON FUNCTION shared_bloom_contains(text, text) IS
'shared_bloom_contains for text items and untyped literals'
$sql$;
EXECUTE $sql$
CREATE FUNCTION shared_bloom_clear(name text) RETURNS void
AS 'MODULE_PATHNAME', 'shared_bloom_clear' LANGUAGE C VOLATILE STRICT
$sql$;
EXECUTE $sql$
COMMENT ON FUNCTION shared_bloom_clear(text) IS
'Empties a shared Bloom filter (immediately, not rolled back)'
$sql$;
EXECUTE $sql$
CREATE FUNCTION shared_bloom_merge(name text, value bloom) RETURNS void
AS 'MODULE_PATHNAME', 'shared_bloom_merge' LANGUAGE C VOLATILE STRICT
$sql$;
EXECUTE $sql$
COMMENT ON FUNCTION shared_bloom_merge(text, bloom) IS
'ORs a bloom value (same layout, size and seed) into a shared Bloom filter'
$sql$;
EXECUTE $sql$
CREATE FUNCTION shared_bloom_snapshot(name text) RETURNS bloom
AS 'MODULE_PATHNAME', 'shared_bloom_snapshot' LANGUAGE C VOLATILE STRICT
$sql$;
EXECUTE $sql$
COMMENT ON FUNCTION shared_bloom_snapshot(text) IS
'A point-in-time copy of a shared Bloom filter as a bloom value'
$sql$;
EXECUTE $sql$
CREATE FUNCTION shared_bloom_stats(name text) RETURNS jsonb
AS 'MODULE_PATHNAME', 'shared_bloom_stats' LANGUAGE C VOLATILE STRICT
$sql$;
EXECUTE $sql$
COMMENT ON FUNCTION shared_bloom_stats(text) IS
'layout, k, kp, capacity, fp_rate, capacity_bits, bits_set, fill_ratio, count, estimated_fpr, seed, ops, bytes, mmap_size, frozen, readonly, lock_recoveries'
$sql$;
END
$shared_bloom$;
