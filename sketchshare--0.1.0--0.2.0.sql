-- sketchshare 0.1.0 -> 0.2.0 (ALTER EXTENSION sketchshare UPDATE)
\echo Use "ALTER EXTENSION sketchshare UPDATE" to load this file. \quit

-- Each change of 0.2.0 to the SQL objects adds its statements here, so that an
-- updated database ends with the objects a fresh 0.2.0 install creates
-- (test/scripts/upgrade.sh compares the two catalogs). The packaging of 0.2.0
-- (license, META.json, the Debian package) changes no SQL object.

-- issue 25 (Citus): the item aggregates for common item types, src/sql/35_typed_aggregates.sql
-- ==== the item aggregates for common item types (docs/citus.md) ====
-- bloom_agg, cbf_agg, reservoir_sample and reservoir_agg take anycompatible
-- items. Citus runs an aggregate on its workers through worker_partial_agg,
-- which refuses one whose declared argument type differs from the actual one
-- and calls the support functions without any expression to resolve a
-- polymorphic type from. So each has an overload per common item type, whose
-- transition (and reservoir_sample's final) function declares that type: the
-- C functions read it from their own declaration. A call picks the overload
-- of its item's type exactly; every type that converts implicitly to one of
-- these has an overload of its own, so no call changes type or hash (a
-- domain over one of them now takes its base type's: a sample of it is an
-- array of the base type).

DO $typed$
DECLARE
    t text;
    item_types CONSTANT text[] := ARRAY['smallint', 'integer', 'bigint', 'numeric', 'real', 'double precision',
        'boolean', 'text', 'character varying', 'character', 'name', '"char"', 'bytea', 'uuid', 'date',
        'timestamp without time zone', 'timestamp with time zone'];
    -- (name, extra arguments, state, transition function, final function or '', C transition symbol, volatility, SSPACE, comment)
    aggs CONSTANT text[][] := ARRAY[
        ['bloom_agg', 'n bigint, fpr float8', 'bloom', 'bloom_agg_trans', 'bloom_agg_final', 'bloom_agg_trans', 'IMMUTABLE', '131072',
         'Bloom filter of the items, sized for n items at false-positive rate fpr in the default layout'],
        ['bloom_agg', 'n bigint, fpr float8, layout text', 'bloom', 'bloom_agg_trans', 'bloom_agg_final', 'bloom_agg_trans', 'IMMUTABLE', '131072',
         'Bloom filter of the items, sized for n items at false-positive rate fpr in the given layout'],
        ['cbf_agg', 'capacity bigint', 'cbf', 'cbf_agg_trans', 'cbf_agg_final', 'cbf_agg_trans', 'IMMUTABLE', '12336',
         'counting Bloom filter of the items (fpr 0.01); NULL items are skipped'],
        ['cbf_agg', 'capacity bigint, fpr float8', 'cbf', 'cbf_agg_trans', 'cbf_agg_final', 'cbf_agg_trans', 'IMMUTABLE', '12336',
         'counting Bloom filter of the items sized for capacity and fpr; NULL items are skipped'],
        ['reservoir_sample', 'k integer', 'reservoir', 'reservoir_sample_trans', '', 'reservoir_trans', 'VOLATILE', '1024',
         'A uniform random sample of k of the non-NULL values (all of them when fewer), as an array'],
        ['reservoir_sample', 'k integer, weight double precision', 'reservoir', 'reservoir_sample_trans', '', 'reservoir_trans', 'VOLATILE', '1024',
         'A weighted random sample of k values without replacement, as an array; weights must be finite and > 0'],
        ['reservoir_agg', 'k integer', 'reservoir', 'reservoir_sample_trans', 'reservoir_agg_final', 'reservoir_trans', 'VOLATILE', '1024',
         'A uniform random sample of k of the values as a reservoir value'],
        ['reservoir_agg', 'k integer, weight double precision', 'reservoir', 'reservoir_sample_trans', 'reservoir_agg_final', 'reservoir_trans', 'VOLATILE', '1024',
         'A weighted random sample of k of the values as a reservoir value']];
    args text;
    final text;
    sampling boolean;
BEGIN
    FOREACH t IN ARRAY item_types LOOP
        FOR i IN 1 .. pg_catalog.array_length(aggs, 1) LOOP
            args := pg_catalog.format('item %s, %s', t, aggs[i][2]);
            sampling := aggs[i][1] OPERATOR(pg_catalog.=) 'reservoir_sample';
            -- the transition function of the item type (reservoir_sample and reservoir_agg share theirs)
            EXECUTE pg_catalog.format('CREATE OR REPLACE FUNCTION @extschema@.%s(state @extschema@.%s, %s) RETURNS @extschema@.%s AS %L, %L LANGUAGE C %s CALLED ON NULL INPUT PARALLEL SAFE',
                           aggs[i][4], aggs[i][3], args, aggs[i][3], 'MODULE_PATHNAME', aggs[i][6], aggs[i][7]);
            EXECUTE pg_catalog.format('COMMENT ON FUNCTION @extschema@.%s(state @extschema@.%s, %s) IS %L', aggs[i][4], aggs[i][3], args,
                           pg_catalog.format('transition function of %s for %s items',
                                  CASE WHEN aggs[i][3] OPERATOR(pg_catalog.=) 'reservoir' THEN 'reservoir_sample and reservoir_agg'
                                       ELSE aggs[i][1] END, t));
            final := aggs[i][5];
            IF sampling THEN
                -- the final function declares the array type the aggregate returns, which Citus checks
                final := 'reservoir_sample_final';
                EXECUTE pg_catalog.format('CREATE FUNCTION @extschema@.%s(@extschema@.reservoir, %s) RETURNS %s[] AS %L, %L LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE',
                               final, args, t, 'MODULE_PATHNAME', 'reservoir_sample_final');
                EXECUTE pg_catalog.format('COMMENT ON FUNCTION @extschema@.%s(@extschema@.reservoir, %s) IS %L', final, args,
                               pg_catalog.format('reservoir_sample final function for %s items', t));
            END IF;
            EXECUTE pg_catalog.format('CREATE AGGREGATE @extschema@.%s(%s) (SFUNC = @extschema@.%s, STYPE = @extschema@.%s, FINALFUNC = @extschema@.%s%s, COMBINEFUNC = @extschema@.%s_combine, SSPACE = %s, PARALLEL = SAFE)',
                           aggs[i][1], args, aggs[i][4], aggs[i][3], final,
                           CASE WHEN sampling THEN ', FINALFUNC_EXTRA' ELSE '' END,
                           CASE WHEN aggs[i][3] OPERATOR(pg_catalog.=) 'reservoir' THEN 'reservoir' ELSE aggs[i][3] OPERATOR(pg_catalog.||) '_agg' END,
                           aggs[i][8]);
            EXECUTE pg_catalog.format('COMMENT ON AGGREGATE @extschema@.%s(%s) IS %L', aggs[i][1], args,
                           pg_catalog.format('%s (the overload for %s items)', aggs[i][9], t));
        END LOOP;
    END LOOP;
END
$typed$;

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

-- ---- lookups of many items, create if not exists ----
-- (the if_not_exists forms of shared_bloom_create and shared_cbf_create are
-- made in their final forms by the fixed-size change below)

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
-- transactional adds (issue 24, part 1): the adds take part in the transaction; the
-- overloads with a transactional argument keep the immediate adds of 0.1.0 by choice

CREATE FUNCTION shared_cbf_add(name text, item anycompatible, transactional boolean) RETURNS boolean
AS 'MODULE_PATHNAME', 'shared_cbf_add' LANGUAGE C VOLATILE SUPPORT sketchshare_support;
COMMENT ON FUNCTION shared_cbf_add(text, anycompatible, boolean) IS
'Adds an item to a shared counting Bloom filter; transactional => false adds it at once (not rolled back, no waits)';

CREATE FUNCTION shared_cbf_add_many(name text, items anyarray, transactional boolean) RETURNS bigint
AS 'MODULE_PATHNAME', 'shared_cbf_add_many' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION shared_cbf_add_many(text, anyarray, boolean) IS
'Adds every non-null element of an array; transactional => false adds them at once under one lock acquisition (not rolled back)';

CREATE FUNCTION shared_bloom_add(name text, item anycompatible, transactional boolean) RETURNS boolean
AS 'MODULE_PATHNAME', 'shared_bloom_add' LANGUAGE C VOLATILE SUPPORT sketchshare_support;
COMMENT ON FUNCTION shared_bloom_add(text, anycompatible, boolean) IS
'Adds an item to a shared Bloom filter; transactional => false adds it at once (not rolled back, no waits)';

CREATE FUNCTION shared_bloom_add_many(name text, items anyarray, transactional boolean) RETURNS bigint
AS 'MODULE_PATHNAME', 'shared_bloom_add_many' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION shared_bloom_add_many(text, anyarray, boolean) IS
'Adds every non-null element of an array to a shared Bloom filter; transactional => false adds them at once under one lock acquisition (not rolled back)';

COMMENT ON FUNCTION shared_cbf_add(text, anycompatible) IS
'Adds an item to a shared counting Bloom filter when the transaction commits; true if it was probably new (waits for a transaction adding the same item)';

COMMENT ON FUNCTION shared_cbf_add_many(text, anyarray) IS
'Adds every non-null element of an array when the transaction commits; returns how many were probably new';

COMMENT ON FUNCTION shared_bloom_add(text, anycompatible) IS
'Adds an item to a shared Bloom filter when the transaction commits; true if it was probably new (waits for a transaction adding the same item)';

COMMENT ON FUNCTION shared_bloom_add_many(text, anyarray) IS
'Adds every non-null element of an array to a shared Bloom filter when the transaction commits; returns how many were probably new';

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

-- Shared objects survive dump and restore (issue 26): the catalog's roles as
-- regrole, each object's file image, the catalog as extension configuration
-- tables, the claim of a copy's catalog by a restore. The view reads the
-- retyped column, so it is made again after it, in its final form: with the
-- columns of file_info that the fixed-size filters (expansion, items_held)
-- and the growth of scaling filters (subfilters) add below.
DROP VIEW shared_objects;
ALTER TABLE sketchshare_shared.objects ALTER COLUMN owner TYPE regrole,
    ADD COLUMN image bytea, ADD COLUMN image_taken timestamptz;
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
ALTER TABLE sketchshare_shared.grants ALTER COLUMN grantee TYPE regrole;

DROP FUNCTION sketchshare_shared.file_info(text);
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

-- Fixed-size shared filters (issue 24, part 2): the expansion argument of shared_bloom_create and
-- shared_cbf_create, and expansion and items_held in shared_objects (made with the view above)
-- The create functions are made here in their final forms, with the if_not_exists forms of
-- issue 24, parts 3 and 4 (above) and the layout argument of shared_cbf_create (below).
-- 0.1.0's forms are renamed, not dropped, until the EXECUTE grants a superuser gave on them
-- are listed in a warning with the statements that give them on the new ones (a grant made by
-- this script would count as the extension's own privilege, which pg_dump leaves out).
ALTER FUNCTION shared_bloom_create(text, bigint, float8, text) RENAME TO sketchshare_old_bloom_create;
ALTER FUNCTION shared_cbf_create(text, bigint, float8) RENAME TO sketchshare_old_cbf_create;

CREATE FUNCTION shared_cbf_create(name text, capacity bigint, fpr float8 DEFAULT 0.01, layout text DEFAULT NULL,
                                  expansion int DEFAULT 2)
RETURNS void AS 'MODULE_PATHNAME', 'shared_cbf_create' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION shared_cbf_create(text, bigint, float8, text, int) IS
'Creates a shared counting Bloom filter sized for capacity items at false-positive rate fpr, in a layout as cbf_empty takes it (NULL: classic); expansion 0: a fixed size that refuses adds past capacity; owned by the current role';
-- Creating reserves disk space: a privilege a superuser grants
-- (docs/shared-objects.md, Privileges), as for every create function.
REVOKE EXECUTE ON FUNCTION shared_cbf_create(text, bigint, float8, text, int) FROM PUBLIC;

CREATE FUNCTION shared_bloom_create(name text, n bigint, fpr float8, layout text DEFAULT NULL, expansion int DEFAULT 2)
RETURNS void AS 'MODULE_PATHNAME', 'shared_bloom_create' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION shared_bloom_create(text, bigint, float8, text, int) IS
'Creates a shared Bloom filter sized for n items at false-positive rate fpr, in a layout as bloom_empty takes it (NULL: the SIMD layout that needs least memory); expansion 0: a fixed size that refuses adds past n';
REVOKE EXECUTE ON FUNCTION shared_bloom_create(text, bigint, float8, text, int) FROM PUBLIC;

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

-- Drops the create functions of 0.1.0 (each with its new signature), first
-- naming in a WARNING each role that had EXECUTE on one, with the GRANT to
-- give it again on the new.
DO $replace$
DECLARE
    pairs CONSTANT text[] := ARRAY[
        ['sketchshare_old_bloom_create(text, bigint, float8, text)', 'shared_bloom_create(text, bigint, float8, text, int)'],
        ['sketchshare_old_cbf_create(text, bigint, float8)', 'shared_cbf_create(text, bigint, float8, text, int)']];
    g record;
BEGIN
    FOR i IN 1 .. pg_catalog.array_length(pairs, 1) LOOP
        FOR g IN SELECT a.grantee FROM pg_catalog.pg_proc p, pg_catalog.aclexplode(p.proacl) a
                 WHERE p.oid OPERATOR(pg_catalog.=) pairs[i][1]::pg_catalog.regprocedure
                   AND a.privilege_type OPERATOR(pg_catalog.=) 'EXECUTE'
                   AND a.grantee OPERATOR(pg_catalog.<>) p.proowner
        LOOP
            RAISE WARNING 'the update replaces a create function on which a role had EXECUTE: give it again'
                USING DETAIL = pg_catalog.format('GRANT EXECUTE ON FUNCTION %s TO %s;', pairs[i][2],
                    CASE WHEN g.grantee OPERATOR(pg_catalog.=) 0 THEN 'PUBLIC'
                         ELSE g.grantee::pg_catalog.regrole::pg_catalog.text END);
        END LOOP;
        EXECUTE pg_catalog.format('DROP FUNCTION %s', pairs[i][1]);
    END LOOP;
END
$replace$;

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

COMMENT ON FUNCTION shared_sync(text) IS
'Flushes a shared object''s file to disk (msync), reports any I/O error, and stores its image in the catalog (what pg_dump carries)';

-- The objects of 0.1.0 get their images now (status 'ok': a damaged or
-- missing file keeps none, and the update goes on).
SELECT shared_sync(name) FROM shared_objects WHERE status OPERATOR(pg_catalog.=) 'ok';
-- Type modifiers: bloom(n, fpr[, layout]) and cbf(capacity[, fpr]) fix a column's geometry (issue 26)
CREATE FUNCTION bloom_typmod_in(cstring[]) RETURNS integer
AS 'MODULE_PATHNAME', 'bloom_typmod_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_typmod_out(integer) RETURNS cstring
AS 'MODULE_PATHNAME', 'bloom_typmod_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
ALTER TYPE bloom SET (TYPMOD_IN = bloom_typmod_in, TYPMOD_OUT = bloom_typmod_out);
COMMENT ON FUNCTION bloom_typmod_in(cstring[]) IS
'bloom(n, fpr[, layout]) type modifier: n to 3 significant digits, fpr to 1, the layout as an index';
COMMENT ON FUNCTION bloom_typmod_out(integer) IS 'the bloom type modifier as (n,fpr[,''layout''])';
CREATE FUNCTION bloom(bloom, integer, boolean) RETURNS bloom
AS 'MODULE_PATHNAME', 'bloom_enforce_typmod' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom(bloom, integer, boolean) IS
'the filter, if its geometry is the one of the type modifier (bloom(n, fpr[, layout])); an error otherwise';
CREATE CAST (bloom AS bloom) WITH FUNCTION bloom(bloom, integer, boolean) AS IMPLICIT;
COMMENT ON CAST (bloom AS bloom) IS 'checks a filter against the type modifier of its destination';

CREATE FUNCTION cbf_typmod_in(cstring[]) RETURNS integer
AS 'MODULE_PATHNAME', 'cbf_typmod_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION cbf_typmod_out(integer) RETURNS cstring
AS 'MODULE_PATHNAME', 'cbf_typmod_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
ALTER TYPE cbf SET (TYPMOD_IN = cbf_typmod_in, TYPMOD_OUT = cbf_typmod_out);
COMMENT ON FUNCTION cbf_typmod_in(cstring[]) IS
'cbf(capacity[, fpr]) type modifier: capacity to 3 significant digits, fpr (default 0.01) to 1';
COMMENT ON FUNCTION cbf_typmod_out(integer) IS 'the cbf type modifier as (capacity,fpr)';
CREATE FUNCTION cbf(cbf, integer, boolean) RETURNS cbf
AS 'MODULE_PATHNAME', 'cbf_enforce_typmod' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbf(cbf, integer, boolean) IS
'the filter, if its counters and hashes are those of the type modifier (cbf(capacity[, fpr])); an error otherwise';
CREATE CAST (cbf AS cbf) WITH FUNCTION cbf(cbf, integer, boolean) AS IMPLICIT;
COMMENT ON CAST (cbf AS cbf) IS 'checks a filter against the type modifier of its destination';

-- The compact text form of bloom and cbf: b64: and base64 out, base64 or 0.1.0's hex in (issue 26)
COMMENT ON TYPE bloom IS
'Bloom filter (any Boost.Bloom layout, or cbf<K>): a versioned header and a bit array; text form b64: + base64 of the binary form';
COMMENT ON FUNCTION bloom_in(cstring) IS 'bloom text input: b64: followed by the base64 of the binary form (or 0.1.0''s \x and hex), validated';
COMMENT ON FUNCTION bloom_out(bloom) IS 'bloom text output: b64: followed by the base64 of the binary form';
COMMENT ON FUNCTION cbf_in(cstring) IS 'text input of cbf: b64: followed by the base64 of its byte form (or 0.1.0''s \x and hex)';
COMMENT ON FUNCTION cbf_out(cbf) IS 'text output of cbf: b64: followed by the base64 of its byte form';
-- Blocked counting filter layouts (issue 27, part 1): cbf_empty and cbf_agg take a layout,
-- cbf_capacity_for and cbf_fpr_for size them, cbf_stats shows it
-- Not strict: a NULL layout is classic, as for shared_cbf_create and bloom_empty.
CREATE FUNCTION cbf_empty(capacity bigint, fpr float8, layout text) RETURNS cbf
AS 'MODULE_PATHNAME', 'cbf_empty' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cbf_empty(bigint, float8, text) IS
'an empty counting Bloom filter of a layout (classic, classic<K>, block, block<K>: all K counters of an item in one 64-byte line; NULL: classic) sized for capacity items at false-positive rate fpr';

-- Not strict: a NULL layout is classic, as cbf_empty takes it.
CREATE FUNCTION cbf_capacity_for(n bigint, fpr float8, layout text DEFAULT 'classic') RETURNS bigint
AS 'MODULE_PATHNAME', 'cbf_capacity_for' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cbf_capacity_for(bigint, float8, text) IS
'the counters (m) cbf_empty(n, fpr, layout) allocates: half as many bytes';
CREATE FUNCTION cbf_fpr_for(n bigint, counters bigint, layout text) RETURNS float8
AS 'MODULE_PATHNAME', 'cbf_fpr_for' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbf_fpr_for(bigint, bigint, text) IS
'the false-positive rate the formulas predict after n distinct items in a filter of that many counters and layout (without K: the best K)';

CREATE FUNCTION cbf_agg_trans(state cbf, item anycompatible, capacity bigint, fpr float8, layout text) RETURNS cbf
AS 'MODULE_PATHNAME', 'cbf_agg_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cbf_agg_trans(cbf, anycompatible, bigint, float8, text) IS 'transition function of cbf_agg';
CREATE AGGREGATE cbf_agg(item anycompatible, capacity bigint, fpr float8, layout text) (
    SFUNC = cbf_agg_trans, STYPE = cbf, FINALFUNC = cbf_agg_final,
    COMBINEFUNC = cbf_agg_combine, SSPACE = 12336, PARALLEL = SAFE);
COMMENT ON AGGREGATE cbf_agg(anycompatible, bigint, float8, text) IS
'counting Bloom filter of the items in a layout (classic, block, ...) sized for capacity and fpr; NULL items are skipped';

-- the overloads per item type (src/sql/35_typed_aggregates.sql) of the new cbf_agg
DO $typed_layout$
DECLARE
    t text;
    args text;
BEGIN
    FOREACH t IN ARRAY ARRAY['smallint', 'integer', 'bigint', 'numeric', 'real', 'double precision',
        'boolean', 'text', 'character varying', 'character', 'name', '"char"', 'bytea', 'uuid', 'date',
        'timestamp without time zone', 'timestamp with time zone'] LOOP
        args := pg_catalog.format('item %s, capacity bigint, fpr float8, layout text', t);
        EXECUTE pg_catalog.format('CREATE OR REPLACE FUNCTION @extschema@.cbf_agg_trans(state @extschema@.cbf, %s) RETURNS @extschema@.cbf AS %L, %L LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE',
                       args, 'MODULE_PATHNAME', 'cbf_agg_trans');
        EXECUTE pg_catalog.format('COMMENT ON FUNCTION @extschema@.cbf_agg_trans(state @extschema@.cbf, %s) IS %L', args,
                       pg_catalog.format('transition function of cbf_agg for %s items', t));
        EXECUTE pg_catalog.format('CREATE AGGREGATE @extschema@.cbf_agg(%s) (SFUNC = @extschema@.cbf_agg_trans, STYPE = @extschema@.cbf, FINALFUNC = @extschema@.cbf_agg_final, COMBINEFUNC = @extschema@.cbf_agg_combine, SSPACE = 12336, PARALLEL = SAFE)',
                       args);
        EXECUTE pg_catalog.format('COMMENT ON AGGREGATE @extschema@.cbf_agg(%s) IS %L', args,
                       pg_catalog.format('counting Bloom filter of the items in a layout (classic, block, ...) sized for capacity and fpr; NULL items are skipped (the overload for %s items)', t));
    END LOOP;
END
$typed_layout$;

COMMENT ON FUNCTION cbf_stats(cbf) IS
'layout, capacity, fp_rate, counters (m), hashes (k), counters_set, count, fill_ratio, estimated_fpr, saturated (counters at 15) and bytes of a filter';
COMMENT ON FUNCTION cbf_merge(cbf, cbf) IS
'counter-wise saturating sum of two filters of the same geometry (layout, m and k); keeps the capacity and fpr of a';
COMMENT ON FUNCTION cbf_to_bloom(cbf) IS
'projection onto a bloom with the same m and k (a bit set where a counter is nonzero; layout cbf<k> for classic<k>, block<uint64[2],k> for block<k>): a quarter of the size, and bloom_contains answers as cbf_contains did';

-- The database's owner reads the catalog tables, so that its pg_dump works
-- (src/sql/40_shared.sql).
GRANT USAGE ON SCHEMA sketchshare_shared TO pg_database_owner;
GRANT SELECT ON sketchshare_shared.objects, sketchshare_shared.grants TO pg_database_owner;

-- Growth of scaling shared filters (issue 24, part 2): shared_objects shows the sub-filters
-- (the subfilters column of file_info, made with the view in the dump and restore change above)

-- Blocked layouts of shared counting filters (issue 27, part 1): the layout argument of shared_cbf_create
-- (made with its other arguments in the fixed-size change above)

-- A full filter's count was its capacity, which hid that it was past it.
COMMENT ON FUNCTION cbf_count(cbf) IS
'estimated number of distinct items present: -(m/k) ln(1 - X/m) with X nonzero counters; with every counter set, X = m - 1/2 (a lower bound)';
