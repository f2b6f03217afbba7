-- sketch_hash: canonical forms and the published vectors
SELECT sketch_hash('hello'::text) AS text_hello,
       sketch_hash(''::text) AS text_empty;
-- an untyped literal is text
SELECT sketch_hash('hello') = sketch_hash('hello'::text) AS literal_is_text;
-- every string type hashes by its bytes
SELECT sketch_hash('hello'::varchar) = sketch_hash('hello'::text) AS varchar_same,
       sketch_hash('hello'::name) = sketch_hash('hello'::text) AS name_same,
       sketch_hash('hello'::bytea) = sketch_hash('hello'::text) AS bytea_same,
       sketch_hash(convert_to('hello', 'UTF8')) = sketch_hash('hello'::text) AS bytes_same;
-- char(n) hashes without its padding (as its cast to text), alone or as a
-- bloom_agg / cbf_agg input column
SELECT sketch_hash('hello'::char(8)) = sketch_hash('hello') AS char_n_trimmed,
       (SELECT bloom_agg(c, 10, 0.01) FROM (VALUES ('hello'::char(8))) v(c)) @> 'hello' AS bloom_agg_char_n,
       (SELECT cbf_agg(c, 10) FROM (VALUES ('hello'::char(8))) v(c)) @> 'hello' AS cbf_agg_char_n;
-- integers of every width share one form
SELECT sketch_hash(42::int2) AS int2, sketch_hash(42::int4) AS int4, sketch_hash(42::int8) AS int8;
SELECT sketch_hash((-7)::int2) = sketch_hash((-7)::int8) AS negative_same,
       sketch_hash(32767::int2) = sketch_hash(32767::int8) AS max_int2_same,
       sketch_hash(42::int8) <> sketch_hash('42'::text) AS int_differs_from_text;
-- floats: float4 as float8, -0 folded, one NaN
SELECT sketch_hash(1.5::float4) = sketch_hash(1.5::float8) AS float4_as_float8,
       sketch_hash('-0'::float8) = sketch_hash('0'::float8) AS negative_zero_folded,
       sketch_hash('NaN'::float4) = sketch_hash('NaN'::float8) AS one_nan,
       sketch_hash(1.0::float8) <> sketch_hash(1::int8) AS float_differs_from_int;
-- uuid by its 16 bytes, bool by one byte
SELECT sketch_hash('00112233-4455-6677-8899-aabbccddeeff'::uuid)
     = sketch_hash('\x00112233445566778899aabbccddeeff'::bytea) AS uuid_bytes,
       sketch_hash(true) = sketch_hash('\x01'::bytea) AS true_byte,
       sketch_hash(false) = sketch_hash('\x00'::bytea) AS false_byte;
-- other types by their text output
SELECT sketch_hash(12.50::numeric) = sketch_hash('12.50'::text) AS numeric_text,
       sketch_hash(ARRAY[1,2]) = sketch_hash('{1,2}'::text) AS array_text;
-- text output is canonical: ISO dates, UTC, whatever the session's settings
SET DateStyle = 'SQL, DMY';
SET TimeZone = 'America/New_York';
SET IntervalStyle = 'sql_standard';
SELECT sketch_hash('2026-11-30'::date) = sketch_hash('2026-11-30'::text) AS date_iso,
       sketch_hash('2026-11-30 10:00:00+01'::timestamptz) = sketch_hash('2026-11-30 09:00:00+00'::text) AS timestamptz_utc,
       sketch_hash('1 day 2 hours'::interval) = sketch_hash('1 day 02:00:00'::text) AS interval_postgres,
       sketch_hash(ARRAY['\x01'::bytea]) = sketch_hash('{"\\x01"}'::text) AS bytea_array_hex;
SHOW DateStyle;
RESET DateStyle;
RESET TimeZone;
RESET IntervalStyle;
-- a domain hashes as its base type
CREATE DOMAIN hash_small AS int4 CHECK (VALUE > 0);
SELECT sketch_hash(42::hash_small) = sketch_hash(42::int8) AS domain_as_base;
-- NULL in, NULL out
SELECT sketch_hash(NULL::text) IS NULL AS null_text, sketch_hash(NULL::int8) IS NULL AS null_int;
-- compressed and out-of-line values hash like their inline form
CREATE TABLE hash_toast (id int, t text, b bytea);
ALTER TABLE hash_toast ALTER COLUMN t SET STORAGE EXTERNAL;
INSERT INTO hash_toast VALUES
  (1, repeat('sketchshare ', 20000), convert_to(repeat('abc', 30000), 'UTF8')),
  (2, (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 2000) i), NULL);
SELECT id,
       pg_column_compression(b) IS NOT NULL AS b_compressed,
       sketch_hash(t) = sketch_hash(t || '') AS t_same,
       sketch_hash(b) = sketch_hash(b || ''::bytea) AS b_same
FROM hash_toast ORDER BY id;
-- equal values hash equally in an aggregate over many rows, serial or parallel
SELECT count(DISTINCT sketch_hash(i)) AS distinct_hashes,
       count(*) FILTER (WHERE sketch_hash(i) = sketch_hash(i::int8)) AS same_as_int8
FROM generate_series(1, 10000) i;
-- an untyped NULL resolves to the text form: NULL
SELECT sketch_hash(NULL) IS NULL AS untyped_null;
-- a record has no single canonical byte form; it hashes by its text output too
SELECT sketch_hash(ROW(1, 'a')) = sketch_hash('(1,a)'::text) AS record_text;
-- the one-byte "char" (pg_class.relkind) is an item like any other: it hashes
-- as its one character, in every function that takes an item
SELECT sketch_hash('r'::"char") = sketch_hash('r') AS char_as_text,
       bloom_contains(bloom_add(bloom_empty(10, 0.01), 'r'::"char"), 'r') AS bloom_char,
       cbf_count_of(cbf_add(cbf_add(cbf_empty(10), 'r'::"char"), 'r'), 'r'::"char") AS cbf_char_twice,
       (SELECT bloom_agg(k, 10, 0.01) @> 'v' FROM (VALUES ('r'::"char"), ('v')) v(k)) AS bloom_agg_char,
       (SELECT pg_typeof(reservoir_sample(k, 1)) FROM (VALUES ('r'::"char")) v(k)) AS sample_type;
-- a regclass (and every reg* type) prints its name as the session's
-- search_path shows it; it hashes as it prints under search_path
-- pg_catalog, public: alike in every session, and as in a session with the
-- default search_path
CREATE SCHEMA hash_s;
CREATE TABLE hash_s.t (a int);
CREATE TABLE public.hash_p (a int);
CREATE TYPE hash_s.pair AS (r regclass, n int);
CREATE DOMAIN hash_s.rel AS regclass;
SET search_path = hash_s;
SELECT public.sketch_hash('hash_s.t'::regclass) = public.sketch_hash('hash_s.t'::text) AS qualified_outside_public,
       public.sketch_hash('public.hash_p'::regclass) = public.sketch_hash('hash_p'::text) AS public_unqualified,
       public.sketch_hash('pg_class'::regclass) = public.sketch_hash('pg_class'::text) AS catalog_unqualified,
       public.sketch_hash(ARRAY['hash_s.t'::regclass]) = public.sketch_hash('{hash_s.t}'::text) AS in_an_array,
       public.sketch_hash(ROW('hash_s.t'::regclass)) = public.sketch_hash('(hash_s.t)'::text) AS in_a_record;
-- and inside a named composite, an array of them, or a domain
SELECT public.sketch_hash(ROW('hash_s.t'::regclass, 1)::pair) = public.sketch_hash('(hash_s.t,1)'::text) AS in_a_composite,
       public.sketch_hash(ARRAY[ROW('hash_s.t'::regclass, 1)::pair]) = public.sketch_hash('{"(hash_s.t,1)"}'::text)
           AS in_an_array_of_composites,
       public.sketch_hash('hash_s.t'::rel) = public.sketch_hash('hash_s.t'::text) AS in_a_domain;
CREATE TEMP TABLE hash_f AS SELECT public.bloom_add(public.bloom_empty(100, 0.01), 'hash_s.t'::regclass) AS f;
RESET search_path;
SELECT bloom_contains(f, 'hash_s.t'::regclass) AS found_under_the_default_search_path FROM hash_f;
SET search_path = pg_catalog;
SELECT public.bloom_contains(f, 'hash_s.t'::regclass) AS found_under_a_third FROM hash_f;
RESET search_path;
DROP TABLE hash_f, hash_s.t, public.hash_p;
DROP TYPE hash_s.pair;
DROP DOMAIN hash_s.rel;
DROP SCHEMA hash_s;
-- the default search_path is "$user", public: an object of the schema named
-- after the session's role prints unqualified in such a session but hashes
-- schema-qualified (a filter built before 0.2.0 in such a session holds the
-- unqualified name: CHANGELOG); a temporary one hashes as it prints, unless
-- a permanent object of its name shadows it
CREATE ROLE regress_hash_user;
CREATE SCHEMA regress_hash_user AUTHORIZATION regress_hash_user;
CREATE TABLE regress_hash_user.t (a int);
CREATE TEMP TABLE hash_tmp (a int);
SET ROLE regress_hash_user;
SHOW search_path;
SELECT 'regress_hash_user.t'::regclass::text AS printed,
       sketch_hash('regress_hash_user.t'::regclass) = sketch_hash('regress_hash_user.t'::text) AS user_schema_qualified,
       'hash_tmp'::regclass::text AS temp_printed,
       sketch_hash('hash_tmp'::regclass) = sketch_hash('hash_tmp'::text) AS temp_as_printed;
RESET ROLE;
DROP TABLE hash_tmp, regress_hash_user.t;
DROP SCHEMA regress_hash_user;
DROP ROLE regress_hash_user;
