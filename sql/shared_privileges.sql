-- Shared objects: owners, grants (transactional), members of the owning role,
-- and the file-path functions.
CREATE ROLE regress_shared_owner;
CREATE ROLE regress_shared_other;
CREATE ROLE regress_shared_member IN ROLE regress_shared_owner;
CREATE ROLE regress_shared_files IN ROLE pg_write_server_files, pg_read_server_files;
\i sql/include/sqlstate_of.sql
CREATE FUNCTION pg_temp.leak(text) RETURNS boolean LANGUAGE plpgsql COST 0.0001 AS $$
BEGIN
    RAISE NOTICE 'leaked %', $1;
    RETURN true;
END $$;
GRANT EXECUTE ON FUNCTION pg_temp.leak(text) TO PUBLIC;

-- Creating an object reserves disk space: only superusers may, and the roles
-- a superuser grants the create functions to
SET ROLE regress_shared_owner;
SELECT shared_cbf_create('owned', 100);
SELECT pg_temp.sqlstate_of($$SELECT shared_cbf_create('owned', 100)$$) AS cbf,
       pg_temp.sqlstate_of($$SELECT shared_bloom_create('owned', 100, 0.01)$$) AS bloom,
       pg_temp.sqlstate_of($$SELECT shared_reservoir_create('owned', 10)$$) AS reservoir,
       pg_temp.sqlstate_of($$SELECT shared_create_from('owned', cbf_empty(100))$$) AS from_cbf,
       pg_temp.sqlstate_of($$SELECT shared_create_from('owned', bloom_empty(100, 0.01))$$) AS from_bloom;
RESET ROLE;
SELECT p.oid::regprocedure AS create_function, has_function_privilege('regress_shared_other', p.oid, 'EXECUTE') AS others
FROM pg_proc p WHERE p.proname IN ('shared_cbf_create', 'shared_bloom_create', 'shared_reservoir_create',
                                   'shared_create_from', 'shared_attach') ORDER BY p.oid::regprocedure::text;
GRANT EXECUTE ON FUNCTION shared_cbf_create(text, bigint, float8, text, int), shared_bloom_create(text, bigint, float8, text, int),
    shared_reservoir_create(text, int, int, boolean), shared_create_from(text, cbf), shared_create_from(text, bloom)
    TO regress_shared_owner;

SET ROLE regress_shared_owner;
SELECT shared_cbf_create('owned', 100);
SELECT shared_cbf_add('owned', 1);
SELECT name, owner FROM shared_objects;

-- another role: nothing without a grant, not even the object's name in
-- shared_objects, and the catalog itself is closed
SET ROLE regress_shared_other;
SELECT name, owner FROM shared_objects;
SELECT name FROM shared_objects WHERE pg_temp.leak(name);  -- a cheap leaky condition sees no hidden row
SELECT shared_cbf_contains('owned', 1);
SELECT shared_cbf_add('owned', 2);
SELECT shared_cbf_stats('owned');
SELECT shared_drop('owned');
SELECT shared_freeze('owned');
SELECT shared_grant('owned', 'regress_shared_other', 'write');
SELECT pg_temp.sqlstate_of($$SELECT shared_cbf_count('owned')$$) AS denied;
SELECT * FROM sketchshare_shared.objects;
SELECT * FROM sketchshare_shared.grants;
DELETE FROM sketchshare_shared.objects;

-- read
SET ROLE regress_shared_owner;
SELECT shared_grant('owned', 'regress_shared_other', 'read');
SET ROLE regress_shared_other;
SELECT name, owner FROM shared_objects;
SELECT shared_cbf_contains('owned', 1) AS reads, shared_cbf_count_of('owned', 1) AS count_of,
       shared_cbf_count('owned') AS count, shared_cbf_stats('owned')->'ops' AS ops,
       shared_cbf_snapshot('owned') IS NOT NULL AS snapshot;
SELECT shared_cbf_add('owned', 2);
SELECT shared_cbf_remove('owned', 1);
SELECT shared_cbf_clear('owned');
SELECT shared_cbf_merge('owned', shared_cbf_snapshot('owned'));

-- write (implies read)
SET ROLE regress_shared_owner;
SELECT shared_grant('owned', 'regress_shared_other', 'write');
SELECT shared_grant('owned', 'regress_shared_other', 'write');
SET ROLE regress_shared_other;
SELECT shared_cbf_add('owned', 2) AS added, shared_cbf_add_many('owned', ARRAY[3, 4], transactional => false) AS added_many,
       shared_cbf_remove('owned', 4) AS removed;
SELECT shared_drop('owned');
-- revoke write leaves read, also when write was granted alone; revoke read
-- takes everything
SET ROLE regress_shared_owner;
SELECT shared_revoke('owned', 'regress_shared_other', 'write');
SET ROLE regress_shared_other;
SELECT shared_cbf_contains('owned', 2) AS still_reads;
SELECT shared_cbf_add('owned', 5);
SET ROLE regress_shared_owner;
SELECT shared_revoke('owned', 'regress_shared_other', 'read');
SELECT shared_grant('owned', 'regress_shared_other', 'write');
SELECT shared_revoke('owned', 'regress_shared_other', 'write');
SET ROLE regress_shared_other;
SELECT shared_cbf_contains('owned', 2) AS still_reads;
SELECT shared_cbf_add('owned', 5);
SELECT name FROM shared_objects;
SET ROLE regress_shared_owner;
SELECT shared_grant('owned', 'regress_shared_other', 'write');
SELECT shared_revoke('owned', 'regress_shared_other', 'read');
SET ROLE regress_shared_other;
SELECT shared_cbf_contains('owned', 2);
SELECT name FROM shared_objects;

-- grants follow the transaction
SET ROLE regress_shared_owner;
BEGIN;
SELECT shared_grant('owned', 'regress_shared_other', 'read');
ROLLBACK;
SET ROLE regress_shared_other;
SELECT shared_cbf_contains('owned', 2);

-- members of the owning role act as the owner
SET ROLE regress_shared_member;
SELECT name, owner FROM shared_objects;
SELECT shared_cbf_add('owned', 6) AS member_adds;
SELECT shared_grant('owned', 'regress_shared_other', 'read');
SET ROLE regress_shared_other;
SELECT shared_cbf_contains('owned', 6) AS granted_by_member;

-- bad privileges and roles
SET ROLE regress_shared_owner;
SELECT shared_grant('owned', 'regress_shared_other', 'all');
SELECT shared_grant('owned', 'regress_shared_other', 'READ');
SELECT shared_grant('owned', 'no_such_role', 'read');
SELECT shared_grant('missing', 'regress_shared_other', 'read');
SELECT shared_revoke('owned', 'regress_shared_other', 'nothing');
-- a role given by oid must exist: a grant to a free oid would go to the role that takes it
SELECT shared_grant('owned', 4294967295::oid::regrole, 'read');
SELECT shared_grant('owned', 0::oid::regrole, 'write');

-- paths: superusers and pg_read/write_server_files only
SELECT shared_freeze('owned');
SELECT shared_export('owned', '/tmp/sketchshare-regress-never-written');
SELECT shared_attach('attached', '/tmp/sketchshare-regress-never-read');
SELECT pg_temp.sqlstate_of($$SELECT shared_export('owned', '/tmp/x')$$) AS export_denied,
       pg_temp.sqlstate_of($$SELECT shared_attach('a', '/tmp/x')$$) AS attach_denied;
SET ROLE regress_shared_files;
SELECT shared_export('owned', 'not/absolute');
SELECT shared_export('owned', '/tmp/x');
SELECT shared_attach('attached', '/nonexistent/file');

-- the owner drops; then the grants are gone with the object
SET ROLE regress_shared_owner;
SELECT shared_drop('owned');
RESET ROLE;
SELECT count(*) AS grants_left FROM sketchshare_shared.grants;

-- What the extension runs for another role (its event trigger, for every
-- DROP SCHEMA, DROP OWNED and DROP EXTENSION, a superuser's too; the catalog
-- queries) calls nothing that a role able to create in public (a database
-- owner) or in a temporary schema can plant there, whatever the search_path.
CREATE ROLE regress_shared_planter;
GRANT CREATE ON SCHEMA public TO regress_shared_planter;
CREATE TABLE public.planted_calls (fn text, by_role text);
GRANT INSERT ON public.planted_calls TO PUBLIC;
SET ROLE regress_shared_planter;
CREATE FUNCTION public.sketch_hash(integer) RETURNS bytea LANGUAGE sql
    AS $$ INSERT INTO public.planted_calls VALUES ('sketch_hash(integer)', current_user) RETURNING NULL::bytea $$;
CREATE FUNCTION public.library_loaded() RETURNS void LANGUAGE sql
    AS $$ INSERT INTO public.planted_calls VALUES ('library_loaded()', current_user) $$;
CREATE FUNCTION public.text_eq(text, text) RETURNS boolean LANGUAGE sql
    AS $$ INSERT INTO public.planted_calls VALUES ('=', current_user) RETURNING true $$;
CREATE OPERATOR public.= (LEFTARG = text, RIGHTARG = text, FUNCTION = public.text_eq);
CREATE FUNCTION public.unnest(text[]) RETURNS SETOF text LANGUAGE sql
    AS $$ INSERT INTO public.planted_calls VALUES ('unnest', current_user) RETURNING NULL::text $$;
-- nobody but a superuser creates in the extension's own schema
CREATE FUNCTION sketchshare_shared.library_loaded(integer) RETURNS void LANGUAGE sql AS $$ SELECT $$;
RESET ROLE;
SET search_path = public, pg_catalog;
CREATE SCHEMA regress_shared_dropped;
DROP SCHEMA regress_shared_dropped;
DROP OWNED BY regress_shared_files;
SELECT shared_cbf_create('planted', 100), shared_grant('planted', 'regress_shared_other', 'read'),
       shared_revoke('planted', 'regress_shared_other', 'read'), shared_cbf_add('planted', 1);
SELECT shared_drop('planted');
SELECT name FROM shared_objects;
SELECT fn, by_role FROM public.planted_calls;
RESET search_path;
-- the functions of the extension's schema: the event trigger's pins its
-- search_path; library_loaded() (which it calls) does nothing
SELECT p.oid::regprocedure AS function, l.lanname AS language, p.proconfig,
       obj_description(p.oid, 'pg_proc') IS NOT NULL AS commented
FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
WHERE p.pronamespace = 'sketchshare_shared'::regnamespace ORDER BY p.oid::regprocedure::text;
SELECT sketchshare_shared.library_loaded();
DROP OWNED BY regress_shared_planter;
DROP TABLE public.planted_calls;
REVOKE CREATE ON SCHEMA public FROM regress_shared_planter;
DROP ROLE regress_shared_planter;

DROP OWNED BY regress_shared_owner;
DROP ROLE regress_shared_member, regress_shared_other, regress_shared_files, regress_shared_owner;
