-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION sketchshare" to load this file. \quit

CREATE FUNCTION sketch_hash(value anyelement) RETURNS bytea
AS 'MODULE_PATHNAME', 'sketch_hash'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sketch_hash(anyelement) IS
'XXH3-128 digest (canonical 16-byte form) of the value''s canonical bytes; every sketchshare structure hashes items this way';

-- PostgreSQL cannot resolve anyelement from an untyped literal, so every
-- function taking an item has a text twin: sketch_hash('hello') hashes text.
CREATE FUNCTION sketch_hash(value text) RETURNS bytea
AS 'MODULE_PATHNAME', 'sketch_hash'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sketch_hash(text) IS
'XXH3-128 digest of text (and of untyped literals); same as sketch_hash(anyelement) on text';
