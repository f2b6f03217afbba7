-- pg_temp.sqlstate_of(query): 'ok', or the SQLSTATE the query failed with. The
-- tests that use it include this file (the runners start psql in the root).
CREATE FUNCTION pg_temp.sqlstate_of(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE q;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE;
END $$;
