-- a filter stored out of line reads back whole: uncompressed (STORAGE
-- EXTERNAL, read straight into the filter's memory), compressed (pglz), and
-- as an aggregate's input, for a lookup per row and for the union aggregates
CREATE TABLE toast_plain (f bloom, c cbf);
ALTER TABLE toast_plain ALTER f SET STORAGE EXTERNAL, ALTER c SET STORAGE EXTERNAL;
CREATE TABLE toast_packed (f bloom, c cbf);
INSERT INTO toast_plain SELECT bloom_agg(i, 20000, 0.01), cbf_agg(i, 20000) FROM generate_series(1, 2000) i;
INSERT INTO toast_packed SELECT * FROM toast_plain;
SELECT pg_column_compression(p.f) IS NULL AS plain_uncompressed, pg_column_compression(k.f) AS packed_with,
       pg_column_size(k.f) < pg_column_size(p.f) AS packed_smaller,
       p.f::bytea = k.f::bytea AS blooms_equal, p.c::bytea = k.c::bytea AS cbfs_equal
FROM toast_plain p, toast_packed k;
SELECT count(*) FILTER (WHERE bloom_contains(p.f, i) AND bloom_contains(k.f, i)) AS blooms_hold,
       count(*) FILTER (WHERE cbf_count_of(p.c, i) = 1 AND cbf_count_of(k.c, i) = 1) AS cbfs_count
FROM generate_series(1, 2000) i, toast_plain p, toast_packed k;
SELECT (SELECT bloom_union_agg(f)::bytea FROM toast_plain) = (SELECT f::bytea FROM toast_packed) AS bloom_union,
       (SELECT cbf_union_agg(c)::bytea FROM (SELECT c FROM toast_plain UNION ALL SELECT c FROM toast_packed) u)
         = (SELECT cbf_union_agg(c)::bytea FROM (VALUES ((SELECT c FROM toast_packed)), ((SELECT c FROM toast_packed))) v(c))
         AS cbf_union;
DROP TABLE toast_plain, toast_packed;
