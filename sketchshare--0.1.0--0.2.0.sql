-- sketchshare 0.1.0 -> 0.2.0 (ALTER EXTENSION sketchshare UPDATE)

-- Shared reservoirs: typed samples, snapshots and seeding from a value (issue 26)
CREATE FUNCTION shared_reservoir_sample(name text, item_type anyelement) RETURNS SETOF anyelement
AS 'MODULE_PATHNAME', 'shared_reservoir_sample_typed' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION shared_reservoir_sample(text, anyelement) IS
'The items of a shared reservoir as values of their type, named by the second argument (NULL::type), which must be the item type the object records';

CREATE FUNCTION shared_reservoir_snapshot(name text) RETURNS reservoir
AS 'MODULE_PATHNAME', 'shared_reservoir_snapshot' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION shared_reservoir_snapshot(text) IS
'A reservoir value holding a copy of a shared reservoir (items as its recorded item type, else text; k, seen, mode, keys)';

CREATE FUNCTION shared_create_from(name text, value reservoir) RETURNS void
AS 'MODULE_PATHNAME', 'shared_reservoir_create_from' LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION shared_create_from(text, reservoir) IS
'Creates a shared reservoir holding a copy of a reservoir value (k, mode, seen, items, keys; item_size 256 or the longest item); owned by the current role';
REVOKE EXECUTE ON FUNCTION shared_create_from(text, reservoir) FROM PUBLIC;

CREATE FUNCTION shared_reservoir_merge(name text, value reservoir) RETURNS void
AS 'MODULE_PATHNAME', 'shared_reservoir_merge' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION shared_reservoir_merge(text, reservoir) IS
'Merges a reservoir value into a shared reservoir exactly, as reservoir_union_agg merges (immediately, not rolled back); same mode and item type, the value''s k at least the object''s';
