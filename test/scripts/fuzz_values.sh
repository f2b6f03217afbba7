#!/usr/bin/env bash
# Bad input never crashes and never gets stored: valid bloom, cbf and
# reservoir values (every bloom layout kind, each reservoir item kind) are
# mutated at random (bytes overwritten, mostly in the header; truncated;
# extended; a large length planted) and fed to the bytea casts and to the text
# input, then to every function, aggregate and shared-object merge that reads
# them. With a fixed seed, it checks that
# - the session survives every value (a crash ends the psql run);
# - no error is internal (XX000) or data_corrupted (XX001): either would mean
#   an input path accepted a value that a later reader refused;
# - every value an input path accepts reads back equal through text and binary;
# - the mutations produce both accepted and refused values (the test reaches
#   past the first check).
set -euo pipefail
: "${SKETCH_ROOT:?}" "${PGHOST:?}" "${PGPORT:?}"
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
start_test sketchshare_fuzz
ROUNDS=${FUZZ_ROUNDS:-3000}

psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
CREATE TABLE seeds(kind text, v bytea);
INSERT INTO seeds SELECT 'bloom', bloom_agg(g, 100, 0.01, l)::bytea FROM generate_series(1, 50) g,
    unnest(ARRAY['classic', 'block<uint64,5>', 'block<uint8,2>', 'multiblock<uint64[8],3>', 'multiblock<uint16,3>/1',
                 'fast_multiblock32<8>', 'fast_multiblock64<5>/1']) l
GROUP BY l;
INSERT INTO seeds SELECT 'bloom', cbf_to_bloom(cbf_agg(g, 30, 0.1))::bytea FROM generate_series(1, 50) g;
INSERT INTO seeds SELECT 'cbf', cbf_agg(g, 30, 0.1)::bytea FROM generate_series(1, 50) g;
SET sketchshare.seed = 'fuzz';  -- the same samples, so the same mutations, every run
INSERT INTO seeds SELECT 'reservoir', r::bytea FROM (
    SELECT reservoir_agg(g, 5) FROM generate_series(1, 50) g
    UNION ALL SELECT reservoir_agg(g::text || 'abc', 5) FROM generate_series(1, 50) g
    UNION ALL SELECT reservoir_agg(g, 5, g::float8) FROM generate_series(1, 50) g
    UNION ALL SELECT reservoir_agg(ARRAY[g, g + 1], 5) FROM generate_series(1, 50) g
    UNION ALL SELECT reservoir_agg(g::numeric, 5) FROM generate_series(1, 50) g) s(r);

-- One random mutation of v.
CREATE FUNCTION mutate(v bytea) RETURNS bytea LANGUAGE plpgsql AS $$
DECLARE op int := (random() * 6)::int; n int := length(v); p int;
BEGIN
    IF n < 8 THEN RETURN v || decode(md5(random()::text), 'hex'); END IF;
    IF op <= 2 THEN  -- one to four bytes, mostly in the header
        FOR i IN 1..1 + (random() * 3)::int LOOP
            p := CASE WHEN random() < 0.7 THEN (random() * least(n - 1, 80))::int ELSE (random() * (n - 1))::int END;
            v := set_byte(v, p, (random() * 255)::int);
        END LOOP;
    ELSIF op = 3 THEN v := substring(v FROM 1 FOR (random() * n)::int);
    ELSIF op = 4 THEN v := v || decode(md5(random()::text), 'hex');
    ELSIF op = 5 THEN  -- a plausible length or count word
        p := (random() * least(n - 4, 60))::int;
        v := overlay(v PLACING decode(lpad(to_hex((random() * 2147483647)::int), 8, '0'), 'hex') FROM p + 1 FOR 4);
    ELSE v := set_byte(v, (random() * (n - 1))::int, 255);
    END IF;
    RETURN v;
END $$;

-- Everything that reads a value of `kind` made from m, once the bytea cast has
-- accepted it (it must then read back equal); a merge into a shared object of
-- another geometry is refused, as it should be.
CREATE FUNCTION use_value(kind text, m bytea) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE b bloom; c cbf; r reservoir; item_type text;
BEGIN
    IF kind = 'bloom' THEN
        b := m::bloom;
        IF NOT (b::text::bloom = b AND b::bytea::bloom = b AND bloom_send(b)::bloom = b) THEN RAISE EXCEPTION 'bloom round trip'; END IF;
        PERFORM bloom_info(b), bloom_contains(b, 1), bloom_estimated_count(b), bloom_add(b, 'x'),
                bloom_union(b, b), bloom_intersect(b, b);
        PERFORM bloom_union_agg(v), bloom_intersect_agg(v) FROM (VALUES (b), (b)) s(v);
        BEGIN PERFORM shared_bloom_merge('fuzz_bloom', b); EXCEPTION WHEN invalid_parameter_value THEN NULL; END;
    ELSIF kind = 'cbf' THEN
        c := m::cbf;
        IF NOT (c::text::cbf = c AND c::bytea::cbf = c AND cbf_send(c)::cbf = c) THEN RAISE EXCEPTION 'cbf round trip'; END IF;
        PERFORM cbf_stats(c), cbf_contains(c, 1), cbf_count(c), cbf_count_of(c, 2), cbf_add(c, 'x'),
                cbf_remove(c, 3), cbf_merge(c, c), cbf_to_bloom(c);
        PERFORM cbf_union_agg(v) FROM (VALUES (c), (c)) s(v);
        BEGIN PERFORM shared_cbf_merge('fuzz_cbf', c); EXCEPTION WHEN invalid_parameter_value THEN NULL; END;
    ELSE
        r := m::reservoir;
        IF NOT (r::text::reservoir::text = r::text AND r::bytea::reservoir::text = r::text) THEN
            RAISE EXCEPTION 'reservoir round trip';
        END IF;
        PERFORM reservoir_stats(r), reservoir_count(r), reservoir_seen(r);
        PERFORM reservoir_union_agg(v) FROM (VALUES (r), (r)) s(v);
        FOREACH item_type IN ARRAY ARRAY['int', 'text', 'int[]', 'numeric'] LOOP  -- one is r's, or none
            BEGIN
                EXECUTE format('SELECT reservoir_items($1, NULL::%s)', item_type) USING r;
            EXCEPTION WHEN datatype_mismatch THEN NULL;
            END;
        END LOOP;
    END IF;
    RETURN true;
END $$;

-- Text input: the hex form of v with a digit changed, cut short or extended.
CREATE FUNCTION mutate_text(kind text, v bytea) RETURNS text LANGUAGE plpgsql AS $$
DECLARE t text := CASE kind WHEN 'bloom' THEN v::bloom::text WHEN 'cbf' THEN v::cbf::text ELSE v::reservoir::text END;
        p int := 1 + (random() * (length(t) - 1))::int;
BEGIN
    RETURN CASE (random() * 3)::int
        WHEN 0 THEN overlay(t PLACING substr(md5(random()::text), 1, 1 + (random() * 3)::int) FROM p FOR 1)
        WHEN 1 THEN substr(t, 1, p)
        ELSE t || substr('0123456789abcdefxyz\ ', 1 + (random() * 20)::int, 2) END;
END $$;

SELECT shared_bloom_create('fuzz_bloom', 100, 0.01, 'block<uint64,5>') IS NOT NULL,
       shared_cbf_create('fuzz_cbf', 30, 0.1) IS NOT NULL;
SQL

summary=$(psql -X -At -v ON_ERROR_STOP=1 2>&1 <<SQL
DO \$\$
DECLARE s record; m bytea; t text; accepted int := 0; refused int := 0; states text[] := '{}'; st text; msg text;
        bad text[] := '{}';
BEGIN
    PERFORM setseed(0.4242);
    FOR s IN SELECT * FROM seeds ORDER BY kind, v LOOP
        FOR i IN 1..$ROUNDS LOOP
            m := mutate(s.v);
            IF random() < 0.3 THEN m := mutate(m); END IF;
            BEGIN
                PERFORM use_value(s.kind, m);
                accepted := accepted + 1;
            EXCEPTION WHEN others THEN
                GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
                refused := refused + 1;
                states := states || st;
                IF st IN ('XX000', 'XX001', 'P0001') THEN bad := bad || (s.kind || ': ' || st || ' ' || msg); END IF;
            END;
            t := mutate_text(s.kind, s.v);
            BEGIN
                EXECUTE format('SELECT %L::%s', t, s.kind);
                accepted := accepted + 1;
            EXCEPTION WHEN others THEN
                GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
                refused := refused + 1;
                states := states || st;
                IF st IN ('XX000', 'XX001') THEN bad := bad || (s.kind || ' text: ' || st || ' ' || msg); END IF;
            END;
        END LOOP;
    END LOOP;
    RAISE NOTICE 'accepted % refused % sqlstates %', accepted, refused,
        (SELECT string_agg(x || ':' || c, ' ') FROM (SELECT x, count(*) c FROM unnest(states) x GROUP BY x ORDER BY x) q);
    IF cardinality(bad) > 0 THEN RAISE NOTICE 'BAD %', array_to_string(bad[1:20], E'\n'); END IF;
END \$\$;
SELECT 'alive';
SQL
) || { echo "$summary"; fail "the fuzzing session failed (a crash ends it)"; }
echo "$summary"
grep -q '^alive$' <<<"$summary" || fail "the session did not survive"
grep -q 'BAD' <<<"$summary" && fail "internal or data_corrupted errors, or a value that did not read back (above)"
counts=$(echo "$summary" | grep -o 'accepted [0-9]* refused [0-9]*')
read -r _ acc _ ref <<<"$counts"
[ "$acc" -gt 0 ] && [ "$ref" -gt 0 ] || fail "expected both accepted and refused values, got: $counts"
echo "ok: $counts, no crash, no XX000/XX001, every accepted value read back equal"
