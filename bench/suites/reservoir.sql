-- reservoir_sample against what a user runs today, over t(x bigint, s text, g int).
-- @setup
SET sketchshare.seed = 'bench';
-- @name count
SELECT count(x) FROM t;
-- @name reservoir_sample_100 vs count
SELECT reservoir_sample(x, 100) FROM t;
-- @name order_by_random_limit_100 vs count,reservoir_sample_100
SELECT x FROM t ORDER BY random() LIMIT 100;
-- @name reservoir_sample_text_100 vs count
SELECT reservoir_sample(s, 100) FROM t;
-- @name weighted_100 vs reservoir_sample_100
SELECT reservoir_sample(x, 100, g + 1) FROM t;
-- @name grouped_count
SELECT g, count(x) FROM t GROUP BY g;
-- @name grouped_reservoir_sample_10 vs grouped_count
SELECT g, reservoir_sample(x, 10) FROM t GROUP BY g;
-- @name grouped_row_number_10 vs grouped_count,grouped_reservoir_sample_10
SELECT g, x FROM (SELECT g, x, row_number() OVER (PARTITION BY g ORDER BY random()) AS rn FROM t) w WHERE rn <= 10;
-- @name grouped_weighted_10 vs grouped_reservoir_sample_10
SELECT g, reservoir_sample(x, 10, g + 1) FROM t GROUP BY g;
