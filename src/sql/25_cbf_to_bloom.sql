
-- Needs both types: the counting filter's projection onto a Bloom filter.
CREATE FUNCTION cbf_to_bloom(filter cbf) RETURNS bloom
AS 'MODULE_PATHNAME', 'cbf_to_bloom' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbf_to_bloom(cbf) IS
'projection onto a bloom with the same m and k (a bit set where a counter is nonzero; layout cbf<k> for classic<k>, block<uint64[2],k> for block<k>): a quarter of the size, and bloom_contains answers as cbf_contains did';
