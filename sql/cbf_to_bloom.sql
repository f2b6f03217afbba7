-- cbf_to_bloom: the projection answers exactly as the counting filter did
CREATE TABLE c2b_items AS SELECT i::bigint AS x FROM generate_series(1, 3000) i;
CREATE TABLE c2b AS SELECT cbf_agg(x, 2000, 0.02) AS f FROM c2b_items;
CREATE TABLE c2b_bloom AS SELECT cbf_to_bloom(f) AS b FROM c2b;
-- same m and k, a quarter of the bytes, layout cbf<k>
SELECT bloom_info(b) ->> 'layout' AS layout,
       (bloom_info(b) ->> 'capacity_bits')::bigint = (cbf_stats(f) ->> 'counters')::bigint AS same_m,
       (bloom_info(b) ->> 'k')::int = (cbf_stats(f) ->> 'hashes')::int AS same_k,
       (bloom_info(b) ->> 'bits_set')::bigint = (cbf_stats(f) ->> 'counters_set')::bigint AS same_bits_set,
       octet_length(f::bytea) AS cbf_bytes, octet_length(b::bytea) AS bloom_bytes
FROM c2b, c2b_bloom;
-- every probe agrees: members (all true), and 100000 non-members (some false positives)
SELECT count(*) AS probes,
       count(*) FILTER (WHERE bloom_contains(b, p.x) = cbf_contains(f, p.x)) AS agree,
       count(*) FILTER (WHERE bloom_contains(b, p.x)) > 3000 AS has_false_positives
FROM c2b, c2b_bloom, (SELECT i::bigint AS x FROM generate_series(1, 103000) i) p;
-- text items and removals: the projection is taken of the filter as it is
SELECT bloom_contains(cbf_to_bloom(cbf_add(cbf_empty(100), 'abc')), 'abc') AS text_member,
       bloom_contains(cbf_to_bloom(cbf_remove(cbf_add(cbf_empty(100), 'abc'), 'abc')), 'abc') AS removed_absent;
-- an empty filter projects to an empty Bloom filter
SELECT bloom_info(cbf_to_bloom(cbf_empty(10, 0.5))) ->> 'bits_set' AS bits_set,
       bloom_info(cbf_to_bloom(cbf_empty(10, 0.5))) ->> 'capacity_bits' AS capacity_bits;
-- bad input: NULL gives NULL, a corrupted value is refused
SELECT cbf_to_bloom(NULL) IS NULL AS null_in_null_out;
SELECT cbf_to_bloom('\x00'::bytea::cbf);
