-- The estimated false-positive rate of a filter as it is (bloom_info's and
-- cbf_stats' estimated_fpr), from its fill, against the rate measured over
-- N = 200,000 items never added. The filters hold 3x the items they were sized
-- for, so the rate is far above the one asked for. For k probes that land
-- independently the chance that an item never added finds all of its bits
-- (counters) set is fill^k: the cbf's estimate is that, the bloom's (the
-- count its fill gives, through classic<k>'s formula) that up to the Poisson
-- approximation, far below the measurement's own error at these sizes. So
-- each may differ from the measured rate by 5 standard deviations of a
-- binomial rate, 5 * sqrt(p (1 - p) / N).
CREATE TABLE fill_fpr AS
SELECT bloom_agg(i, 1000, 0.01, 'classic') AS b, cbf_agg(i, 1000, 0.01) AS c FROM generate_series(1, 3000) i;
WITH measured AS (
    SELECT count(*) FILTER (WHERE bloom_contains(b, i))::float8 / 200000 AS bloom_rate,
           count(*) FILTER (WHERE cbf_contains(c, i))::float8 / 200000 AS cbf_rate,
           (bloom_info(b)->>'estimated_fpr')::float8 AS bloom_estimate,
           (cbf_stats(c)->>'estimated_fpr')::float8 AS cbf_estimate
    FROM fill_fpr, generate_series(1000001, 1200000) i
    GROUP BY b, c)
SELECT bloom_estimate > 0.1 AS far_above_target,
       abs(bloom_rate - bloom_estimate) < 5 * sqrt(bloom_estimate * (1 - bloom_estimate) / 200000) AS bloom_within,
       abs(cbf_rate - cbf_estimate) < 5 * sqrt(cbf_estimate * (1 - cbf_estimate) / 200000) AS cbf_within,
       round(bloom_estimate::numeric, 2) AS bloom_estimate, round(cbf_estimate::numeric, 2) AS cbf_estimate
FROM measured;
-- the cbf's formula on its stored fill: (counters_set / counters)^hashes
SELECT (cbf_stats(c)->>'estimated_fpr')::float8
           = ((cbf_stats(c)->>'counters_set')::float8 / (cbf_stats(c)->>'counters')::float8) ^ (cbf_stats(c)->>'hashes')::int AS cbf_formula
FROM fill_fpr;
-- an empty filter: 0
SELECT bloom_info(bloom_empty(100, 0.01))->'estimated_fpr' AS bloom_empty, cbf_stats(cbf_empty(100))->'estimated_fpr' AS cbf_empty;
DROP TABLE fill_fpr;
