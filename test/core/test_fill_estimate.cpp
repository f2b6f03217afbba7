// What a filter's fill says about it (fill_estimate.hpp): the past-capacity
// rule, the sampled fill of the per-add check against the full one, and the
// Bloom filter's fill.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "bloom/bloom_fill.hpp"
#include "cbf/cbf.hpp"
#include "cbf/cbf_layout.hpp"
#include "fill_estimate.hpp"

namespace {

using namespace sketch;

TEST(PastCapacity, NeedsBothEstimatesAboveTheCountByTheMargin) {
    EXPECT_FALSE(past_capacity({100, 0.5}, 100, 0.01));    // the rate alone
    EXPECT_FALSE(past_capacity({104, 0.5}, 100, 0.01));    // within the margin
    EXPECT_FALSE(past_capacity({1000, 0.005}, 100, 0.01));  // the count alone (memory rounded up)
    EXPECT_TRUE(past_capacity({106, 0.011}, 100, 0.01));
}

struct Counters {
    cbf::Geometry g;
    std::vector<uint8_t> c;
    Counters(int64_t capacity, const char* layout, int64_t items)
        : g(cbf::geometry_for(capacity, 0.01, cbf::parse_layout(layout))), c(g.counter_bytes(), 0) {
        for (int64_t i = 0; i < items; ++i) cbf::add(g, c.data(), hash_int(i));
    }
};

TEST(SampledFill, IsTheFullFillForAFilterOfFewLines) {
    for (const char* layout : {"classic", "block"}) {
        const Counters f(200, layout, 300);  // 64 lines or fewer
        ASSERT_LE(f.g.counter_bytes(), kFillSampleLines * kFillSampleLineBytes) << layout;
        const FillEstimate sampled = cbf::sampled_fill(f.g, f.c.data()), full = cbf::fill(f.g, f.c.data());
        EXPECT_EQ(sampled.count, full.count) << layout;
        EXPECT_EQ(sampled.fpr, full.fpr) << layout;
    }
}

// 64 lines of 128 counters: the fill's standard error is at most
// sqrt(0.25 / 8192) = 0.0055; the count's, at a fill near one half, about
// 1.6% (fill_estimate.hpp). Four of them bound the difference.
TEST(SampledFill, EstimatesTheFullFillOfALargeFilter) {
    for (const char* layout : {"classic", "block"}) {
        const Counters f(100000, layout, 100000);
        ASSERT_GT(f.g.counter_bytes(), 10 * kFillSampleLines * kFillSampleLineBytes) << layout;
        const FillEstimate sampled = cbf::sampled_fill(f.g, f.c.data()), full = cbf::fill(f.g, f.c.data());
        EXPECT_NEAR(sampled.count, full.count, 4 * 0.016 * full.count) << layout;
        EXPECT_NEAR(sampled.fpr, full.fpr, 0.5 * full.fpr) << layout;  // the rate is the fill to the k-th power
    }
}

TEST(BloomFill, IsTheEstimatedCountAndTheFormulaAtIt) {
    const bloom::Geometry g = bloom::capacity_for(1000, 0.01, bloom::parse_layout("classic"));
    bloom::Filter f(g);
    for (int64_t i = 0; i < 1000; ++i) f.insert(hash_int(i));
    const uint64_t set = bloom::count_bits(f.bits(), g.bytes);
    const FillEstimate e = bloom::fill(g, set);
    EXPECT_EQ(e.count, bloom::estimated_count(g, set));
    EXPECT_EQ(e.fpr, bloom::fpr_for(e.count, double(g.bits()), g.layout));
    EXPECT_NEAR(e.count, 1000, 4 * 0.008 * 1000);  // the full fill: under 1% at 1,000
    EXPECT_NEAR(e.fpr, 0.01, 0.002);
}

}  // namespace
