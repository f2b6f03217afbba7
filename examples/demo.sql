-- sketchshare demo. Each feature adds its scene here.

-- Scene 1: one hash for every structure. A client can predict it with
-- `printf hello | xxhsum -H2`; integers of every width agree.
SELECT sketch_hash('hello') AS hello,
       sketch_hash(42::int2) = sketch_hash(42::bigint) AS widths_agree;

-- Scene: reservoir sampling. A uniform sample per group in one pass (no sort
-- of the whole table as with ORDER BY random()), a weighted sample, and
-- samples stored per day and merged exactly into a sample of the whole week.
SET sketchshare.seed = 'demo';            -- reproducible (serial plans)
CREATE TEMP TABLE visits AS
SELECT i AS visit_id, (ARRAY['fr', 'de', 'jp'])[1 + i % 3] AS country,
       date '2026-11-23' + (i % 7) AS day, 1 + (i % 100) AS seconds
FROM generate_series(1, 30000) i;
SELECT country, reservoir_sample(visit_id, 5) AS sample, count(*) AS visits
FROM visits GROUP BY country ORDER BY country;
-- long visits are proportionally more likely: mean of a weighted vs uniform sample
SELECT (SELECT avg(s) FROM unnest(reservoir_sample(seconds, 1000, seconds)) s) > 60 AS weighted_mean_above_60,
       (SELECT avg(s) FROM unnest(reservoir_sample(seconds, 1000)) s) < 60 AS uniform_mean_below_60
FROM visits;
CREATE TEMP TABLE daily AS SELECT day, reservoir_agg(visit_id, 100) AS r FROM visits GROUP BY day;
SELECT reservoir_seen(week) AS visits_in_week, reservoir_count(week) AS kept,
       reservoir_stats(week) ->> 'type' AS item_type
FROM (SELECT reservoir_union_agg(r) AS week FROM daily) w;
RESET sketchshare.seed;
