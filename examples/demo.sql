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

-- Scene: counting Bloom filters. Visits over four hours; one cbf per hour
-- built by cbf_agg, a three-hour window as their union (cbf_union_agg), then
-- the oldest hour leaves the window: its visits are removed one by one.
CREATE TABLE demo_visits AS
SELECT timestamptz '2026-11-30 08:00+00' + ((i - 1) / 500) * interval '1 hour' AS hour,
       ((i * 7919) % 300)::bigint AS user_id
FROM generate_series(1, 2000) i;
CREATE TABLE demo_hourly AS
SELECT hour, cbf_agg(user_id, 5000) AS f FROM demo_visits GROUP BY hour;
SELECT hour, cbf_count(f) AS users_estimate, cbf_count_of(f, 42::bigint) AS visits_of_42
FROM demo_hourly ORDER BY hour;
CREATE TABLE demo_window AS
SELECT cbf_union_agg(f) AS f FROM demo_hourly WHERE hour < '2026-11-30 11:00+00';
SELECT cbf_count_of(f, 42::bigint) AS visits_of_42, cbf_contains(f, 7::bigint) AS seen_7,
       cbf_stats(f) -> 'saturated' AS saturated_counters FROM demo_window;
-- the 08:00 hour leaves the window: remove each of its visits
DO $$
DECLARE v record;
BEGIN
    FOR v IN SELECT user_id FROM demo_visits WHERE hour = '2026-11-30 08:00+00' LOOP
        UPDATE demo_window SET f = cbf_remove(f, v.user_id);
    END LOOP;
END $$;
-- what is left is exactly the union of 09:00 and 10:00 (no counter reached
-- 15; a saturated counter would stay stuck, see docs/cbf.md's caveats)
SELECT f = (SELECT cbf_union_agg(f) FROM demo_hourly
            WHERE hour IN ('2026-11-30 09:00+00', '2026-11-30 10:00+00')) AS same_as_two_hours,
       cbf_count_of(f, 42::bigint) AS visits_of_42
FROM demo_window;

-- Scene: Bloom filters. One filter of visitors per day, built by an aggregate
-- (sized for the whole week so that the days can be merged), merged with
-- bloom_union_agg, probed with @>.
CREATE TEMP TABLE page_visits AS
SELECT DATE '2026-11-24' + day_no AS day, (i * 7919 + day_no * 104729) % 200000 AS user_id
FROM generate_series(0, 6) day_no, generate_series(1, 30000) i;
CREATE TEMP TABLE daily_seen AS
SELECT day, bloom_agg(user_id, 200000, 0.01) AS seen FROM page_visits GROUP BY day;
SELECT day, bloom_info(seen)->>'layout' AS layout, pg_column_size(seen) AS bytes,
       round(bloom_estimated_count(seen)) AS visitors
FROM daily_seen ORDER BY day;
-- The week: how many distinct visitors, and did these users come?
WITH week AS (SELECT bloom_union_agg(seen) AS f FROM daily_seen)
SELECT round(bloom_estimated_count(f)) AS weekly_visitors,
       (SELECT count(DISTINCT user_id) FROM page_visits) AS exact,
       f @> 7919 AS user_7919, f @> 199999 AS user_199999
FROM week;
-- Which of 1000 ids never visited? No false negatives; a few false positives.
WITH week AS (SELECT bloom_union_agg(seen) AS f FROM daily_seen)
SELECT count(*) FILTER (WHERE NOT f @> id) AS surely_new,
       count(*) FILTER (WHERE f @> id AND id NOT IN (SELECT user_id FROM page_visits)) AS false_positives
FROM week, generate_series(200000, 200999) id;

-- Scene: shared objects. Four sessions load overlapping slices of one event
-- stream at the same time, and every event is loaded once: they all ask one
-- shared counting filter "has anyone seen this event?".
SELECT shared_cbf_create('demo_seen', 100000);
CREATE TABLE demo_loaded (session int, event bigint);
\! for s in 1 2 3 4; do psql -X -q -c "INSERT INTO demo_loaded SELECT $s, e FROM generate_series($s * 5000, $s * 5000 + 9999) e WHERE shared_cbf_add('demo_seen', e)" & done; wait
-- 40000 events offered, 25000 distinct (5000..29999): none loaded twice
SELECT count(*) AS loaded, count(DISTINCT event) AS distinct_loaded, count(DISTINCT session) AS sessions
FROM demo_loaded;
SELECT shared_cbf_count('demo_seen') AS estimated_distinct, shared_cbf_stats('demo_seen')->'ops' AS add_calls;
-- seal it: from now on it is read without any lock, and can be shipped (shared_export)
SELECT shared_freeze('demo_seen');
SELECT name, kind, owner, bytes, frozen, capacity, m AS counters, k AS hashes FROM shared_objects;
-- a snapshot is an ordinary cbf value: store it, query it, compare it
CREATE TABLE demo_snapshots AS SELECT now() AS taken, shared_cbf_snapshot('demo_seen') AS filter;
SELECT cbf_contains(filter, 12345) AS has_12345, cbf_contains(filter, 99999) AS has_99999 FROM demo_snapshots;
SELECT shared_drop('demo_seen');

-- Scene: a shared reservoir. Four sessions log requests at the same time and
-- feed one uniform sample of 20 of them (and a weighted sample of 5, by bytes
-- served); any session reads the samples while they are being fed.
SELECT shared_reservoir_create('demo_requests', 20);
SELECT shared_reservoir_create('demo_by_bytes', 5, weighted => true);
\! for s in 1 2 3 4; do psql -X -q -c "SELECT count(*) FILTER (WHERE shared_reservoir_add('demo_requests', 'session $s request ' || r)), count(*) FILTER (WHERE shared_reservoir_add('demo_by_bytes', 'session $s request ' || r, CASE WHEN r % 1000 = 0 THEN 1e6 ELSE 100 END)) FROM generate_series(1, 10000) r" >/dev/null & done; wait
-- 40000 requests offered, 20 kept: every one of them a request that was logged
SELECT shared_reservoir_seen('demo_requests') AS seen, shared_reservoir_count('demo_requests') AS kept,
       count(DISTINCT split_part(s, ' ', 2)) AS sessions_in_sample
FROM shared_reservoir_sample('demo_requests') s;
SELECT s AS some_sampled_requests FROM shared_reservoir_sample('demo_requests') s LIMIT 5;
-- the weighted sample: the 40 huge responses (1e6 bytes against 100) dominate it
SELECT s AS heaviest_sampled, s ~ ' request [0-9]*000$' AS is_a_huge_response
FROM shared_reservoir_sample('demo_by_bytes') s;
SELECT shared_reservoir_stats('demo_requests') - 'mmap_size' AS stats;
SELECT name, kind, layout, capacity AS k, m AS item_size, bytes FROM shared_objects WHERE kind = 'reservoir';
SELECT shared_drop('demo_requests'), shared_drop('demo_by_bytes');
