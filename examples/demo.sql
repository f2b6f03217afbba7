-- sketchshare demo. Each feature adds its scene here.

-- Scene 1: one hash for every structure. A client can predict it with
-- `printf hello | xxhsum -H2`; integers of every width agree.
SELECT sketch_hash('hello') AS hello,
       sketch_hash(42::int2) = sketch_hash(42::bigint) AS widths_agree;

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
-- 15; a saturated counter would stay stuck, see the README's caveats)
SELECT f = (SELECT cbf_union_agg(f) FROM demo_hourly
            WHERE hour IN ('2026-11-30 09:00+00', '2026-11-30 10:00+00')) AS same_as_two_hours,
       cbf_count_of(f, 42::bigint) AS visits_of_42
FROM demo_window;
