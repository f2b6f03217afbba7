
-- Needs both types: the counting filter's projection onto a Bloom filter.
CREATE FUNCTION cbf_to_bloom(filter cbf) RETURNS bloom
AS 'MODULE_PATHNAME', 'cbf_to_bloom' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbf_to_bloom(cbf) IS
'projection onto a bloom of layout cbf<k> with the same m and k (a bit set where a counter is nonzero): a quarter of the size, and bloom_contains answers as cbf_contains did';
