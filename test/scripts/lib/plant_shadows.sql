-- Plants the shadows of test/scripts/script_shadows.sh, as the database's
-- owner: for each name in :'functions' and :'operators' that pg_catalog
-- has, a function or operator of `public` per signature of pg_catalog's, with
-- polymorphic, "any" and variadic arguments made concrete. Each shadow logs
-- its call in shadow_log.calls and raises a WARNING (a call in a statement
-- that then fails leaves only the warning), makes the owner superuser when
-- its caller is one, and returns what pg_catalog's function would.
-- Everything here is schema-qualified: the shadows must not catch this file.

CREATE SCHEMA shadow_log;
CREATE TABLE shadow_log.calls (signature text, caller name, superuser boolean);
CREATE TABLE shadow_log.planted (signature text PRIMARY KEY);
GRANT USAGE ON SCHEMA shadow_log TO PUBLIC;
GRANT INSERT ON shadow_log.calls TO PUBLIC;

CREATE FUNCTION shadow_log.called(signature text) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    super boolean := (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) current_user);
BEGIN
    INSERT INTO shadow_log.calls VALUES (signature, current_user, super);
    RAISE WARNING 'shadow % called by % (superuser: %)', signature, current_user, super;
    IF super THEN
        EXECUTE pg_catalog.format('ALTER ROLE %I SUPERUSER',
            (SELECT d.datdba::pg_catalog.regrole::pg_catalog.text FROM pg_catalog.pg_database d
             WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database()));
    END IF;
END
$$;

-- The concrete types a polymorphic or "any" argument takes: the types the
-- scripts pass.
CREATE FUNCTION shadow_log.concrete(t pg_catalog.regtype) RETURNS pg_catalog.regtype[]
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
SELECT CASE
    WHEN t::pg_catalog.text OPERATOR(pg_catalog.=) ANY (ARRAY['anyarray', 'anycompatiblearray', 'anynonarray[]'])
        THEN ARRAY['text[]', 'name[]', 'integer[]', 'oid[]']::pg_catalog.regtype[]
    WHEN t::pg_catalog.text OPERATOR(pg_catalog.=) ANY (ARRAY['anyelement', 'anycompatible', 'anynonarray', '"any"'])
        THEN ARRAY['text', 'name', 'integer', 'bigint', 'oid', 'boolean', 'regrole', 'double precision']::pg_catalog.regtype[]
    WHEN t::pg_catalog.text OPERATOR(pg_catalog.=) 'text'
        THEN ARRAY['text', 'name', 'character varying']::pg_catalog.regtype[]
    ELSE ARRAY[t]
END
$$;

-- The call of pg_catalog's function or operator `name` on the argument
-- expressions args.
CREATE FUNCTION shadow_log.call(name text, is_operator boolean, args text[]) RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
SELECT CASE
    WHEN NOT is_operator THEN pg_catalog.format('pg_catalog.%I(%s)', name, pg_catalog.array_to_string(args, ', '))
    WHEN pg_catalog.cardinality(args) OPERATOR(pg_catalog.=) 1 THEN pg_catalog.format('OPERATOR(pg_catalog.%s) %s', name, args[1])
    ELSE pg_catalog.format('%s OPERATOR(pg_catalog.%s) %s', args[1], name, args[2])
END
$$;

-- Plants one shadow of `name` (a function, or an operator when is_operator)
-- with argument types args, unless pg_catalog cannot take them or one of
-- that signature is planted already.
CREATE FUNCTION shadow_log.plant(name text, is_operator boolean, args pg_catalog.regtype[]) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    shadow text := name OPERATOR(pg_catalog.||) '(' OPERATOR(pg_catalog.||)
                      pg_catalog.array_to_string(args::text[], ',') OPERATOR(pg_catalog.||) ')';
    nulls text[] := ARRAY(SELECT pg_catalog.format('NULL::%s', a) FROM pg_catalog.unnest(args) a);
    params text[] := ARRAY(SELECT pg_catalog.format('$%s', i) FROM pg_catalog.generate_series(1, pg_catalog.cardinality(args)) i);
    result pg_catalog.regtype;
    fn text;
BEGIN
    IF EXISTS (SELECT FROM shadow_log.planted p WHERE p.signature OPERATOR(pg_catalog.=) shadow) THEN
        RETURN;
    END IF;
    -- The type pg_catalog's call returns, found without running it.
    BEGIN
        EXECUTE pg_catalog.format('CREATE TEMP VIEW shadow_probe AS SELECT %s AS x', shadow_log.call(name, is_operator, nulls));
        SELECT a.atttypid INTO result FROM pg_catalog.pg_attribute a
        WHERE a.attrelid OPERATOR(pg_catalog.=) 'pg_temp.shadow_probe'::pg_catalog.regclass
          AND a.attname OPERATOR(pg_catalog.=) 'x';
        DROP VIEW pg_temp.shadow_probe;
    EXCEPTION WHEN OTHERS THEN
        RETURN;  -- pg_catalog has no such call
    END;
    IF result::text OPERATOR(pg_catalog.=) ANY (ARRAY['record', 'unknown', 'void', 'trigger', 'event_trigger', 'internal']) THEN
        RETURN;
    END IF;
    fn := CASE WHEN is_operator THEN pg_catalog.format('public.shadow_operator_%s', (SELECT pg_catalog.count(*) FROM shadow_log.planted))
               ELSE pg_catalog.format('public.%I', name) END;
    BEGIN
        EXECUTE pg_catalog.format(
            'CREATE FUNCTION %s(%s) RETURNS %s LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS %L',
            fn, pg_catalog.array_to_string(args::text[], ', '), result,
            pg_catalog.format('BEGIN PERFORM shadow_log.called(%L); RETURN %s; END', shadow,
                              shadow_log.call(name, is_operator, params)));
        IF is_operator THEN
            EXECUTE pg_catalog.format('CREATE OPERATOR public.%s (%s FUNCTION = %s)', name,
                CASE pg_catalog.cardinality(args)
                    WHEN 1 THEN pg_catalog.format('RIGHTARG = %s,', args[1])
                    ELSE pg_catalog.format('LEFTARG = %s, RIGHTARG = %s,', args[1], args[2]) END, fn);
        END IF;
    EXCEPTION WHEN OTHERS THEN
        RETURN;  -- planted already under another pg_catalog signature
    END;
    INSERT INTO shadow_log.planted VALUES (shadow);
END
$$;

-- Every concrete form of a signature: the product of each argument's
-- concrete types (the first two hundred), and for a variadic function, the forms
-- with one to three arguments in the variadic place.
CREATE FUNCTION shadow_log.forms(args pg_catalog.regtype[], variadic_type pg_catalog.regtype) RETURNS SETOF pg_catalog.regtype[]
LANGUAGE sql SET search_path = pg_catalog, pg_temp AS $$
WITH RECURSIVE shapes(shape) AS (
    SELECT args WHERE variadic_type IS NULL
    UNION ALL
    SELECT args[1 : pg_catalog.cardinality(args) OPERATOR(pg_catalog.-) 1]
           OPERATOR(pg_catalog.||) pg_catalog.array_fill(variadic_type, ARRAY[n])
    FROM pg_catalog.generate_series(1, 3) n WHERE variadic_type IS NOT NULL
), product(shape, done, form) AS (
    SELECT shape, 0, '{}'::pg_catalog.regtype[] FROM shapes
    UNION ALL
    SELECT p.shape, p.done OPERATOR(pg_catalog.+) 1, p.form OPERATOR(pg_catalog.||) c
    FROM product p, pg_catalog.unnest(shadow_log.concrete(p.shape[p.done OPERATOR(pg_catalog.+) 1])) c
    WHERE p.done OPERATOR(pg_catalog.<) pg_catalog.cardinality(p.shape)
)
SELECT form FROM product WHERE done OPERATOR(pg_catalog.=) pg_catalog.cardinality(shape) LIMIT 200
$$;

SELECT pg_catalog.count(shadow_log.plant(p.proname, false, f))
FROM pg_catalog.pg_proc p,
     shadow_log.forms(ARRAY(SELECT pg_catalog.unnest(p.proargtypes::pg_catalog.oid[])::pg_catalog.regtype),
                      CASE WHEN p.provariadic OPERATOR(pg_catalog.<>) 0
                           THEN p.provariadic::pg_catalog.regtype END) f
WHERE p.pronamespace OPERATOR(pg_catalog.=) 'pg_catalog'::pg_catalog.regnamespace
  AND p.prokind OPERATOR(pg_catalog.=) 'f' AND NOT p.proretset
  AND p.proname OPERATOR(pg_catalog.=) ANY (:'functions'::text[]);

SELECT pg_catalog.count(shadow_log.plant(o.oprname, true, f))
FROM pg_catalog.pg_operator o,
     shadow_log.forms(CASE WHEN o.oprleft OPERATOR(pg_catalog.=) 0 THEN ARRAY[o.oprright]
                           ELSE ARRAY[o.oprleft, o.oprright] END::pg_catalog.regtype[], NULL) f
WHERE o.oprnamespace OPERATOR(pg_catalog.=) 'pg_catalog'::pg_catalog.regnamespace
  AND o.oprname OPERATOR(pg_catalog.=) ANY (:'operators'::text[]);
