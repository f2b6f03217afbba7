
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
