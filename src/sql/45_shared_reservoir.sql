-- Shared reservoirs: a uniform (Algorithm R) or weighted (A-Res) sample of k
-- items kept in a shared object's file and fed by every backend at once.

CREATE FUNCTION shared_reservoir_create(name text, k int, item_size int DEFAULT 256, weighted boolean DEFAULT false)
RETURNS void AS 'MODULE_PATHNAME', 'shared_reservoir_create' LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION shared_reservoir_create(text, int, int, boolean) IS
'Creates a shared reservoir of k items (1..10000000) of at most item_size bytes each (1..1048576; longer items are cut), uniform or weighted (A-Res); owned by the current role';
REVOKE EXECUTE ON FUNCTION shared_reservoir_create(text, int, int, boolean) FROM PUBLIC;

-- if_not_exists has no default, so a call without it still resolves to the
-- function above (returning void); every argument is given, so that no call
-- of the function above can match this one too.
CREATE FUNCTION shared_reservoir_create(name text, k int, item_size int, weighted boolean, if_not_exists boolean)
RETURNS boolean AS 'MODULE_PATHNAME', 'shared_reservoir_create_if_not_exists' LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION shared_reservoir_create(text, int, int, boolean, boolean) IS
'shared_reservoir_create; with if_not_exists, a name already taken gives a notice and false instead of an error; true when it created';
REVOKE EXECUTE ON FUNCTION shared_reservoir_create(text, int, int, boolean, boolean) FROM PUBLIC;

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

-- Not STRICT: the second argument is a NULL that names the item type.
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
