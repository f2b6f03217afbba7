-- Lookups in scaling shared filters after they took 8 times their initial
-- capacity (sub-filters of n/8, n/4, n/2 and n items, fpr 0.01 asked; the
-- lookup checks each, newest first), against fixed-size objects built for
-- the n rows of t at 0.01, and the plainest per-row predicate. Members (x)
-- and non-members (-x, absent but for false positives).
-- @setup
SELECT shared_drop('bench_sb_fixed', true), shared_drop('bench_sb_grown', true), shared_drop('bench_sc_fixed', true), shared_drop('bench_sc_grown', true);
SELECT shared_bloom_create('bench_sb_fixed', (SELECT count(*) FROM t), 0.01, expansion => 0);
SELECT shared_bloom_create('bench_sb_grown', (SELECT count(*) FROM t) / 8, 0.01);
SELECT shared_cbf_create('bench_sc_fixed', (SELECT count(*) FROM t), 0.01, expansion => 0);
SELECT shared_cbf_create('bench_sc_grown', (SELECT count(*) FROM t) / 8, 0.01);
SELECT count(*) FILTER (WHERE shared_bloom_add('bench_sb_fixed', x, false)) FROM t;
SELECT count(*) FILTER (WHERE shared_bloom_add('bench_sb_grown', x, false)) FROM t;
SELECT count(*) FILTER (WHERE shared_cbf_add('bench_sc_fixed', x, false)) FROM t;
SELECT count(*) FILTER (WHERE shared_cbf_add('bench_sc_grown', x, false)) FROM t;
SELECT name, subfilters, items_held, bytes FROM shared_objects WHERE name LIKE 'bench_s%';
-- @name filter
SELECT count(*) FILTER (WHERE x <> 0) FROM t;
-- @name bloom_fixed_hit vs filter
SELECT count(*) FILTER (WHERE shared_bloom_contains('bench_sb_fixed', x)) FROM t;
-- @name bloom_grown_hit vs filter,bloom_fixed_hit
SELECT count(*) FILTER (WHERE shared_bloom_contains('bench_sb_grown', x)) FROM t;
-- @name bloom_fixed_miss vs filter
SELECT count(*) FILTER (WHERE shared_bloom_contains('bench_sb_fixed', -x)) FROM t;
-- @name bloom_grown_miss vs filter,bloom_fixed_miss
SELECT count(*) FILTER (WHERE shared_bloom_contains('bench_sb_grown', -x)) FROM t;
-- @name cbf_fixed_hit vs filter
SELECT count(*) FILTER (WHERE shared_cbf_contains('bench_sc_fixed', x)) FROM t;
-- @name cbf_grown_hit vs filter,cbf_fixed_hit
SELECT count(*) FILTER (WHERE shared_cbf_contains('bench_sc_grown', x)) FROM t;
-- @name cbf_fixed_miss vs filter
SELECT count(*) FILTER (WHERE shared_cbf_contains('bench_sc_fixed', -x)) FROM t;
-- @name cbf_grown_miss vs filter,cbf_fixed_miss
SELECT count(*) FILTER (WHERE shared_cbf_contains('bench_sc_grown', -x)) FROM t;
