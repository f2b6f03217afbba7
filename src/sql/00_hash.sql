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

