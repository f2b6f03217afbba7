#!/usr/bin/env bash
# Shared reservoirs under concurrent load: 4 pgbench clients x 10000 adds
# (100 batches of 100 distinct items each, handed out by a sequence) into one
# uniform and one weighted reservoir. Then seen = 40000 exactly, count = k,
# every sampled item is one that was added (each at most once), the stored
# counts the clients saw add up to the reservoir's own, and the uniform
# sample's mean item number is within 5 standard deviations of the middle.
set -euo pipefail
: "${SKETCH_ROOT:?}" "${PGHOST:?}" "${PGPORT:?}"
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
start_test sketchshare_sres_concurrency

K=1000
q "SELECT shared_reservoir_create('conc', $K, 32)" >/dev/null
q "SELECT shared_reservoir_create('conc_w', $K, 32, weighted => true)" >/dev/null
q "SELECT shared_reservoir_seed('conc', 6), shared_reservoir_seed('conc_w', 6)" >/dev/null
q "CREATE TABLE results (batch bigint, stored bigint, stored_w bigint)"

echo "== 4 clients x 10000 adds into each reservoir"
load_batches 4 400 100 "count(*) FILTER (WHERE shared_reservoir_add('conc', 'item-' || g)),
                        count(*) FILTER (WHERE shared_reservoir_add('conc_w', 'item-' || g, 1 + g % 7))"
for r in conc conc_w; do
    check "$r: seen = 40000" "SELECT shared_reservoir_seen('$r') = 40000"
    check "$r: count = k" "SELECT shared_reservoir_count('$r') = $K"
    check "$r: the sample holds k distinct items, each one that was added" \
        "SELECT count(*) = $K AND count(DISTINCT s) = $K
                AND bool_and(s ~ '^item-[0-9]+\$' AND substr(s, 6)::int BETWEEN 0 AND 39999)
         FROM shared_reservoir_sample('$r') s"
    check "$r: ops = 40000" "SELECT (shared_reservoir_stats('$r')->>'ops')::int = 40000"
done
check "conc: the clients' stored counts add up" \
    "SELECT sum(stored) = (shared_reservoir_stats('conc')->>'stored')::bigint FROM results"
check "conc_w: the clients' stored counts add up" \
    "SELECT sum(stored_w) = (shared_reservoir_stats('conc_w')->>'stored')::bigint FROM results"
# Uniform over 0..39999: sd of one item 11547, of the mean of k = 1000 drawn
# without replacement about 11547 / sqrt(1000) = 365; 5 sd = 1826.
q "SELECT 'uniform sample mean: ' || avg(substr(s, 6)::int) FROM shared_reservoir_sample('conc') s"
check "conc: sample mean within 5 sd of 19999.5" \
    "SELECT abs(avg(substr(s, 6)::int) - 19999.5) < 1826 FROM shared_reservoir_sample('conc') s"
# Weighted 1 + g % 7 (stream mean 4): with k / n = 2.5% an item is kept with
# probability nearly proportional to its weight, so a kept item's weight has
# the size-biased mean E[w^2] / E[w] = 20 / 4 = 5 and variance
# E[w^3] / E[w] - 25 = 3: the mean of 1000 has sd 0.055. Checked within
# 4.6..5.3 (the upper side a little wider for the without-replacement bias).
q "SELECT 'weighted sample mean weight: ' || avg(1 + substr(s, 6)::int % 7) FROM shared_reservoir_sample('conc_w') s"
check "conc_w: heavier items are over-represented" \
    "SELECT avg(1 + substr(s, 6)::int % 7) BETWEEN 4.6 AND 5.3 FROM shared_reservoir_sample('conc_w') s"

echo "== freeze, export, attach"
q "SELECT shared_freeze('conc')" >/dev/null
q "SELECT shared_export('conc', '$WORK/conc.rsv')" >/dev/null
q "SELECT shared_attach('conc_copy', '$WORK/conc.rsv')" >/dev/null
check "the attached copy is a read-only reservoir with the same sample" \
    "SELECT (SELECT array_agg(s ORDER BY s) FROM shared_reservoir_sample('conc') s)
          = (SELECT array_agg(s ORDER BY s) FROM shared_reservoir_sample('conc_copy') s)
        AND shared_reservoir_seen('conc_copy') = 40000
        AND (shared_reservoir_stats('conc_copy')->>'readonly')::bool
        AND (SELECT kind = 'reservoir' AND readonly FROM shared_objects WHERE name = 'conc_copy')"
check_error "the attached copy refuses adds" 'is frozen' "SELECT shared_reservoir_add('conc_copy', 'x')"
echo "all shared reservoir concurrency checks passed"
