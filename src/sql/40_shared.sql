-- Shared objects: named, file-backed structures that every backend of the
-- database uses at once. The catalog (names, kinds, owners, grants) is kept in
-- tables so that create, drop, grant and revoke follow the transaction; the
-- data lives in $PGDATA/sketchshare/<database oid>/<name>, mapped MAP_SHARED.

CREATE SCHEMA sketchshare_shared;
COMMENT ON SCHEMA sketchshare_shared IS
'sketchshare: catalog of shared objects (read it through the shared_objects view)';
REVOKE ALL ON SCHEMA sketchshare_shared FROM PUBLIC;

-- Roles are regrole, so that a dump names them and a restore on another
-- server finds its own roles of those names. image is the object's file as of
-- its create, attach, last shared_sync or freeze (docs/operations.md,
-- "Backups and copies"): pg_dump carries it with the row (these tables are extension
-- configuration tables, below), and a missing file is written again from it.
CREATE TABLE sketchshare_shared.objects (
    name text PRIMARY KEY,
    kind text NOT NULL CHECK (kind IN ('bloom', 'cbf', 'reservoir')),
    owner regrole NOT NULL,
    file_id bigint NOT NULL,
    readonly boolean NOT NULL DEFAULT false,
    created timestamptz NOT NULL DEFAULT now(),
    image bytea,
    image_taken timestamptz
);
COMMENT ON TABLE sketchshare_shared.objects IS
'sketchshare: one row per shared object; file_id names the incarnation of its file, image holds the file as of its last shared_sync';
-- An image is compressed with lz4 where the server has it: pglz, the
-- default, took about ten times as long to store a filter's image.
DO $$
BEGIN
    IF (SELECT 'lz4' OPERATOR(pg_catalog.=) ANY (s.enumvals) FROM pg_catalog.pg_settings s
        WHERE s.name OPERATOR(pg_catalog.=) 'default_toast_compression') THEN
        ALTER TABLE sketchshare_shared.objects ALTER COLUMN image SET COMPRESSION lz4;
    END IF;
END
$$;

CREATE TABLE sketchshare_shared.grants (
    name text NOT NULL REFERENCES sketchshare_shared.objects ON DELETE CASCADE,
    grantee regrole NOT NULL,
    privilege text NOT NULL CHECK (privilege IN ('read', 'write')),
    PRIMARY KEY (name, grantee, privilege)
);
COMMENT ON TABLE sketchshare_shared.grants IS
'sketchshare: privileges granted on shared objects with shared_grant';
REVOKE ALL ON sketchshare_shared.objects, sketchshare_shared.grants FROM PUBLIC;
-- pg_dump reads these tables (configuration tables, below), so the
-- database's owner may read them, as pg_database_owner: its dump of its own
-- database then works without superuser. It sees every object's row and
-- image, its own or not (docs/operations.md, "Backups and copies").
GRANT USAGE ON SCHEMA sketchshare_shared TO pg_database_owner;
GRANT SELECT ON sketchshare_shared.objects, sketchshare_shared.grants TO pg_database_owner;

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

-- pg_dump writes the rows of objects and grants (not home: the database a
-- restore creates the extension in writes its own), and pg_restore loads
-- them after CREATE EXTENSION. Rows loaded into a database whose catalog
-- names another (made by CREATE DATABASE from a template that had the
-- extension) take the catalog over, as a create there would (claim_catalog):
-- the template's rows go first.
SELECT pg_catalog.pg_extension_config_dump('sketchshare_shared.objects', '');
SELECT pg_catalog.pg_extension_config_dump('sketchshare_shared.grants', '');
CREATE FUNCTION sketchshare_shared.claim_catalog() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    here oid := (SELECT d.oid FROM pg_catalog.pg_database d
                 WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database());
BEGIN
    IF EXISTS (SELECT FROM sketchshare_shared.home h WHERE h.db OPERATOR(pg_catalog.=) here) THEN
        RETURN NULL;
    END IF;
    DELETE FROM sketchshare_shared.grants;
    DELETE FROM sketchshare_shared.objects;
    INSERT INTO sketchshare_shared.home AS h (db) VALUES (here) ON CONFLICT (one) DO UPDATE SET db = here;
    RETURN NULL;
END
$$;
COMMENT ON FUNCTION sketchshare_shared.claim_catalog() IS
'sketchshare: before rows are loaded into the catalog of shared objects (a restore), removes those of another database''s copy';
CREATE TRIGGER claim_catalog BEFORE INSERT ON sketchshare_shared.objects
    FOR EACH STATEMENT EXECUTE FUNCTION sketchshare_shared.claim_catalog();

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
    OUT layout text, OUT m bigint, OUT k int, OUT status text, OUT expansion int, OUT items_held bigint,
    OUT subfilters int)
AS 'MODULE_PATHNAME', 'shared_file_info'
LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION sketchshare_shared.file_info(text) IS
'sketchshare: facts read from a shared object''s file header (status says why a file is unusable)';

-- A missing file of an object with an image (a restored dump's, before its
-- first use) is no damage: its status says what its first use does.
-- Each role sees the objects it has some right on: those of roles whose
-- privileges it has (its own; superusers: all) and those granted to such a
-- role, as the shared_* functions decide (has_privs_of_role). A security
-- barrier: a condition of the caller's query sees only those rows.
CREATE VIEW shared_objects WITH (security_barrier) AS
SELECT o.name, o.kind, o.owner::regrole AS owner, i.bytes, i.frozen, o.readonly,
       i.capacity, i.fpr, i.expansion, i.subfilters, i.items_held, i.layout, i.m, i.k, i.ops,
       CASE WHEN o.image IS NOT NULL AND i.status OPERATOR(pg_catalog.~~) '% is missing'
            THEN 'missing: written from its image at first use' ELSE i.status END AS status,
       o.created
FROM sketchshare_shared.objects o
LEFT JOIN LATERAL sketchshare_shared.file_info(o.name) i ON true
WHERE (SELECT h.db FROM sketchshare_shared.home h) OPERATOR(pg_catalog.=)
      (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database())
  AND (pg_catalog.pg_has_role(o.owner, 'USAGE')
       OR EXISTS (SELECT FROM sketchshare_shared.grants g
                  WHERE g.name OPERATOR(pg_catalog.=) o.name AND pg_catalog.pg_has_role(g.grantee, 'USAGE')));
COMMENT ON VIEW shared_objects IS
'Shared objects of this database that the current role owns or was granted (superusers: all): name, kind, owner, file size, frozen, read-only (attached), geometry (capacity, fpr, expansion: 0 for a fixed size, layout, m = counters or bits, k = hashes, of the first sub-filter), sub-filters, items held (Bloom and counting filters), write calls so far, and the file''s status';
GRANT SELECT ON shared_objects TO PUBLIC;

-- ---- every kind ----

CREATE FUNCTION shared_freeze(name text) RETURNS void
AS 'MODULE_PATHNAME', 'shared_freeze' LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION shared_freeze(text) IS
'Seals a shared object: from now on it refuses every change and is read without locking (owner only; there is no unfreeze)';

CREATE FUNCTION shared_sync(name text) RETURNS void
AS 'MODULE_PATHNAME', 'shared_sync' LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION shared_sync(text) IS
'Flushes a shared object''s file to disk (msync), reports any I/O error, and stores its image in the catalog (what pg_dump carries)';

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

CREATE FUNCTION shared_cbf_create(name text, capacity bigint, fpr float8 DEFAULT 0.01, layout text DEFAULT NULL,
                                  expansion int DEFAULT 2)
RETURNS void AS 'MODULE_PATHNAME', 'shared_cbf_create' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION shared_cbf_create(text, bigint, float8, text, int) IS
'Creates a shared counting Bloom filter sized for capacity items at false-positive rate fpr, in a layout as cbf_empty takes it (NULL: classic); expansion 0: a fixed size that refuses adds past capacity; owned by the current role';
-- Creating reserves disk space: a privilege a superuser grants
-- (docs/shared-objects.md, Privileges), as for every create function.
REVOKE EXECUTE ON FUNCTION shared_cbf_create(text, bigint, float8, text, int) FROM PUBLIC;

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
'Adds an item to a shared counting Bloom filter when the transaction commits; true if it was probably new (waits for a transaction adding the same item)';

CREATE FUNCTION shared_cbf_add(name text, item anycompatible, transactional boolean) RETURNS boolean
AS 'MODULE_PATHNAME', 'shared_cbf_add' LANGUAGE C VOLATILE SUPPORT sketchshare_support;
COMMENT ON FUNCTION shared_cbf_add(text, anycompatible, boolean) IS
'Adds an item to a shared counting Bloom filter; transactional => false adds it at once (not rolled back, no waits)';

CREATE FUNCTION shared_cbf_add_many(name text, items anyarray) RETURNS bigint
AS 'MODULE_PATHNAME', 'shared_cbf_add_many' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION shared_cbf_add_many(text, anyarray) IS
'Adds every non-null element of an array when the transaction commits; returns how many were probably new';

CREATE FUNCTION shared_cbf_add_many(name text, items anyarray, transactional boolean) RETURNS bigint
AS 'MODULE_PATHNAME', 'shared_cbf_add_many' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION shared_cbf_add_many(text, anyarray, boolean) IS
'Adds every non-null element of an array; transactional => false adds them at once under one lock acquisition (not rolled back)';

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

CREATE FUNCTION shared_bloom_create(name text, n bigint, fpr float8, layout text DEFAULT NULL, expansion int DEFAULT 2)
RETURNS void AS 'MODULE_PATHNAME', 'shared_bloom_create' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION shared_bloom_create(text, bigint, float8, text, int) IS
'Creates a shared Bloom filter sized for n items at false-positive rate fpr, in a layout as bloom_empty takes it (NULL: the SIMD layout that needs least memory); expansion 0: a fixed size that refuses adds past n';
REVOKE EXECUTE ON FUNCTION shared_bloom_create(text, bigint, float8, text, int) FROM PUBLIC;

CREATE FUNCTION shared_create_from(name text, value bloom) RETURNS void
AS 'MODULE_PATHNAME', 'shared_bloom_create_from' LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION shared_create_from(text, bloom) IS
'Creates a shared Bloom filter holding a copy of a bloom value (same layout, size, seed and bits)';
REVOKE EXECUTE ON FUNCTION shared_create_from(text, bloom) FROM PUBLIC;

CREATE FUNCTION shared_bloom_add(name text, item anycompatible) RETURNS boolean
AS 'MODULE_PATHNAME', 'shared_bloom_add' LANGUAGE C VOLATILE SUPPORT sketchshare_support;
COMMENT ON FUNCTION shared_bloom_add(text, anycompatible) IS
'Adds an item to a shared Bloom filter when the transaction commits; true if it was probably new (waits for a transaction adding the same item)';

CREATE FUNCTION shared_bloom_add(name text, item anycompatible, transactional boolean) RETURNS boolean
AS 'MODULE_PATHNAME', 'shared_bloom_add' LANGUAGE C VOLATILE SUPPORT sketchshare_support;
COMMENT ON FUNCTION shared_bloom_add(text, anycompatible, boolean) IS
'Adds an item to a shared Bloom filter; transactional => false adds it at once (not rolled back, no waits)';

CREATE FUNCTION shared_bloom_add_many(name text, items anyarray) RETURNS bigint
AS 'MODULE_PATHNAME', 'shared_bloom_add_many' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION shared_bloom_add_many(text, anyarray) IS
'Adds every non-null element of an array to a shared Bloom filter when the transaction commits; returns how many were probably new';

CREATE FUNCTION shared_bloom_add_many(name text, items anyarray, transactional boolean) RETURNS bigint
AS 'MODULE_PATHNAME', 'shared_bloom_add_many' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION shared_bloom_add_many(text, anyarray, boolean) IS
'Adds every non-null element of an array to a shared Bloom filter; transactional => false adds them at once under one lock acquisition (not rolled back)';

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

-- ---- create if not exists, lookups of many items ----
-- if_not_exists has no default, so a call without it still resolves to the
-- functions above (returning void); it comes before layout, where an untyped
-- literal still resolves to the layout, and after cbf's fpr, which an untyped
-- literal ('NaN') could otherwise give either overload.

CREATE FUNCTION shared_bloom_create(name text, n bigint, fpr float8, if_not_exists boolean, layout text DEFAULT NULL,
                                    expansion int DEFAULT 2)
RETURNS boolean AS 'MODULE_PATHNAME', 'shared_bloom_create_if_not_exists' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION shared_bloom_create(text, bigint, float8, boolean, text, int) IS
'shared_bloom_create; with if_not_exists, a name already taken gives a notice and false instead of an error; true when it created';
REVOKE EXECUTE ON FUNCTION shared_bloom_create(text, bigint, float8, boolean, text, int) FROM PUBLIC;

CREATE FUNCTION shared_cbf_create(name text, capacity bigint, fpr float8, if_not_exists boolean, layout text DEFAULT NULL,
                                  expansion int DEFAULT 2)
RETURNS boolean AS 'MODULE_PATHNAME', 'shared_cbf_create_if_not_exists' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION shared_cbf_create(text, bigint, float8, boolean, text, int) IS
'shared_cbf_create; with if_not_exists, a name already taken gives a notice and false instead of an error; true when it created';
REVOKE EXECUTE ON FUNCTION shared_cbf_create(text, bigint, float8, boolean, text, int) FROM PUBLIC;

CREATE FUNCTION shared_bloom_contains_many(name text, items anyarray) RETURNS boolean[]
AS 'MODULE_PATHNAME', 'shared_bloom_contains_many' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION shared_bloom_contains_many(text, anyarray) IS
'shared_bloom_contains of each element, in an array of the same shape (NULL for a NULL element)';

CREATE FUNCTION shared_cbf_contains_many(name text, items anyarray) RETURNS boolean[]
AS 'MODULE_PATHNAME', 'shared_cbf_contains_many' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION shared_cbf_contains_many(text, anyarray) IS
'shared_cbf_contains of each element, in an array of the same shape (NULL for a NULL element)';
