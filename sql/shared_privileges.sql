-- Shared objects: owners, grants (transactional), members of the owning role,
-- and the file-path functions.
CREATE ROLE regress_shared_owner;
CREATE ROLE regress_shared_other;
CREATE ROLE regress_shared_member IN ROLE regress_shared_owner;
CREATE ROLE regress_shared_files IN ROLE pg_write_server_files, pg_read_server_files;
CREATE FUNCTION pg_temp.sqlstate_of(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE q;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE;
END $$;
GRANT EXECUTE ON FUNCTION pg_temp.sqlstate_of(text) TO PUBLIC;

SET ROLE regress_shared_owner;
SELECT shared_cbf_create('owned', 100);
SELECT shared_cbf_add('owned', 1);
SELECT name, owner FROM shared_objects;

-- another role: nothing without a grant, and the catalog itself is closed
SET ROLE regress_shared_other;
SELECT name, owner FROM shared_objects;
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
SELECT shared_cbf_add('owned', 2) AS added, shared_cbf_add_many('owned', ARRAY[3, 4]) AS added_many,
       shared_cbf_remove('owned', 4) AS removed;
SELECT shared_drop('owned');
-- revoke write leaves read; revoke read takes everything
SET ROLE regress_shared_owner;
SELECT shared_revoke('owned', 'regress_shared_other', 'write');
SET ROLE regress_shared_other;
SELECT shared_cbf_contains('owned', 2) AS still_reads;
SELECT shared_cbf_add('owned', 5);
SET ROLE regress_shared_owner;
SELECT shared_grant('owned', 'regress_shared_other', 'write');
SELECT shared_revoke('owned', 'regress_shared_other', 'read');
SET ROLE regress_shared_other;
SELECT shared_cbf_contains('owned', 2);

-- grants follow the transaction
SET ROLE regress_shared_owner;
BEGIN;
SELECT shared_grant('owned', 'regress_shared_other', 'read');
ROLLBACK;
SET ROLE regress_shared_other;
SELECT shared_cbf_contains('owned', 2);

-- members of the owning role act as the owner
SET ROLE regress_shared_member;
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
DROP ROLE regress_shared_member, regress_shared_other, regress_shared_files, regress_shared_owner;
