-- sketchshare demo. Each feature adds its scene here.

-- Scene 1: one hash for every structure. A client can predict it with
-- `printf hello | xxhsum -H2`; integers of every width agree.
SELECT sketch_hash('hello') AS hello,
       sketch_hash(42::int2) = sketch_hash(42::bigint) AS widths_agree;

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
