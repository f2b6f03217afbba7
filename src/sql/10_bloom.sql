-- ---------------------------------------------------------------------------
-- bloom: Bloom filters in every Boost.Bloom layout (and cbf<K>), as a value.
-- ---------------------------------------------------------------------------

CREATE TYPE bloom;

CREATE FUNCTION bloom_in(cstring) RETURNS bloom
AS 'MODULE_PATHNAME', 'bloom_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_out(bloom) RETURNS cstring
AS 'MODULE_PATHNAME', 'bloom_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_recv(internal) RETURNS bloom
AS 'MODULE_PATHNAME', 'bloom_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_send(bloom) RETURNS bytea
AS 'MODULE_PATHNAME', 'bloom_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_typmod_in(cstring[]) RETURNS integer
AS 'MODULE_PATHNAME', 'bloom_typmod_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_typmod_out(integer) RETURNS cstring
AS 'MODULE_PATHNAME', 'bloom_typmod_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE bloom (
    INPUT = bloom_in,
    OUTPUT = bloom_out,
    RECEIVE = bloom_recv,
    SEND = bloom_send,
    TYPMOD_IN = bloom_typmod_in,
    TYPMOD_OUT = bloom_typmod_out,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT = double,
    STORAGE = extended
);
COMMENT ON TYPE bloom IS
'Bloom filter (any Boost.Bloom layout, or cbf<K>): a versioned header and a bit array; text form b64: + base64 of the binary form';
COMMENT ON FUNCTION bloom_in(cstring) IS 'bloom text input: b64: followed by the base64 of the binary form (or 0.1.0''s \x and hex), validated';
COMMENT ON FUNCTION bloom_out(bloom) IS 'bloom text output: b64: followed by the base64 of the binary form';
COMMENT ON FUNCTION bloom_recv(internal) IS 'bloom binary input, validated';
COMMENT ON FUNCTION bloom_send(bloom) IS 'bloom binary output: 28-byte little-endian header, then the bit array';
COMMENT ON FUNCTION bloom_typmod_in(cstring[]) IS
'bloom(n, fpr[, layout]) type modifier: n to 3 significant digits, fpr to 1, the layout as an index';
COMMENT ON FUNCTION bloom_typmod_out(integer) IS 'the bloom type modifier as (n,fpr[,''layout''])';

-- The length-coercion cast: a modified column or cast holds only filters of
-- the geometry its modifier gives.
CREATE FUNCTION bloom(bloom, integer, boolean) RETURNS bloom
AS 'MODULE_PATHNAME', 'bloom_enforce_typmod' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom(bloom, integer, boolean) IS
'the filter, if its geometry is the one of the type modifier (bloom(n, fpr[, layout])); an error otherwise';
CREATE CAST (bloom AS bloom) WITH FUNCTION bloom(bloom, integer, boolean) AS IMPLICIT;
COMMENT ON CAST (bloom AS bloom) IS 'checks a filter against the type modifier of its destination';

CREATE FUNCTION bloom_to_bytea(bloom) RETURNS bytea
AS 'MODULE_PATHNAME', 'bloom_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_to_bytea(bloom) IS 'the binary form of a bloom filter (what bloom_send sends)';
CREATE FUNCTION bloom_from_bytea(bytea) RETURNS bloom
AS 'MODULE_PATHNAME', 'bloom_from_bytea' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_from_bytea(bytea) IS 'a bloom filter from its binary form, validated';
CREATE CAST (bloom AS bytea) WITH FUNCTION bloom_to_bytea(bloom);
CREATE CAST (bytea AS bloom) WITH FUNCTION bloom_from_bytea(bytea);
COMMENT ON CAST (bloom AS bytea) IS 'the binary form of a bloom filter';
COMMENT ON CAST (bytea AS bloom) IS 'a bloom filter from its binary form, validated';

-- Constructors and sizing.
CREATE FUNCTION bloom_empty(n bigint, fpr float8, layout text DEFAULT NULL, seed bigint DEFAULT 0) RETURNS bloom
AS 'MODULE_PATHNAME', 'bloom_empty' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_empty(bigint, float8, text, bigint) IS
'empty Bloom filter sized for n items at false-positive rate fpr; layout NULL = fast_multiblock32 (fast_multiblock64 when that saves 10% memory), K'' chosen when omitted';
CREATE FUNCTION bloom_empty_bits(capacity_bits bigint, layout text, seed bigint DEFAULT 0) RETURNS bloom
AS 'MODULE_PATHNAME', 'bloom_empty_bits' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_empty_bits(bigint, text, bigint) IS
'empty Bloom filter of at least capacity_bits bits in the given layout (which must give K'')';
CREATE FUNCTION bloom_fpr_for(n bigint, capacity_bits bigint, layout text) RETURNS float8
AS 'MODULE_PATHNAME', 'bloom_fpr_for' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_fpr_for(bigint, bigint, text) IS
'expected false-positive rate after n distinct items in capacity_bits bits (Boost.Bloom''s formulas; best K'' if omitted)';
CREATE FUNCTION bloom_capacity_for(n bigint, fpr float8, layout text DEFAULT NULL) RETURNS bigint
AS 'MODULE_PATHNAME', 'bloom_capacity_for' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_capacity_for(bigint, float8, text) IS
'bits of the smallest filter of the layout that holds n items at false-positive rate fpr (what bloom_empty allocates)';

-- Items (anycompatible: see sketch_hash).
CREATE FUNCTION bloom_add(filter bloom, item anycompatible) RETURNS bloom
AS 'MODULE_PATHNAME', 'bloom_add' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_add(bloom, anycompatible) IS 'the filter with item added (a NULL item adds nothing)';
CREATE FUNCTION bloom_contains(filter bloom, item anycompatible) RETURNS boolean
AS 'MODULE_PATHNAME', 'bloom_contains' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT sketchshare_support;
COMMENT ON FUNCTION bloom_contains(bloom, anycompatible) IS 'false if item was certainly never added; true if it probably was';

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

-- Whole filters.
CREATE FUNCTION bloom_union(a bloom, b bloom) RETURNS bloom
AS 'MODULE_PATHNAME', 'bloom_union' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_union(bloom, bloom) IS 'filter of the items of either (same layout, size and seed required)';
CREATE FUNCTION bloom_intersect(a bloom, b bloom) RETURNS bloom
AS 'MODULE_PATHNAME', 'bloom_intersect' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_intersect(bloom, bloom) IS
'bitwise AND: contains every item of both (and may report more than an exact intersection would)';
CREATE FUNCTION bloom_eq(a bloom, b bloom) RETURNS boolean
AS 'MODULE_PATHNAME', 'bloom_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_eq(bloom, bloom) IS 'same layout, size, seed, item class and bits';
CREATE FUNCTION bloom_ne(a bloom, b bloom) RETURNS boolean
AS 'MODULE_PATHNAME', 'bloom_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_ne(bloom, bloom) IS 'not bloom_eq';
CREATE FUNCTION bloom_estimated_count(filter bloom) RETURNS float8
AS 'MODULE_PATHNAME', 'bloom_estimated_count' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_estimated_count(bloom) IS 'estimated number of distinct items added, from the fraction of bits set';
CREATE FUNCTION bloom_info(filter bloom) RETURNS jsonb
AS 'MODULE_PATHNAME', 'bloom_info' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_info(bloom) IS
'layout, K, K'', stride, capacity_bits, bytes, bits_set, fill_ratio, estimated_count, estimated_fpr, seed and format version';

CREATE OPERATOR | (LEFTARG = bloom, RIGHTARG = bloom, FUNCTION = bloom_union, COMMUTATOR = |);
COMMENT ON OPERATOR | (bloom, bloom) IS 'bloom_union';
CREATE OPERATOR & (LEFTARG = bloom, RIGHTARG = bloom, FUNCTION = bloom_intersect, COMMUTATOR = &);
COMMENT ON OPERATOR & (bloom, bloom) IS 'bloom_intersect';
CREATE OPERATOR = (LEFTARG = bloom, RIGHTARG = bloom, FUNCTION = bloom_eq, COMMUTATOR = =, NEGATOR = <>,
                   RESTRICT = eqsel, JOIN = eqjoinsel, HASHES);
COMMENT ON OPERATOR = (bloom, bloom) IS 'bloom_eq';
-- Hashable (DISTINCT, GROUP BY, UNION, hash joins); not ordered.
CREATE FUNCTION bloom_hash(bloom) RETURNS integer
AS 'MODULE_PATHNAME', 'bloom_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_hash(bloom) IS 'hash of a filter: equal filters hash alike (the hash operator class)';
CREATE OPERATOR CLASS bloom_hash_ops DEFAULT FOR TYPE bloom USING hash AS
    OPERATOR 1 = (bloom, bloom), FUNCTION 1 bloom_hash(bloom);
CREATE OPERATOR <> (LEFTARG = bloom, RIGHTARG = bloom, FUNCTION = bloom_ne, COMMUTATOR = <>, NEGATOR = =,
                    RESTRICT = neqsel, JOIN = neqjoinsel);
COMMENT ON OPERATOR <> (bloom, bloom) IS 'bloom_ne';
CREATE OPERATOR @> (LEFTARG = bloom, RIGHTARG = anycompatible, FUNCTION = bloom_contains);
COMMENT ON OPERATOR @> (bloom, anycompatible) IS 'bloom_contains';

-- Aggregates. The state is bloom itself, mutated in place; COMBINEFUNC and a
-- real state type let parallel query and Citus split them. SSPACE is a guess
-- for planning (a filter of ~100k items at 1%).
CREATE FUNCTION bloom_agg_trans(state bloom, item anycompatible, n bigint, fpr float8) RETURNS bloom
AS 'MODULE_PATHNAME', 'bloom_agg_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_agg_trans(bloom, anycompatible, bigint, float8) IS 'bloom_agg transition function';
CREATE FUNCTION bloom_agg_trans(state bloom, item anycompatible, n bigint, fpr float8, layout text) RETURNS bloom
AS 'MODULE_PATHNAME', 'bloom_agg_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_agg_trans(bloom, anycompatible, bigint, float8, text) IS 'bloom_agg transition function';
CREATE FUNCTION bloom_agg_final(state bloom) RETURNS bloom
AS 'MODULE_PATHNAME', 'bloom_agg_final' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_agg_final(bloom) IS 'bloom_agg final function: flushes buffered hashes';
CREATE FUNCTION bloom_agg_combine_support(internal) RETURNS internal
AS 'MODULE_PATHNAME', 'bloom_agg_combine_support' LANGUAGE C STRICT;
COMMENT ON FUNCTION bloom_agg_combine_support(internal) IS
'planner support of bloom_agg_combine: the cost of moving partial states of the filter bloom_agg''s constant arguments size (sketchshare.partial_state_page_cost)';
CREATE FUNCTION bloom_agg_combine(a bloom, b bloom) RETURNS bloom
AS 'MODULE_PATHNAME', 'bloom_agg_combine' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
SUPPORT bloom_agg_combine_support;
COMMENT ON FUNCTION bloom_agg_combine(bloom, bloom) IS 'bloom_agg combine function: union of two partial states';

CREATE AGGREGATE bloom_agg(item anycompatible, n bigint, fpr float8) (
    SFUNC = bloom_agg_trans, STYPE = bloom, FINALFUNC = bloom_agg_final,
    COMBINEFUNC = bloom_agg_combine, SSPACE = 131072, PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(anycompatible, bigint, float8) IS
'Bloom filter of the items, sized for n items at false-positive rate fpr in the default layout';
CREATE AGGREGATE bloom_agg(item anycompatible, n bigint, fpr float8, layout text) (
    SFUNC = bloom_agg_trans, STYPE = bloom, FINALFUNC = bloom_agg_final,
    COMBINEFUNC = bloom_agg_combine, SSPACE = 131072, PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(anycompatible, bigint, float8, text) IS
'Bloom filter of the items, sized for n items at false-positive rate fpr in the given layout';

CREATE FUNCTION bloom_union_trans(state bloom, filter bloom) RETURNS bloom
AS 'MODULE_PATHNAME', 'bloom_union_trans' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_union_trans(bloom, bloom) IS 'bloom_union_agg transition and combine function';
CREATE FUNCTION bloom_intersect_trans(state bloom, filter bloom) RETURNS bloom
AS 'MODULE_PATHNAME', 'bloom_intersect_trans' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_intersect_trans(bloom, bloom) IS 'bloom_intersect_agg transition and combine function';

CREATE AGGREGATE bloom_union_agg(filter bloom) (
    SFUNC = bloom_union_trans, STYPE = bloom, COMBINEFUNC = bloom_union_trans, SSPACE = 131072, PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_union_agg(bloom) IS 'union of the filters (same layout, size and seed required)';
CREATE AGGREGATE bloom_intersect_agg(filter bloom) (
    SFUNC = bloom_intersect_trans, STYPE = bloom, COMBINEFUNC = bloom_intersect_trans, SSPACE = 131072, PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_intersect_agg(bloom) IS 'bitwise AND of the filters (same layout, size and seed required)';
