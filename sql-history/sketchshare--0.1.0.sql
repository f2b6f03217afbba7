-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION sketchshare" to load this file. \quit

-- Items are anycompatible in every function that takes one: an untyped
-- literal resolves to text by itself (anyelement would need a text twin, and
-- the twin made the one-byte "char" ambiguous), and a call is resolved
-- against one candidate.
CREATE FUNCTION sketch_hash(value anycompatible) RETURNS bytea
AS 'MODULE_PATHNAME', 'sketch_hash'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sketch_hash(anycompatible) IS
'XXH3-128 digest (canonical 16-byte form) of the value''s canonical bytes; every sketchshare structure hashes items this way';

-- The planner support function of the functions the prefetching scan reads
-- ahead for (docs/performance.md, "The prefetching scan"). It changes no plan by itself: the
-- planner calling it loads the library, whose planner hook then sees the
-- query that named the function.
CREATE FUNCTION sketchshare_support(internal) RETURNS internal
AS 'MODULE_PATHNAME', 'sketchshare_support' LANGUAGE C STRICT;
COMMENT ON FUNCTION sketchshare_support(internal) IS
'planner support of the lookup functions: loads the library at planning so the prefetching scan can be planned';
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

CREATE TYPE bloom (
    INPUT = bloom_in,
    OUTPUT = bloom_out,
    RECEIVE = bloom_recv,
    SEND = bloom_send,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT = double,
    STORAGE = extended
);
COMMENT ON TYPE bloom IS
'Bloom filter (any Boost.Bloom layout, or cbf<K>): a versioned header and a bit array; text form \x + hex of the binary form';
COMMENT ON FUNCTION bloom_in(cstring) IS 'bloom text input: \x followed by the hex of the binary form, validated';
COMMENT ON FUNCTION bloom_out(bloom) IS 'bloom text output: \x followed by the hex of the binary form';
COMMENT ON FUNCTION bloom_recv(internal) IS 'bloom binary input, validated';
COMMENT ON FUNCTION bloom_send(bloom) IS 'bloom binary output: 28-byte little-endian header, then the bit array';

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
COMMENT ON FUNCTION bloom_eq(bloom, bloom) IS 'same layout, size, seed and bits';
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

-- Stored out of line uncompressed by default: a filled filter compresses to
-- about half, and decompressing it makes each query that reads it (each
-- parallel worker too) wait several times longer to fetch it
-- (docs/cbf.md, "Storage").
CREATE TYPE cbf (
    INPUT = cbf_in,
    OUTPUT = cbf_out,
    RECEIVE = cbf_recv,
    SEND = cbf_send,
    INTERNALLENGTH = VARIABLE,
    STORAGE = external
);
COMMENT ON TYPE cbf IS
'counting Bloom filter: m 4-bit counters saturating at 15 and k probes per item; membership with remove and count_of';
COMMENT ON FUNCTION cbf_in(cstring) IS 'text input of cbf: \x followed by the hex of its byte form';
COMMENT ON FUNCTION cbf_out(cbf) IS 'text output of cbf: \x followed by the hex of its byte form';
COMMENT ON FUNCTION cbf_recv(internal) IS 'binary input of cbf: its byte form, validated';
COMMENT ON FUNCTION cbf_send(cbf) IS 'binary output of cbf: its byte form';

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

CREATE FUNCTION cbf_count_of(filter cbf, item anycompatible) RETURNS int
AS 'MODULE_PATHNAME', 'cbf_count_of' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT sketchshare_support;
COMMENT ON FUNCTION cbf_count_of(cbf, anycompatible) IS
'how many times item is stored, 0..15: the least of its k counters (never less than the truth below 15; 15 means 15 or more)';

CREATE FUNCTION cbf_count(filter cbf) RETURNS bigint
AS 'MODULE_PATHNAME', 'cbf_count' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbf_count(cbf) IS
'estimated number of distinct items present: -(m/k) ln(1 - X/m) with X nonzero counters; capacity when every counter is set';

CREATE FUNCTION cbf_merge(a cbf, b cbf) RETURNS cbf
AS 'MODULE_PATHNAME', 'cbf_merge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbf_merge(cbf, cbf) IS
'counter-wise saturating sum of two filters of the same geometry (m and k); keeps the capacity and fpr of a';

CREATE FUNCTION cbf_stats(filter cbf) RETURNS jsonb
AS 'MODULE_PATHNAME', 'cbf_stats' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbf_stats(cbf) IS
'capacity, fp_rate, counters (m), hashes (k), counters_set, count, fill_ratio, saturated (counters at 15) and bytes of a filter';

CREATE FUNCTION cbf_eq(cbf, cbf) RETURNS bool
AS 'MODULE_PATHNAME', 'cbf_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbf_eq(cbf, cbf) IS 'same geometry, capacity, fpr and counters';
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
COMMENT ON FUNCTION cbf_agg_trans(cbf, anycompatible, bigint) IS 'transition function of cbf_agg';
COMMENT ON FUNCTION cbf_agg_trans(cbf, anycompatible, bigint, float8) IS 'transition function of cbf_agg';

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
COMMENT ON AGGREGATE cbf_agg(anycompatible, bigint, float8) IS
'counting Bloom filter of the items sized for capacity and fpr; NULL items are skipped';

CREATE AGGREGATE cbf_union_agg(cbf) (
    SFUNC = cbf_union_trans, STYPE = cbf,
    COMBINEFUNC = cbf_union_trans, SSPACE = 8240, PARALLEL = SAFE);
COMMENT ON AGGREGATE cbf_union_agg(cbf) IS
'counter-wise saturating merge of filters of one geometry; NULLs are skipped';

-- Needs both types: the counting filter's projection onto a Bloom filter.
CREATE FUNCTION cbf_to_bloom(filter cbf) RETURNS bloom
AS 'MODULE_PATHNAME', 'cbf_to_bloom' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbf_to_bloom(cbf) IS
'projection onto a bloom of layout cbf<k> with the same m and k (a bit set where a counter is nonzero): a quarter of the size, and bloom_contains answers as cbf_contains did';

-- ==== reservoir: uniform (Algorithm L) and weighted (A-ExpJ) samples ====

CREATE TYPE reservoir;

CREATE FUNCTION reservoir_in(cstring) RETURNS reservoir
AS 'MODULE_PATHNAME', 'reservoir_in' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION reservoir_out(reservoir) RETURNS cstring
AS 'MODULE_PATHNAME', 'reservoir_out' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION reservoir_recv(internal) RETURNS reservoir
AS 'MODULE_PATHNAME', 'reservoir_recv' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION reservoir_send(reservoir) RETURNS bytea
AS 'MODULE_PATHNAME', 'reservoir_send' LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE TYPE reservoir (
    INPUT = reservoir_in, OUTPUT = reservoir_out,
    RECEIVE = reservoir_recv, SEND = reservoir_send,
    INTERNALLENGTH = VARIABLE, ALIGNMENT = double, STORAGE = extended
);
COMMENT ON TYPE reservoir IS
'A random sample of up to k items of one type (uniform or weighted) and how many items it was drawn from; merges exactly with reservoir_union_agg';
COMMENT ON FUNCTION reservoir_in(cstring) IS 'reservoir text input: the JSON form that reservoir_out writes, validated';
COMMENT ON FUNCTION reservoir_out(reservoir) IS 'reservoir text output: JSON with the item type by name and each item in its text form';
COMMENT ON FUNCTION reservoir_recv(internal) IS 'reservoir binary input, validated';
COMMENT ON FUNCTION reservoir_send(reservoir) IS 'reservoir binary output: the item type by name and each item in its binary form';

CREATE FUNCTION reservoir_to_bytea(reservoir) RETURNS bytea
AS 'MODULE_PATHNAME', 'reservoir_send' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION reservoir_from_bytea(bytea) RETURNS reservoir
AS 'MODULE_PATHNAME', 'reservoir_from_bytea' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE CAST (reservoir AS bytea) WITH FUNCTION reservoir_to_bytea(reservoir);
CREATE CAST (bytea AS reservoir) WITH FUNCTION reservoir_from_bytea(bytea);
COMMENT ON FUNCTION reservoir_to_bytea(reservoir) IS 'The reservoir''s binary form (as reservoir_send) as bytea';
COMMENT ON FUNCTION reservoir_from_bytea(bytea) IS 'A reservoir from its binary form (as reservoir_recv), validated';

-- ---- aggregate support functions ----
-- Transition functions take NULL states (they create them) and skip NULL
-- values; they draw random numbers, hence VOLATILE. PARALLEL SAFE: every
-- state has its own random stream (docs/reservoir.md, "Reproducible samples").

CREATE FUNCTION reservoir_sample_trans(reservoir, anycompatible, integer) RETURNS reservoir
AS 'MODULE_PATHNAME', 'reservoir_trans' LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION reservoir_sample_trans(reservoir, anycompatible, integer, double precision) RETURNS reservoir
AS 'MODULE_PATHNAME', 'reservoir_trans' LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION reservoir_combine(reservoir, reservoir) RETURNS reservoir
AS 'MODULE_PATHNAME', 'reservoir_combine' LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION reservoir_sample_final(reservoir, anycompatible, integer) RETURNS anycompatiblearray
AS 'MODULE_PATHNAME', 'reservoir_sample_final' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION reservoir_sample_final(reservoir, anycompatible, integer, double precision) RETURNS anycompatiblearray
AS 'MODULE_PATHNAME', 'reservoir_sample_final' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION reservoir_agg_final(reservoir) RETURNS reservoir
AS 'MODULE_PATHNAME', 'reservoir_agg_final' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

COMMENT ON FUNCTION reservoir_sample_trans(reservoir, anycompatible, integer) IS 'reservoir_sample / reservoir_agg transition function (uniform, Algorithm L)';
COMMENT ON FUNCTION reservoir_sample_trans(reservoir, anycompatible, integer, double precision) IS 'reservoir_sample / reservoir_agg transition function (weighted, A-ExpJ)';
COMMENT ON FUNCTION reservoir_combine(reservoir, reservoir) IS 'Exact merge of two reservoirs (combine function; reservoir_union_agg transition function)';
COMMENT ON FUNCTION reservoir_sample_final(reservoir, anycompatible, integer) IS 'reservoir_sample final function: the sample as an array';
COMMENT ON FUNCTION reservoir_sample_final(reservoir, anycompatible, integer, double precision) IS 'weighted reservoir_sample final function: the sample as an array';
COMMENT ON FUNCTION reservoir_agg_final(reservoir) IS 'reservoir_agg / reservoir_union_agg final function: the stored form of the state';

-- ---- aggregates ----
-- SSPACE: a hint for hash aggregation (bytes per group); a k-item state of
-- small values is ~ 16 k + 200 bytes.

CREATE AGGREGATE reservoir_sample(value anycompatible, k integer) (
    SFUNC = reservoir_sample_trans, STYPE = reservoir, SSPACE = 1024,
    FINALFUNC = reservoir_sample_final, FINALFUNC_EXTRA,
    COMBINEFUNC = reservoir_combine, PARALLEL = SAFE);
CREATE AGGREGATE reservoir_sample(value anycompatible, k integer, weight double precision) (
    SFUNC = reservoir_sample_trans, STYPE = reservoir, SSPACE = 1024,
    FINALFUNC = reservoir_sample_final, FINALFUNC_EXTRA,
    COMBINEFUNC = reservoir_combine, PARALLEL = SAFE);
COMMENT ON AGGREGATE reservoir_sample(anycompatible, integer) IS
'A uniform random sample of k of the non-NULL values (all of them when fewer), as an array';
COMMENT ON AGGREGATE reservoir_sample(anycompatible, integer, double precision) IS
'A weighted random sample of k values without replacement (A-Res: key u^(1/weight), k largest kept), as an array; weights must be finite and > 0';

CREATE AGGREGATE reservoir_agg(value anycompatible, k integer) (
    SFUNC = reservoir_sample_trans, STYPE = reservoir, SSPACE = 1024,
    FINALFUNC = reservoir_agg_final,
    COMBINEFUNC = reservoir_combine, PARALLEL = SAFE);
CREATE AGGREGATE reservoir_agg(value anycompatible, k integer, weight double precision) (
    SFUNC = reservoir_sample_trans, STYPE = reservoir, SSPACE = 1024,
    FINALFUNC = reservoir_agg_final,
    COMBINEFUNC = reservoir_combine, PARALLEL = SAFE);
COMMENT ON AGGREGATE reservoir_agg(anycompatible, integer) IS
'A uniform random sample of k of the values as a reservoir value (store it, merge it later with reservoir_union_agg)';
COMMENT ON AGGREGATE reservoir_agg(anycompatible, integer, double precision) IS
'A weighted random sample of k of the values as a reservoir value';

CREATE AGGREGATE reservoir_union_agg(reservoir) (
    SFUNC = reservoir_combine, STYPE = reservoir, SSPACE = 1024,
    FINALFUNC = reservoir_agg_final,
    COMBINEFUNC = reservoir_combine, PARALLEL = SAFE);
COMMENT ON AGGREGATE reservoir_union_agg(reservoir) IS
'Exact merge of reservoirs: a sample of everything they were drawn from (k = the smallest k)';

-- ---- functions on values ----

CREATE FUNCTION reservoir_items(r reservoir, item_type anyelement) RETURNS anyarray
AS 'MODULE_PATHNAME', 'reservoir_items' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION reservoir_items(reservoir, anyelement) IS
'The sampled items as an array; the second argument names the item type: reservoir_items(r, NULL::bigint)';
CREATE FUNCTION reservoir_seen(reservoir) RETURNS bigint
AS 'MODULE_PATHNAME', 'reservoir_seen' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION reservoir_seen(reservoir) IS 'How many non-NULL items the sample was drawn from';
CREATE FUNCTION reservoir_count(reservoir) RETURNS integer
AS 'MODULE_PATHNAME', 'reservoir_count' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION reservoir_count(reservoir) IS 'How many items the reservoir holds: min(seen, k)';
CREATE FUNCTION reservoir_stats(reservoir) RETURNS jsonb
AS 'MODULE_PATHNAME', 'reservoir_stats' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION reservoir_stats(reservoir) IS
'k, seen, count, weighted, item type, stored bytes (and the range of log-keys when weighted) as jsonb';
-- Shared objects: named, file-backed structures that every backend of the
-- database uses at once. The catalog (names, kinds, owners, grants) is kept in
-- tables so that create, drop, grant and revoke follow the transaction; the
-- data lives in $PGDATA/sketchshare/<database oid>/<name>, mapped MAP_SHARED.

CREATE SCHEMA sketchshare_shared;
COMMENT ON SCHEMA sketchshare_shared IS
'sketchshare: catalog of shared objects (read it through the shared_objects view)';
REVOKE ALL ON SCHEMA sketchshare_shared FROM PUBLIC;

CREATE TABLE sketchshare_shared.objects (
    name text PRIMARY KEY,
    kind text NOT NULL CHECK (kind IN ('bloom', 'cbf', 'reservoir')),
    owner oid NOT NULL,
    file_id bigint NOT NULL,
    readonly boolean NOT NULL DEFAULT false,
    created timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE sketchshare_shared.objects IS
'sketchshare: one row per shared object; file_id names the incarnation of its file';

CREATE TABLE sketchshare_shared.grants (
    name text NOT NULL REFERENCES sketchshare_shared.objects ON DELETE CASCADE,
    grantee oid NOT NULL,
    privilege text NOT NULL CHECK (privilege IN ('read', 'write')),
    PRIMARY KEY (name, grantee, privilege)
);
COMMENT ON TABLE sketchshare_shared.grants IS
'sketchshare: privileges granted on shared objects with shared_grant';
REVOKE ALL ON sketchshare_shared.objects, sketchshare_shared.grants FROM PUBLIC;

-- CREATE DATABASE ... TEMPLATE copies these tables but not the object files
-- (they live outside the database's storage): the copy starts with no shared
-- objects: its rows name the template's objects, and this row another
-- database, until the copy's first create or drop removes them (the library
-- and the shared_objects view read no row while this names another).
CREATE TABLE sketchshare_shared.home (
    one boolean PRIMARY KEY DEFAULT true CHECK (one),
    db oid NOT NULL
);
INSERT INTO sketchshare_shared.home (db)
SELECT oid FROM pg_catalog.pg_database WHERE datname OPERATOR(pg_catalog.=) pg_catalog.current_database();
COMMENT ON TABLE sketchshare_shared.home IS
'sketchshare: the database whose shared objects the catalog describes (another one in a copy made by CREATE DATABASE)';
REVOKE ALL ON sketchshare_shared.home FROM PUBLIC;

-- A drop that takes the extension along also removes the objects' files, at
-- its commit. The library sees such a drop through a hook that exists once
-- the library is loaded in the dropping session: this trigger loads it (any
-- call into it does) before every command that can drop the extension. If
-- the library cannot be loaded (its files were removed first), the drop goes
-- on and the object files stay. The trigger runs for whoever drops, a
-- superuser too: its search_path is pinned and it calls a function of this
-- schema, where only superusers may create one, so no function or operator
-- that another role planted can be picked instead.
CREATE FUNCTION sketchshare_shared.library_loaded() RETURNS void
AS 'MODULE_PATHNAME', 'sketchshare_library_loaded' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION sketchshare_shared.library_loaded() IS
'sketchshare: does nothing; calling it loads the library (the event trigger''s function calls it)';
CREATE FUNCTION sketchshare_shared.load_library() RETURNS event_trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    PERFORM sketchshare_shared.library_loaded();
EXCEPTION WHEN OTHERS THEN
    NULL;
END
$$;
COMMENT ON FUNCTION sketchshare_shared.load_library() IS
'sketchshare: loads the library before a DROP that can reach the extension, so that its shared object files go with it';
CREATE EVENT TRIGGER sketchshare_load_before_drop ON ddl_command_start
    WHEN TAG IN ('DROP EXTENSION', 'DROP SCHEMA', 'DROP OWNED')
    EXECUTE FUNCTION sketchshare_shared.load_library();
COMMENT ON EVENT TRIGGER sketchshare_load_before_drop IS
'sketchshare: loads the library before DROP EXTENSION, DROP SCHEMA and DROP OWNED, so that a drop of the extension removes the shared object files';

CREATE FUNCTION sketchshare_shared.file_info(name text,
    OUT bytes bigint, OUT frozen boolean, OUT ops bigint, OUT capacity bigint, OUT fpr float8,
    OUT layout text, OUT m bigint, OUT k int, OUT status text)
AS 'MODULE_PATHNAME', 'shared_file_info'
LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION sketchshare_shared.file_info(text) IS
'sketchshare: facts read from a shared object''s file header (status says why a file is unusable)';

-- Each role sees the objects it has some right on: those of roles whose
-- privileges it has (its own; superusers: all) and those granted to such a
-- role, as the shared_* functions decide (has_privs_of_role). A security
-- barrier: a condition of the caller's query sees only those rows.
CREATE VIEW shared_objects WITH (security_barrier) AS
SELECT o.name, o.kind, o.owner::regrole AS owner, i.bytes, i.frozen, o.readonly,
       i.capacity, i.fpr, i.layout, i.m, i.k, i.ops, i.status, o.created
FROM sketchshare_shared.objects o
LEFT JOIN LATERAL sketchshare_shared.file_info(o.name) i ON true
WHERE (SELECT h.db FROM sketchshare_shared.home h) OPERATOR(pg_catalog.=)
      (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database())
  AND (pg_catalog.pg_has_role(o.owner, 'USAGE')
       OR EXISTS (SELECT FROM sketchshare_shared.grants g
                  WHERE g.name OPERATOR(pg_catalog.=) o.name AND pg_catalog.pg_has_role(g.grantee, 'USAGE')));
COMMENT ON VIEW shared_objects IS
'Shared objects of this database that the current role owns or was granted (superusers: all): name, kind, owner, file size, frozen, read-only (attached), geometry (capacity, fpr, layout, m = counters or bits, k = hashes), write calls so far, and the file''s status';
GRANT SELECT ON shared_objects TO PUBLIC;

-- ---- every kind ----

CREATE FUNCTION shared_freeze(name text) RETURNS void
AS 'MODULE_PATHNAME', 'shared_freeze' LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION shared_freeze(text) IS
'Seals a shared object: from now on it refuses every change and is read without locking (owner only; there is no unfreeze)';

CREATE FUNCTION shared_sync(name text) RETURNS void
AS 'MODULE_PATHNAME', 'shared_sync' LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION shared_sync(text) IS
'Flushes a shared object''s file to disk (msync) and reports any I/O error';

CREATE FUNCTION shared_drop(name text, if_exists boolean DEFAULT false) RETURNS boolean
AS 'MODULE_PATHNAME', 'shared_drop' LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION shared_drop(text, boolean) IS
'Drops a shared object (owner only); its file is removed when the transaction commits. Returns false if it did not exist and if_exists (then removing what an interrupted create of the name left)';

CREATE FUNCTION shared_grant(name text, role regrole, privilege text) RETURNS void
AS 'MODULE_PATHNAME', 'shared_grant' LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION shared_grant(text, regrole, text) IS
'Grants ''read'' (contains, count_of, count, stats, snapshot, export) or ''write'' (add, remove, clear, merge; implies read) on a shared object to a role (owner only)';

CREATE FUNCTION shared_revoke(name text, role regrole, privilege text) RETURNS void
AS 'MODULE_PATHNAME', 'shared_revoke' LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION shared_revoke(text, regrole, text) IS
'Revokes ''write'' (leaving read) or ''read'' (everything) granted with shared_grant (owner only)';

CREATE FUNCTION shared_export(name text, path text) RETURNS void
AS 'MODULE_PATHNAME', 'shared_export' LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION shared_export(text, text) IS
'Writes a copy of a frozen shared object''s file to an absolute server path (superusers and pg_write_server_files only)';

CREATE FUNCTION shared_attach(name text, path text) RETURNS void
AS 'MODULE_PATHNAME', 'shared_attach' LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION shared_attach(text, text) IS
'Registers a frozen object file (e.g. from shared_export on another server) under a name, as a read-only copy (superusers and pg_read_server_files only)';

-- ---- counting Bloom filters ----

CREATE FUNCTION shared_cbf_create(name text, capacity bigint, fpr float8 DEFAULT 0.01) RETURNS void
AS 'MODULE_PATHNAME', 'shared_cbf_create' LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION shared_cbf_create(text, bigint, float8) IS
'Creates a shared counting Bloom filter sized for capacity items at false-positive rate fpr; owned by the current role';
-- Creating reserves disk space: a privilege a superuser grants
-- (docs/shared-objects.md, Privileges), as for every create function.
REVOKE EXECUTE ON FUNCTION shared_cbf_create(text, bigint, float8) FROM PUBLIC;

CREATE FUNCTION shared_create_from(name text, value cbf) RETURNS void
AS 'MODULE_PATHNAME', 'shared_cbf_create_from' LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION shared_create_from(text, cbf) IS
'Creates a shared counting Bloom filter holding a copy of a cbf value (same geometry and counters)';
REVOKE EXECUTE ON FUNCTION shared_create_from(text, cbf) FROM PUBLIC;

-- Items are anycompatible (see sketch_hash). Resolving a call against one
-- candidate instead of two saves about 3000 instructions (a twentieth of a
-- simple-protocol statement) per call. A char(n) item hashes as its text cast
-- (trailing spaces dropped).
CREATE FUNCTION shared_cbf_add(name text, item anycompatible) RETURNS boolean
AS 'MODULE_PATHNAME', 'shared_cbf_add' LANGUAGE C VOLATILE SUPPORT sketchshare_support;
COMMENT ON FUNCTION shared_cbf_add(text, anycompatible) IS
'Adds an item to a shared counting Bloom filter (immediately, not rolled back); true if it was probably new';

CREATE FUNCTION shared_cbf_add_many(name text, items anyarray) RETURNS bigint
AS 'MODULE_PATHNAME', 'shared_cbf_add_many' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION shared_cbf_add_many(text, anyarray) IS
'Adds every non-null element of an array under one lock acquisition; returns how many were probably new';

CREATE FUNCTION shared_cbf_contains(name text, item anycompatible) RETURNS boolean
AS 'MODULE_PATHNAME', 'shared_cbf_contains' LANGUAGE C VOLATILE PARALLEL SAFE SUPPORT sketchshare_support;
COMMENT ON FUNCTION shared_cbf_contains(text, anycompatible) IS
'True if the item is probably in the shared counting Bloom filter, false if it is definitely not';

CREATE FUNCTION shared_cbf_count_of(name text, item anycompatible) RETURNS int
AS 'MODULE_PATHNAME', 'shared_cbf_count_of' LANGUAGE C VOLATILE PARALLEL SAFE SUPPORT sketchshare_support;
COMMENT ON FUNCTION shared_cbf_count_of(text, anycompatible) IS
'Estimated times the item is stored (0..15, an upper estimate; 15 means 15 or more)';

CREATE FUNCTION shared_cbf_remove(name text, item anycompatible) RETURNS boolean
AS 'MODULE_PATHNAME', 'shared_cbf_remove' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION shared_cbf_remove(text, anycompatible) IS
'Removes one occurrence of an item if it is present (immediately, not rolled back); true if it was present';

CREATE FUNCTION shared_cbf_count(name text) RETURNS bigint
AS 'MODULE_PATHNAME', 'shared_cbf_count' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION shared_cbf_count(text) IS
'Estimated number of distinct items in a shared counting Bloom filter';

CREATE FUNCTION shared_cbf_clear(name text) RETURNS void
AS 'MODULE_PATHNAME', 'shared_cbf_clear' LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION shared_cbf_clear(text) IS
'Empties a shared counting Bloom filter (immediately, not rolled back)';

CREATE FUNCTION shared_cbf_merge(name text, value cbf) RETURNS void
AS 'MODULE_PATHNAME', 'shared_cbf_merge' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION shared_cbf_merge(text, cbf) IS
'Adds a cbf value''s counters into a shared counting Bloom filter of the same geometry (saturating at 15)';

CREATE FUNCTION shared_cbf_snapshot(name text) RETURNS cbf
AS 'MODULE_PATHNAME', 'shared_cbf_snapshot' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION shared_cbf_snapshot(text) IS
'A point-in-time copy of a shared counting Bloom filter as a cbf value';

CREATE FUNCTION shared_cbf_stats(name text) RETURNS jsonb
AS 'MODULE_PATHNAME', 'shared_cbf_stats' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION shared_cbf_stats(text) IS
'capacity, fp_rate, counters, hashes, counters_set, count, fill_ratio, saturated, ops, bytes, mmap_size, frozen, readonly';

-- ---- Bloom filters ----

CREATE FUNCTION shared_bloom_create(name text, n bigint, fpr float8, layout text DEFAULT NULL) RETURNS void
AS 'MODULE_PATHNAME', 'shared_bloom_create' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION shared_bloom_create(text, bigint, float8, text) IS
'Creates a shared Bloom filter sized for n items at false-positive rate fpr, in a layout as bloom_empty takes it (NULL: the SIMD layout that needs least memory)';
REVOKE EXECUTE ON FUNCTION shared_bloom_create(text, bigint, float8, text) FROM PUBLIC;

CREATE FUNCTION shared_create_from(name text, value bloom) RETURNS void
AS 'MODULE_PATHNAME', 'shared_bloom_create_from' LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION shared_create_from(text, bloom) IS
'Creates a shared Bloom filter holding a copy of a bloom value (same layout, size, seed and bits)';
REVOKE EXECUTE ON FUNCTION shared_create_from(text, bloom) FROM PUBLIC;

CREATE FUNCTION shared_bloom_add(name text, item anycompatible) RETURNS boolean
AS 'MODULE_PATHNAME', 'shared_bloom_add' LANGUAGE C VOLATILE SUPPORT sketchshare_support;
COMMENT ON FUNCTION shared_bloom_add(text, anycompatible) IS
'Adds an item to a shared Bloom filter (immediately, not rolled back); true if it was probably new';

CREATE FUNCTION shared_bloom_add_many(name text, items anyarray) RETURNS bigint
AS 'MODULE_PATHNAME', 'shared_bloom_add_many' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION shared_bloom_add_many(text, anyarray) IS
'Adds every non-null element of an array to a shared Bloom filter under one lock acquisition; returns how many were probably new';

CREATE FUNCTION shared_bloom_contains(name text, item anycompatible) RETURNS boolean
AS 'MODULE_PATHNAME', 'shared_bloom_contains' LANGUAGE C VOLATILE PARALLEL SAFE SUPPORT sketchshare_support;
COMMENT ON FUNCTION shared_bloom_contains(text, anycompatible) IS
'True if the item is probably in the shared Bloom filter, false if it is definitely not';

CREATE FUNCTION shared_bloom_clear(name text) RETURNS void
AS 'MODULE_PATHNAME', 'shared_bloom_clear' LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION shared_bloom_clear(text) IS
'Empties a shared Bloom filter (immediately, not rolled back)';

CREATE FUNCTION shared_bloom_merge(name text, value bloom) RETURNS void
AS 'MODULE_PATHNAME', 'shared_bloom_merge' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION shared_bloom_merge(text, bloom) IS
'ORs a bloom value (same layout, size and seed) into a shared Bloom filter';

CREATE FUNCTION shared_bloom_snapshot(name text) RETURNS bloom
AS 'MODULE_PATHNAME', 'shared_bloom_snapshot' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION shared_bloom_snapshot(text) IS
'A point-in-time copy of a shared Bloom filter as a bloom value';

CREATE FUNCTION shared_bloom_stats(name text) RETURNS jsonb
AS 'MODULE_PATHNAME', 'shared_bloom_stats' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION shared_bloom_stats(text) IS
'layout, k, kp, capacity, fp_rate, capacity_bits, bits_set, fill_ratio, count, estimated_fpr, seed, ops, bytes, mmap_size, frozen, readonly, lock_recoveries';
-- Shared reservoirs: a uniform (Algorithm R) or weighted (A-Res) sample of k
-- items kept in a shared object's file and fed by every backend at once.

CREATE FUNCTION shared_reservoir_create(name text, k int, item_size int DEFAULT 256, weighted boolean DEFAULT false)
RETURNS void AS 'MODULE_PATHNAME', 'shared_reservoir_create' LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION shared_reservoir_create(text, int, int, boolean) IS
'Creates a shared reservoir of k items (1..10000000) of at most item_size bytes each (1..1048576; longer items are cut), uniform or weighted (A-Res); owned by the current role';
REVOKE EXECUTE ON FUNCTION shared_reservoir_create(text, int, int, boolean) FROM PUBLIC;

CREATE FUNCTION shared_reservoir_add(name text, item anycompatible) RETURNS boolean
AS 'MODULE_PATHNAME', 'shared_reservoir_add' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION shared_reservoir_add(text, anycompatible) IS
'Offers an item (its text form; bytea: its bytes) to a uniform shared reservoir (immediately, not rolled back); true if it was stored';

CREATE FUNCTION shared_reservoir_add(name text, item anycompatible, weight float8) RETURNS boolean
AS 'MODULE_PATHNAME', 'shared_reservoir_add_weighted' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION shared_reservoir_add(text, anycompatible, float8) IS
'Offers an item with a weight (finite, > 0) to a weighted shared reservoir; true if it was stored';

CREATE FUNCTION shared_reservoir_add_many(name text, items anyarray) RETURNS bigint
AS 'MODULE_PATHNAME', 'shared_reservoir_add_many' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION shared_reservoir_add_many(text, anyarray) IS
'Offers every non-null element of an array to a uniform shared reservoir (1024 under each hold of the lock); returns how many were stored';
CREATE FUNCTION shared_reservoir_add_many(name text, items anyarray, weights float8[]) RETURNS bigint
AS 'MODULE_PATHNAME', 'shared_reservoir_add_many' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION shared_reservoir_add_many(text, anyarray, float8[]) IS
'Offers every non-null element with its weight (one per element) to a weighted shared reservoir (1024 under each hold of the lock); returns how many were stored';

CREATE FUNCTION shared_reservoir_sample(name text) RETURNS SETOF text
AS 'MODULE_PATHNAME', 'shared_reservoir_sample' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION shared_reservoir_sample(text) IS
'The items of a shared reservoir, as text (bytea items in their text form); order is not meaningful';

CREATE FUNCTION shared_reservoir_sample_bytea(name text) RETURNS SETOF bytea
AS 'MODULE_PATHNAME', 'shared_reservoir_sample_bytea' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION shared_reservoir_sample_bytea(text) IS
'The items of a shared reservoir as their stored bytes';

CREATE FUNCTION shared_reservoir_seen(name text) RETURNS bigint
AS 'MODULE_PATHNAME', 'shared_reservoir_seen' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION shared_reservoir_seen(text) IS
'How many items were offered to a shared reservoir (since its creation or last clear)';

CREATE FUNCTION shared_reservoir_count(name text) RETURNS bigint
AS 'MODULE_PATHNAME', 'shared_reservoir_count' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION shared_reservoir_count(text) IS
'How many items a shared reservoir holds: min(seen, k)';

CREATE FUNCTION shared_reservoir_seed(name text, seed bigint) RETURNS void
AS 'MODULE_PATHNAME', 'shared_reservoir_seed' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION shared_reservoir_seed(text, bigint) IS
'Sets the RNG state kept in a shared reservoir''s file, so that the same adds in the same order draw the same sample';

CREATE FUNCTION shared_reservoir_clear(name text) RETURNS void
AS 'MODULE_PATHNAME', 'shared_reservoir_clear' LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION shared_reservoir_clear(text) IS
'Empties a shared reservoir and resets seen to 0 (immediately, not rolled back); the RNG goes on';

CREATE FUNCTION shared_reservoir_stats(name text) RETURNS jsonb
AS 'MODULE_PATHNAME', 'shared_reservoir_stats' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION shared_reservoir_stats(text) IS
'k, item_size, weighted, count, seen, stored, ops, bytes, mmap_size, frozen, readonly, lock_recoveries, journal_replays';
