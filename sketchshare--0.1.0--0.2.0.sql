-- sketchshare 0.1.0 -> 0.2.0 (ALTER EXTENSION sketchshare UPDATE)

-- issue 24 parts 3 and 4: items carry their class (compared by = too), bulk forms on values and objects,
-- create if not exists
COMMENT ON FUNCTION bloom_eq(bloom, bloom) IS 'same layout, size, seed, item class and bits';
COMMENT ON FUNCTION cbf_eq(cbf, cbf) IS 'same geometry, capacity, fpr, item class and counters';
-- Many items at once (the elements of an array of any shape, NULLs skipped
-- by adds and NULL at their place in lookups).
CREATE FUNCTION bloom_add_many(filter bloom, items anyarray) RETURNS bloom
AS 'MODULE_PATHNAME', 'bloom_add_many' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_add_many(bloom, anyarray) IS
'the filter with every non-null element of the array added (a NULL array adds nothing)';
CREATE FUNCTION bloom_contains_many(filter bloom, items anyarray) RETURNS boolean[]
AS 'MODULE_PATHNAME', 'bloom_contains_many' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_contains_many(bloom, anyarray) IS
'bloom_contains of each element, in an array of the same shape (NULL for a NULL element)';
-- Many items at once (the elements of an array of any shape, NULLs skipped
-- by adds and NULL at their place in lookups).
CREATE FUNCTION cbf_add_many(filter cbf, items anyarray) RETURNS cbf
AS 'MODULE_PATHNAME', 'cbf_add_many' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cbf_add_many(cbf, anyarray) IS
'the filter with every non-null element of the array added (a NULL array adds nothing)';
CREATE FUNCTION cbf_contains_many(filter cbf, items anyarray) RETURNS boolean[]
AS 'MODULE_PATHNAME', 'cbf_contains_many' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbf_contains_many(cbf, anyarray) IS
'cbf_contains of each element, in an array of the same shape (NULL for a NULL element)';

-- ---- create if not exists, lookups of many items ----
-- if_not_exists has no default, so a call without it still resolves to the
-- functions above (returning void); it comes before layout, where an untyped
-- literal still resolves to the layout, and after cbf's fpr, which an untyped
-- literal ('NaN') could otherwise give either overload.

CREATE FUNCTION shared_bloom_create(name text, n bigint, fpr float8, if_not_exists boolean, layout text DEFAULT NULL)
RETURNS boolean AS 'MODULE_PATHNAME', 'shared_bloom_create_if_not_exists' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION shared_bloom_create(text, bigint, float8, boolean, text) IS
'shared_bloom_create; with if_not_exists, a name already taken gives a notice and false instead of an error; true when it created';
REVOKE EXECUTE ON FUNCTION shared_bloom_create(text, bigint, float8, boolean, text) FROM PUBLIC;

CREATE FUNCTION shared_cbf_create(name text, capacity bigint, fpr float8, if_not_exists boolean)
RETURNS boolean AS 'MODULE_PATHNAME', 'shared_cbf_create_if_not_exists' LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION shared_cbf_create(text, bigint, float8, boolean) IS
'shared_cbf_create; with if_not_exists, a name already taken gives a notice and false instead of an error; true when it created';
REVOKE EXECUTE ON FUNCTION shared_cbf_create(text, bigint, float8, boolean) FROM PUBLIC;

CREATE FUNCTION shared_bloom_contains_many(name text, items anyarray) RETURNS boolean[]
AS 'MODULE_PATHNAME', 'shared_bloom_contains_many' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION shared_bloom_contains_many(text, anyarray) IS
'shared_bloom_contains of each element, in an array of the same shape (NULL for a NULL element)';

CREATE FUNCTION shared_cbf_contains_many(name text, items anyarray) RETURNS boolean[]
AS 'MODULE_PATHNAME', 'shared_cbf_contains_many' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION shared_cbf_contains_many(text, anyarray) IS
'shared_cbf_contains of each element, in an array of the same shape (NULL for a NULL element)';

-- if_not_exists has no default, so a call without it still resolves to the
-- function above (returning void); every argument is given, so that no call
-- of the function above can match this one too.
CREATE FUNCTION shared_reservoir_create(name text, k int, item_size int, weighted boolean, if_not_exists boolean)
RETURNS boolean AS 'MODULE_PATHNAME', 'shared_reservoir_create_if_not_exists' LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION shared_reservoir_create(text, int, int, boolean, boolean) IS
'shared_reservoir_create; with if_not_exists, a name already taken gives a notice and false instead of an error; true when it created';
REVOKE EXECUTE ON FUNCTION shared_reservoir_create(text, int, int, boolean, boolean) FROM PUBLIC;
