-- sketchshare demo. Each feature adds its scene here.

-- Scene 1: one hash for every structure. A client can predict it with
-- `printf hello | xxhsum -H2`; integers of every width agree.
SELECT sketch_hash('hello') AS hello,
       sketch_hash(42::int2) = sketch_hash(42::bigint) AS widths_agree;

-- Scene: Bloom filters. One filter of visitors per day, built by an aggregate
-- (sized for the whole week so that the days can be merged), merged with
-- bloom_union_agg, probed with @>.
CREATE TEMP TABLE visits AS
SELECT DATE '2026-11-24' + day_no AS day, (i * 7919 + day_no * 104729) % 200000 AS user_id
FROM generate_series(0, 6) day_no, generate_series(1, 30000) i;
CREATE TEMP TABLE daily AS
SELECT day, bloom_agg(user_id, 200000, 0.01) AS seen FROM visits GROUP BY day;
SELECT day, bloom_info(seen)->>'layout' AS layout, pg_column_size(seen) AS bytes,
       round(bloom_estimated_count(seen)) AS visitors
FROM daily ORDER BY day;
-- The week: how many distinct visitors, and did these users come?
WITH week AS (SELECT bloom_union_agg(seen) AS f FROM daily)
SELECT round(bloom_estimated_count(f)) AS weekly_visitors,
       (SELECT count(DISTINCT user_id) FROM visits) AS exact,
       f @> 7919 AS user_7919, f @> 199999 AS user_199999
FROM week;
-- Which of 1000 ids never visited? No false negatives; a few false positives.
WITH week AS (SELECT bloom_union_agg(seen) AS f FROM daily)
SELECT count(*) FILTER (WHERE NOT f @> id) AS surely_new,
       count(*) FILTER (WHERE f @> id AND id NOT IN (SELECT user_id FROM visits)) AS false_positives
FROM week, generate_series(200000, 200999) id;
