-- Adds to a fresh shared counting filter sized for the rows of t at 0.01,
-- the classic layout against block (issue 27), each against count(x):
-- immediate adds (transactional => false) and transactional ones (the
-- default: applied at commit). Each entry clears its object first (a memset
-- of its counters, 62-64 MiB at 10M rows, inside the timing). Serial plans.
-- @setup
SELECT shared_drop('bench_add_classic', true), shared_drop('bench_add_block', true);
SET sketchshare.max_shared_object_size = -1;
SET max_parallel_workers_per_gather = 0;  -- count(x) serial, as the adds are
SELECT shared_cbf_create('bench_add_classic', (SELECT count(*) FROM t), 0.01);
SELECT shared_cbf_create('bench_add_block', (SELECT count(*) FROM t), 0.01, layout => 'block');
SELECT name, layout, m, k, bytes FROM shared_objects WHERE name LIKE 'bench_add_%';
-- @name count_x
SELECT count(x) FROM t;
-- @name classic_immediate vs count_x
SELECT shared_cbf_clear('bench_add_classic');
SELECT count(*) FROM t WHERE shared_cbf_add('bench_add_classic', x, false);
-- @name block_immediate vs count_x,classic_immediate
SELECT shared_cbf_clear('bench_add_block');
SELECT count(*) FROM t WHERE shared_cbf_add('bench_add_block', x, false);
-- @name classic_transactional vs count_x
SELECT shared_cbf_clear('bench_add_classic');
SELECT count(*) FROM t WHERE shared_cbf_add('bench_add_classic', x);
-- @name block_transactional vs count_x,classic_transactional
SELECT shared_cbf_clear('bench_add_block');
SELECT count(*) FROM t WHERE shared_cbf_add('bench_add_block', x);
