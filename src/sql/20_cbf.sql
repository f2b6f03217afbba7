
-- ==== counting Bloom filters: the value type cbf ====

CREATE TYPE cbf;

CREATE FUNCTION cbf_in(cstring) RETURNS cbf
AS 'MODULE_PATHNAME', 'cbf_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION cbf_out(cbf) RETURNS cstring
AS 'MODULE_PATHNAME', 'cbf_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION cbf_recv(internal) RETURNS cbf
AS 'MODULE_PATHNAME', 'cbf_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION cbf_send(cbf) RETURNS bytea
AS 'MODULE_PATHNAME', 'cbf_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION cbf_typmod_in(cstring[]) RETURNS integer
AS 'MODULE_PATHNAME', 'cbf_typmod_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION cbf_typmod_out(integer) RETURNS cstring
AS 'MODULE_PATHNAME', 'cbf_typmod_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Stored out of line uncompressed by default: a filled filter compresses to
-- about half, and decompressing it makes each query that reads it (each
-- parallel worker too) wait several times longer to fetch it
-- (docs/cbf.md, "Storage").
CREATE TYPE cbf (
    INPUT = cbf_in,
    OUTPUT = cbf_out,
    RECEIVE = cbf_recv,
    SEND = cbf_send,
    TYPMOD_IN = cbf_typmod_in,
    TYPMOD_OUT = cbf_typmod_out,
    INTERNALLENGTH = VARIABLE,
    STORAGE = external
);
COMMENT ON TYPE cbf IS
'counting Bloom filter: m 4-bit counters saturating at 15 and k probes per item; membership with remove and count_of';
COMMENT ON FUNCTION cbf_in(cstring) IS 'text input of cbf: b64: followed by the base64 of its byte form (or 0.1.0''s \x and hex)';
COMMENT ON FUNCTION cbf_out(cbf) IS 'text output of cbf: b64: followed by the base64 of its byte form';
COMMENT ON FUNCTION cbf_recv(internal) IS 'binary input of cbf: its byte form, validated';
COMMENT ON FUNCTION cbf_send(cbf) IS 'binary output of cbf: its byte form';
COMMENT ON FUNCTION cbf_typmod_in(cstring[]) IS
'cbf(capacity[, fpr]) type modifier: capacity to 3 significant digits, fpr (default 0.01) to 1';
COMMENT ON FUNCTION cbf_typmod_out(integer) IS 'the cbf type modifier as (capacity,fpr)';

-- The length-coercion cast: a modified column or cast holds only filters of
-- the counters and hashes its modifier gives.
CREATE FUNCTION cbf(cbf, integer, boolean) RETURNS cbf
AS 'MODULE_PATHNAME', 'cbf_enforce_typmod' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbf(cbf, integer, boolean) IS
'the filter, if its counters and hashes are those of the type modifier (cbf(capacity[, fpr])); an error otherwise';
CREATE CAST (cbf AS cbf) WITH FUNCTION cbf(cbf, integer, boolean) AS IMPLICIT;
COMMENT ON CAST (cbf AS cbf) IS 'checks a filter against the type modifier of its destination';

CREATE FUNCTION cbf(bytea) RETURNS cbf
AS 'MODULE_PATHNAME', 'cbf_from_bytea' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbf(bytea) IS 'the cbf whose byte form is the bytea (validated); also the bytea::cbf cast';
CREATE CAST (bytea AS cbf) WITH FUNCTION cbf(bytea);
CREATE CAST (cbf AS bytea) WITHOUT FUNCTION;
COMMENT ON CAST (bytea AS cbf) IS 'validates the bytes as the byte form of a cbf';
COMMENT ON CAST (cbf AS bytea) IS 'the byte form of a cbf (header and packed counters)';

CREATE FUNCTION cbf_empty(capacity bigint, fpr float8 DEFAULT 0.01) RETURNS cbf
AS 'MODULE_PATHNAME', 'cbf_empty' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbf_empty(bigint, float8) IS
'an empty counting Bloom filter sized for capacity items at false-positive rate fpr: k = round(-log2 fpr), m = next_pow2(capacity * k / ln 2) counters';
-- Not strict: a NULL layout is classic, as for shared_cbf_create and bloom_empty.
CREATE FUNCTION cbf_empty(capacity bigint, fpr float8, layout text) RETURNS cbf
AS 'MODULE_PATHNAME', 'cbf_empty' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cbf_empty(bigint, float8, text) IS
'an empty counting Bloom filter of a layout (classic, classic<K>, block, block<K>: all K counters of an item in one 64-byte line; NULL: classic) sized for capacity items at false-positive rate fpr';

-- Sizing helpers, as bloom_capacity_for and bloom_fpr_for.
-- Not strict: a NULL layout is classic, as cbf_empty takes it.
CREATE FUNCTION cbf_capacity_for(n bigint, fpr float8, layout text DEFAULT 'classic') RETURNS bigint
AS 'MODULE_PATHNAME', 'cbf_capacity_for' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cbf_capacity_for(bigint, float8, text) IS
'the counters (m) cbf_empty(n, fpr, layout) allocates: half as many bytes';
CREATE FUNCTION cbf_fpr_for(n bigint, counters bigint, layout text) RETURNS float8
AS 'MODULE_PATHNAME', 'cbf_fpr_for' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbf_fpr_for(bigint, bigint, text) IS
'the false-positive rate the formulas predict after n distinct items in a filter of that many counters and layout (without K: the best K)';

-- Items (anycompatible: see sketch_hash).
CREATE FUNCTION cbf_add(filter cbf, item anycompatible) RETURNS cbf
AS 'MODULE_PATHNAME', 'cbf_add' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbf_add(cbf, anycompatible) IS 'the filter with item added: its k counters incremented, saturating at 15';

CREATE FUNCTION cbf_remove(filter cbf, item anycompatible) RETURNS cbf
AS 'MODULE_PATHNAME', 'cbf_remove' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbf_remove(cbf, anycompatible) IS
'the filter with one occurrence of item removed if it is present (counters at 15 stay); unchanged otherwise';

CREATE FUNCTION cbf_contains(filter cbf, item anycompatible) RETURNS bool
AS 'MODULE_PATHNAME', 'cbf_contains' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT sketchshare_support;
COMMENT ON FUNCTION cbf_contains(cbf, anycompatible) IS
'true if item is probably present (all k counters nonzero), false if it is definitely absent';

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

CREATE FUNCTION cbf_count_of(filter cbf, item anycompatible) RETURNS int
AS 'MODULE_PATHNAME', 'cbf_count_of' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT sketchshare_support;
COMMENT ON FUNCTION cbf_count_of(cbf, anycompatible) IS
'how many times item is stored, 0..15: the least of its k counters (never less than the truth below 15; 15 means 15 or more)';

CREATE FUNCTION cbf_count(filter cbf) RETURNS bigint
AS 'MODULE_PATHNAME', 'cbf_count' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbf_count(cbf) IS
'estimated number of distinct items present: -(m/k) ln(1 - X/m) with X nonzero counters; with every counter set, X = m - 1/2 (a lower bound)';

CREATE FUNCTION cbf_merge(a cbf, b cbf) RETURNS cbf
AS 'MODULE_PATHNAME', 'cbf_merge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbf_merge(cbf, cbf) IS
'counter-wise saturating sum of two filters of the same geometry (layout, m and k); keeps the capacity and fpr of a';

CREATE FUNCTION cbf_stats(filter cbf) RETURNS jsonb
AS 'MODULE_PATHNAME', 'cbf_stats' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbf_stats(cbf) IS
'layout, capacity, fp_rate, counters (m), hashes (k), counters_set, count, fill_ratio, estimated_fpr, saturated (counters at 15) and bytes of a filter';

CREATE FUNCTION cbf_eq(cbf, cbf) RETURNS bool
AS 'MODULE_PATHNAME', 'cbf_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbf_eq(cbf, cbf) IS 'same geometry, capacity, fpr, item class and counters';
CREATE FUNCTION cbf_ne(cbf, cbf) RETURNS bool
AS 'MODULE_PATHNAME', 'cbf_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbf_ne(cbf, cbf) IS 'not cbf_eq';

CREATE OPERATOR @> (LEFTARG = cbf, RIGHTARG = anycompatible, FUNCTION = cbf_contains);
COMMENT ON OPERATOR @> (cbf, anycompatible) IS 'cbf_contains: the filter probably contains the item';
CREATE OPERATOR + (LEFTARG = cbf, RIGHTARG = cbf, FUNCTION = cbf_merge);
COMMENT ON OPERATOR + (cbf, cbf) IS 'cbf_merge: counter-wise saturating sum';
CREATE OPERATOR = (LEFTARG = cbf, RIGHTARG = cbf, FUNCTION = cbf_eq, COMMUTATOR = =, NEGATOR = <>,
                   RESTRICT = eqsel, JOIN = eqjoinsel, HASHES);
COMMENT ON OPERATOR = (cbf, cbf) IS 'same geometry, capacity, fpr and counters';
-- Hashable (DISTINCT, GROUP BY, UNION, hash joins); not ordered.
CREATE FUNCTION cbf_hash(cbf) RETURNS integer
AS 'MODULE_PATHNAME', 'cbf_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbf_hash(cbf) IS 'hash of a filter: equal filters hash alike (the hash operator class)';
CREATE OPERATOR CLASS cbf_hash_ops DEFAULT FOR TYPE cbf USING hash AS
    OPERATOR 1 = (cbf, cbf), FUNCTION 1 cbf_hash(cbf);
CREATE OPERATOR <> (LEFTARG = cbf, RIGHTARG = cbf, FUNCTION = cbf_ne, COMMUTATOR = <>, NEGATOR = =,
                    RESTRICT = neqsel, JOIN = neqjoinsel);
COMMENT ON OPERATOR <> (cbf, cbf) IS 'not equal';

-- Aggregates. The transition value is a cbf mutated in place (cbf_agg's also
-- buffers item hashes, applied in batches); a combine function and a real
-- transition type let parallel query and Citus split them.
CREATE FUNCTION cbf_agg_trans(state cbf, item anycompatible, capacity bigint) RETURNS cbf
AS 'MODULE_PATHNAME', 'cbf_agg_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION cbf_agg_trans(state cbf, item anycompatible, capacity bigint, fpr float8) RETURNS cbf
AS 'MODULE_PATHNAME', 'cbf_agg_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION cbf_agg_trans(state cbf, item anycompatible, capacity bigint, fpr float8, layout text) RETURNS cbf
AS 'MODULE_PATHNAME', 'cbf_agg_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cbf_agg_trans(cbf, anycompatible, bigint) IS 'transition function of cbf_agg';
COMMENT ON FUNCTION cbf_agg_trans(cbf, anycompatible, bigint, float8) IS 'transition function of cbf_agg';
COMMENT ON FUNCTION cbf_agg_trans(cbf, anycompatible, bigint, float8, text) IS 'transition function of cbf_agg';

CREATE FUNCTION cbf_agg_final(state cbf) RETURNS cbf
AS 'MODULE_PATHNAME', 'cbf_agg_final' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbf_agg_final(cbf) IS 'final function of cbf_agg: applies the buffered item hashes';

CREATE FUNCTION cbf_agg_combine_support(internal) RETURNS internal
AS 'MODULE_PATHNAME', 'cbf_agg_combine_support' LANGUAGE C STRICT;
COMMENT ON FUNCTION cbf_agg_combine_support(internal) IS
'planner support of cbf_agg_combine: the cost of moving partial states of the filter cbf_agg''s constant arguments size (sketchshare.partial_state_page_cost)';
CREATE FUNCTION cbf_agg_combine(state cbf, other cbf) RETURNS cbf
AS 'MODULE_PATHNAME', 'cbf_agg_combine' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
SUPPORT cbf_agg_combine_support;
COMMENT ON FUNCTION cbf_agg_combine(cbf, cbf) IS 'combine function of cbf_agg: saturating merge into the state';
CREATE FUNCTION cbf_union_trans(state cbf, filter cbf) RETURNS cbf
AS 'MODULE_PATHNAME', 'cbf_union_trans' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbf_union_trans(cbf, cbf) IS
'transition and combine function of cbf_union_agg: saturating merge into the state';

CREATE AGGREGATE cbf_agg(item anycompatible, capacity bigint) (
    SFUNC = cbf_agg_trans, STYPE = cbf, FINALFUNC = cbf_agg_final,
    COMBINEFUNC = cbf_agg_combine, SSPACE = 12336, PARALLEL = SAFE);
CREATE AGGREGATE cbf_agg(item anycompatible, capacity bigint, fpr float8) (
    SFUNC = cbf_agg_trans, STYPE = cbf, FINALFUNC = cbf_agg_final,
    COMBINEFUNC = cbf_agg_combine, SSPACE = 12336, PARALLEL = SAFE);
COMMENT ON AGGREGATE cbf_agg(anycompatible, bigint) IS
'counting Bloom filter of the items (fpr 0.01); an item seen n times has count_of n (up to 15); NULL items are skipped';
CREATE AGGREGATE cbf_agg(item anycompatible, capacity bigint, fpr float8, layout text) (
    SFUNC = cbf_agg_trans, STYPE = cbf, FINALFUNC = cbf_agg_final,
    COMBINEFUNC = cbf_agg_combine, SSPACE = 12336, PARALLEL = SAFE);
COMMENT ON AGGREGATE cbf_agg(anycompatible, bigint, float8) IS
'counting Bloom filter of the items sized for capacity and fpr; NULL items are skipped';
COMMENT ON AGGREGATE cbf_agg(anycompatible, bigint, float8, text) IS
'counting Bloom filter of the items in a layout (classic, block, ...) sized for capacity and fpr; NULL items are skipped';

CREATE AGGREGATE cbf_union_agg(cbf) (
    SFUNC = cbf_union_trans, STYPE = cbf,
    COMBINEFUNC = cbf_union_trans, SSPACE = 8240, PARALLEL = SAFE);
COMMENT ON AGGREGATE cbf_union_agg(cbf) IS
'counter-wise saturating merge of filters of one geometry; NULLs are skipped';
