-- Shared reservoirs over t(x bigint, s text, g int): one row at a time
-- (exclusive lock, text form of the item, Algorithm R step per row) and one
-- array per statement, against count(x), the value aggregate and ORDER BY random().
-- @setup
SELECT shared_drop('bench_rs', true), shared_drop('bench_rsw', true);
SELECT shared_reservoir_create('bench_rs', 100), shared_reservoir_create('bench_rsw', 100, weighted => true);
SET sketchshare.seed = 'bench';
-- @name count
SELECT count(x) FROM t;
-- @name reservoir_sample_100 vs count
SELECT reservoir_sample(x, 100) FROM t;
-- @name order_by_random_limit_100 vs count
SELECT x FROM t ORDER BY random() LIMIT 100;
-- @name shared_add_100 vs count,reservoir_sample_100
SELECT count(*) FILTER (WHERE shared_reservoir_add('bench_rs', x)) FROM t;
-- @name shared_add_text_100 vs shared_add_100
SELECT count(*) FILTER (WHERE shared_reservoir_add('bench_rs', s)) FROM t;
-- @name shared_add_many_100 vs count,shared_add_100
SELECT shared_reservoir_add_many('bench_rs', array_agg(x)) FROM t;
-- @name shared_add_weighted_100 vs shared_add_100
SELECT count(*) FILTER (WHERE shared_reservoir_add('bench_rsw', x, g + 1)) FROM t;
