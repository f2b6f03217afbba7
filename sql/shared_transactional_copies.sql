-- A transaction that adds many new items gathers them, past its key locks,
-- in private copies of the sub-filters they go to, merged at commit. Its
-- own lookups see them; a rollback to a savepoint that drops some of them
-- puts the rest back in its index; an abort leaves nothing. Objects of
-- capacity 1000 (they grow to several sub-filters: one copy each) at fpr
-- 0.001: a bound of 1% of the keys leaves room for the false positives.
SELECT shared_cbf_create('copies_c', 1000, 0.001), shared_bloom_create('copies_b', 1000, 0.001),
       shared_cbf_create('copies_k', 1000, 0.001, 'block');

-- merged at commit
BEGIN;
SELECT count(*) FILTER (WHERE shared_cbf_add('copies_c', g)) > 19800 AS cbf_new,
       count(*) FILTER (WHERE shared_bloom_add('copies_b', g)) > 19800 AS bloom_new,
       count(*) FILTER (WHERE shared_cbf_add('copies_k', g)) > 19800 AS block_new
FROM generate_series(1, 20000) g;
-- a second add of each is not new, and the transaction sees its own adds
SELECT count(*) FILTER (WHERE shared_cbf_add('copies_c', g)) AS cbf_new_again,
       count(*) FILTER (WHERE shared_bloom_add('copies_b', g)) AS bloom_new_again,
       count(*) FILTER (WHERE shared_cbf_add('copies_k', g)) AS block_new_again
FROM generate_series(1, 20000) g;
SELECT count(*) FILTER (WHERE shared_cbf_contains('copies_c', g)) AS cbf_sees,
       count(*) FILTER (WHERE shared_bloom_contains('copies_b', g)) AS bloom_sees,
       count(*) FILTER (WHERE shared_cbf_contains('copies_k', g)) AS block_sees
FROM generate_series(1, 20000) g;
SELECT count(*) FILTER (WHERE shared_cbf_add('copies_c', g)) AS cbf_third,
       count(*) FILTER (WHERE shared_cbf_add('copies_k', g)) AS block_third
FROM generate_series(1, 20000, 7) g;
COMMIT;
-- every key is there; the counts are the adds (every seventh key: 3),
-- never fewer, more only where a key's counters are all shared with others
SELECT count(*) FILTER (WHERE shared_cbf_contains('copies_c', g)) AS cbf_has,
       count(*) FILTER (WHERE shared_bloom_contains('copies_b', g)) AS bloom_has,
       count(*) FILTER (WHERE shared_cbf_contains('copies_k', g)) AS block_has
FROM generate_series(1, 20000) g;
SELECT count(*) FILTER (WHERE c < adds) AS cbf_counts_low, count(*) FILTER (WHERE c > adds) < 40 AS cbf_few_high,
       count(*) FILTER (WHERE k < adds) AS block_counts_low, count(*) FILTER (WHERE k > adds) < 40 AS block_few_high
FROM (SELECT shared_cbf_count_of('copies_c', g) AS c, shared_cbf_count_of('copies_k', g) AS k,
             2 + (g % 7 = 1)::int AS adds
      FROM generate_series(1, 20000) g) counts;
-- a counting filter holds every add: 20000 + 20000 + 2858
SELECT name, subfilters > 2 AS grown, CASE WHEN kind = 'cbf' THEN items_held END AS items_held
FROM shared_objects WHERE name LIKE 'copies_%' ORDER BY name;

-- a rollback to a savepoint drops items of the copies
BEGIN;
SELECT count(*) FILTER (WHERE shared_cbf_add('copies_c', g)) > 19800 AS cbf_new,
       count(*) FILTER (WHERE shared_bloom_add('copies_b', g)) > 19800 AS bloom_new
FROM generate_series(20001, 40000) g;
SAVEPOINT s;
SELECT count(*) FILTER (WHERE shared_cbf_add('copies_c', g)) > 9900 AS cbf_new_in_savepoint,
       count(*) FILTER (WHERE shared_bloom_add('copies_b', g)) > 9900 AS bloom_new_in_savepoint
FROM generate_series(40001, 50000) g;
ROLLBACK TO s;
-- what the rollback dropped is new again, what came before is not
SELECT count(*) FILTER (WHERE shared_cbf_add('copies_c', g)) > 4950 AS cbf_new_after_rollback,
       count(*) FILTER (WHERE shared_bloom_add('copies_b', g)) > 4950 AS bloom_new_after_rollback
FROM generate_series(40001, 45000) g;
SELECT count(*) FILTER (WHERE shared_cbf_add('copies_c', g)) AS cbf_new_before,
       count(*) FILTER (WHERE shared_bloom_add('copies_b', g)) AS bloom_new_before
FROM generate_series(20001, 40000, 13) g;
COMMIT;
SELECT count(*) FILTER (WHERE shared_cbf_contains('copies_c', g)) AS cbf_has,
       count(*) FILTER (WHERE shared_bloom_contains('copies_b', g)) AS bloom_has
FROM generate_series(20001, 45000) g;
SELECT count(*) FILTER (WHERE c < adds) AS cbf_counts_low, count(*) FILTER (WHERE c > adds) < 50 AS cbf_few_high
FROM (SELECT shared_cbf_count_of('copies_c', g) AS c, 1 + (g <= 40000 AND g % 13 = 7)::int AS adds
      FROM generate_series(20001, 45000) g) counts;
SELECT count(*) FILTER (WHERE shared_cbf_contains('copies_c', g)) < 50 AS cbf_dropped,
       count(*) FILTER (WHERE shared_bloom_contains('copies_b', g)) < 50 AS bloom_dropped
FROM generate_series(45001, 50000) g;

-- Once a rollback gives the copies up, the transaction still sees the items
-- it was told it had seen because a copy alone answered for them (its false
-- positives: the fresh objects hold nothing committed; fpr 0.05 makes many).
SELECT shared_cbf_create('copies_fc', 1000, 0.05), shared_bloom_create('copies_fb', 1000, 0.05);
BEGIN;
SELECT count(*) FILTER (WHERE NOT shared_cbf_add('copies_fc', g)) > 0 AS cbf_copy_false_positives,
       count(*) FILTER (WHERE NOT shared_bloom_add('copies_fb', g)) > 0 AS bloom_copy_false_positives
FROM generate_series(1, 20000) g;
SAVEPOINT s;
SELECT shared_cbf_add('copies_fc', 0), shared_bloom_add('copies_fb', 0);
ROLLBACK TO s;
SELECT count(*) FILTER (WHERE shared_cbf_contains('copies_fc', g)) AS cbf_sees,
       count(*) FILTER (WHERE shared_bloom_contains('copies_fb', g)) AS bloom_sees
FROM generate_series(1, 20000) g;
COMMIT;
SELECT items_held AS cbf_items_held FROM shared_objects WHERE name = 'copies_fc';
SELECT shared_drop('copies_fc'), shared_drop('copies_fb');

-- an abort leaves nothing of the copies, and gives their room back
SELECT items_held AS cbf_items_before FROM shared_objects WHERE name = 'copies_c';
BEGIN;
SELECT count(*) FILTER (WHERE shared_cbf_add('copies_c', g)) > 19800 AS cbf_new,
       count(*) FILTER (WHERE shared_bloom_add('copies_b', g)) > 19800 AS bloom_new
FROM generate_series(100001, 120000) g;
ROLLBACK;
SELECT count(*) FILTER (WHERE shared_cbf_contains('copies_c', g)) < 100 AS cbf_aborted,
       count(*) FILTER (WHERE shared_bloom_contains('copies_b', g)) < 100 AS bloom_aborted
FROM generate_series(100001, 120000) g;
SELECT items_held AS cbf_items_after FROM shared_objects WHERE name = 'copies_c';

SELECT shared_drop('copies_c'), shared_drop('copies_b'), shared_drop('copies_k');
