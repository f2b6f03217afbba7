-- The overloads of the item aggregates for common item types (docs/citus.md):
-- a call of each type picks its own overload, its filters hold exactly the
-- items (the same hash as the anycompatible functions that look them up),
-- and samples keep the item's type.
CREATE TEMP TABLE items AS
SELECT i, i::smallint AS i2, i::integer AS i4, i::bigint AS i8, i::numeric AS num, i::real AS f4,
       i::double precision AS f8, (i % 2 = 0) AS b, 'v' || i AS t, ('v' || i)::varchar AS vc,
       ('v' || i)::char(6) AS ch, ('v' || i)::name AS nm, ('v' || i)::bytea AS by,
       md5(i::text)::uuid AS u, date '2026-01-01' + i AS d, timestamp '2026-01-01' + i * interval '1 hour' AS ts,
       timestamptz '2026-01-01 00:00+00' + i * interval '1 hour' AS tz
FROM generate_series(1, 500) i;

-- One overload per type and aggregate, each with its own transition function.
SELECT p.proname, count(*) AS overloads
FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid
WHERE p.proname IN ('bloom_agg', 'cbf_agg', 'reservoir_sample', 'reservoir_agg')
GROUP BY p.proname ORDER BY p.proname;
SELECT count(*) AS typed_without_comment
FROM pg_proc p
WHERE p.proname IN ('bloom_agg', 'cbf_agg', 'reservoir_sample', 'reservoir_agg', 'bloom_agg_trans',
                    'cbf_agg_trans', 'reservoir_sample_trans', 'reservoir_sample_final')
  AND obj_description(p.oid, 'pg_proc') IS NULL;

-- Every item is in its filter (looked up through the anycompatible functions),
-- for every type, both bloom_agg forms and both cbf_agg forms.
SELECT bool_and(bloom_contains(a1, i2)) AND bool_and(bloom_contains(a2, i4)) AND bool_and(bloom_contains(a3, i8))
       AND bool_and(bloom_contains(a4, num)) AND bool_and(bloom_contains(a5, f4)) AND bool_and(bloom_contains(a6, f8))
       AND bool_and(bloom_contains(a7, t)) AND bool_and(bloom_contains(a8, vc)) AND bool_and(bloom_contains(a9, ch))
       AND bool_and(bloom_contains(a10, nm)) AND bool_and(bloom_contains(a11, by)) AND bool_and(bloom_contains(a12, u))
       AND bool_and(bloom_contains(a13, d)) AND bool_and(bloom_contains(a14, ts)) AND bool_and(bloom_contains(a15, tz))
       AS all_found
FROM items, (SELECT bloom_agg(i2, 1000, 0.01) a1, bloom_agg(i4, 1000, 0.01, 'classic') a2, bloom_agg(i8, 1000, 0.01) a3,
                    bloom_agg(num, 1000, 0.01) a4, bloom_agg(f4, 1000, 0.01) a5, bloom_agg(f8, 1000, 0.01) a6,
                    bloom_agg(t, 1000, 0.01) a7, bloom_agg(vc, 1000, 0.01) a8, bloom_agg(ch, 1000, 0.01) a9,
                    bloom_agg(nm, 1000, 0.01) a10, bloom_agg(by, 1000, 0.01) a11, bloom_agg(u, 1000, 0.01) a12,
                    bloom_agg(d, 1000, 0.01) a13, bloom_agg(ts, 1000, 0.01) a14, bloom_agg(tz, 1000, 0.01) a15
             FROM items) f;
-- Equal values of different integer widths are one item; so are text, varchar and char(n).
SELECT (SELECT bloom_agg(i2, 1000, 0.01) FROM items) = (SELECT bloom_agg(i8, 1000, 0.01) FROM items) AS ints_one_item,
       (SELECT bloom_agg(t, 1000, 0.01) FROM items) = (SELECT bloom_agg(ch, 1000, 0.01) FROM items) AS texts_one_item;
SELECT bool_and(cbf_count_of(c1, b) = 15) AND bool_and(cbf_count_of(c2, u) = 1) AND bool_and(cbf_contains(c3, ts)) AS counted
FROM items, (SELECT cbf_agg(b, 1000) c1, cbf_agg(u, 1000, 0.001) c2, cbf_agg(ts, 1000) c3 FROM items) c;

-- Samples keep the item type (char(n) and varchar too).
SELECT pg_typeof(reservoir_sample(i2, 3)) AS i2, pg_typeof(reservoir_sample(num, 3, 1.0)) AS num,
       pg_typeof(reservoir_sample(vc, 3)) AS vc, pg_typeof(reservoir_sample(ch, 3)) AS ch,
       pg_typeof(reservoir_sample(nm, 3)) AS nm, pg_typeof(reservoir_sample(tz, 3)) AS tz
FROM items;
SELECT cardinality(reservoir_items(reservoir_agg(vc, 7), NULL::varchar)) AS vc,
       cardinality(reservoir_items(reservoir_agg(d, 7, i), NULL::date)) AS d
FROM items;
-- A type without an overload of its own still takes the anycompatible aggregates.
SELECT pg_typeof(reservoir_sample(i::oid, 3)) AS oid_sample, bloom_agg(i::oid, 1000, 0.01) IS NOT NULL AS oid_filter
FROM items;
-- An untyped literal is text, as before.
SELECT pg_typeof(reservoir_sample('a', 3)) AS literal;
