-- Memory of large filters that a backend keeps for its next queries
-- (sketchshare.reusable_memory): kept mappings are marked MADV_FREE, which
-- the kernel reports as LazyFree in the backend's smaps. The filters built
-- or read from reused memory (holding other filters' bytes) are the same
-- as from fresh memory.
-- This backend's own memory is checked: no parallel workers.
SET max_parallel_workers_per_gather = 0;
CREATE FUNCTION lazy_free_kb() RETURNS bigint LANGUAGE sql AS $$
    SELECT (regexp_match(pg_read_file('/proc/self/smaps_rollup'), 'LazyFree:\s+(\d+) kB'))[1]::bigint
$$;
-- The setting is defined when the library loads (any sketchshare function
-- loads it).
SELECT sketch_hash(1) IS NOT NULL AS loaded;
SHOW sketchshare.reusable_memory;

-- Nothing is kept with the setting at 0. Capacity 4M at 1%: 32 MiB of
-- counters, a state of 34 MiB (whole 2 MiB pages; below 32 MiB memory is
-- palloc's, which glibc keeps by itself). A bloom of n 26M at 1%: 32.4 MiB.
SET sketchshare.reusable_memory = 0;
SELECT lazy_free_kb() AS before \gset
CREATE TEMP TABLE fresh AS
SELECT (SELECT cbf_agg(i, 4000000)::bytea FROM generate_series(1, 200000) i) AS c,
       (SELECT bloom_agg(i, 26000000, 0.01)::bytea FROM generate_series(1, 200000) i) AS b;
SELECT lazy_free_kb() = :before AS nothing_kept;

-- With the default, the states are kept once the queries are done.
RESET sketchshare.reusable_memory;
SELECT cbf_count(cbf_agg(i, 4000000)) FROM generate_series(-200000, -1) i;
SELECT lazy_free_kb() - :before >= 34816 AS state_kept;
SELECT bloom_estimated_count(bloom_agg(i, 26000000, 0.01)) > 0 FROM generate_series(-200000, -1) i;

-- Built again in the kept memory (first the cbf's 34 MiB, then the bloom's
-- 34 MiB), each is the same value as from fresh memory.
SELECT cbf_agg(i, 4000000)::bytea = (SELECT c FROM fresh) AS same_cbf FROM generate_series(1, 200000) i;
SELECT bloom_agg(i, 26000000, 0.01)::bytea = (SELECT b FROM fresh) AS same_bloom FROM generate_series(1, 200000) i;

-- A stored filter fetched for lookups into kept memory answers as one
-- fetched into fresh memory: every item in, the others as the value says.
CREATE TABLE stored_filters AS SELECT c::cbf AS c, b::bloom AS b FROM fresh;
SELECT count(*) FILTER (WHERE cbf_contains((SELECT c FROM stored_filters), i)) AS cbf_found,
       count(*) FILTER (WHERE bloom_contains((SELECT b FROM stored_filters), i)) AS bloom_found
FROM generate_series(1, 200000) i;
SELECT count(*) FILTER (WHERE cbf_contains((SELECT c FROM stored_filters), i))
       = count(*) FILTER (WHERE cbf_contains((SELECT c::cbf FROM fresh), i)) AS same_cbf_answers,
       count(*) FILTER (WHERE bloom_contains((SELECT b FROM stored_filters), i))
       = count(*) FILTER (WHERE bloom_contains((SELECT b::bloom FROM fresh), i)) AS same_bloom_answers
FROM generate_series(200001, 400000) i;

-- Lowering the setting gives back what is beyond it at once.
SELECT lazy_free_kb() - :before >= 34816 AS kept_before_lowering;
SET sketchshare.reusable_memory = '40MB';
SELECT lazy_free_kb() - :before <= 40960 AS within_40mb;
SET sketchshare.reusable_memory = 0;
SELECT lazy_free_kb() = :before AS none_left;
RESET sketchshare.reusable_memory;

-- Bad settings.
-- (PostgreSQL's message for this one names the unit from 16 on: the SQLSTATE only)
\set VERBOSITY sqlstate
SET sketchshare.reusable_memory = -1;
\set VERBOSITY default
SET sketchshare.reusable_memory = 'lots';
SET sketchshare.reusable_memory = '3PB';

DROP TABLE stored_filters;
DROP FUNCTION lazy_free_kb();
