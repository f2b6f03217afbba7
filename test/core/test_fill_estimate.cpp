// What a filter's fill says about it (fill_estimate.hpp): the past-capacity
// rule, the sampled fill of the per-add check against the full one, and the
// Bloom filter's fill.
#include <gtest/gtest.h>

#include <cmath>
#include <utility>
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

TEST(BloomSampledFill, IsTheFullFillForAFilterOfFewLines) {
    const bloom::Geometry g = bloom::capacity_for(200, 0.01, bloom::parse_layout("classic"));
    ASSERT_LE(g.bytes, kFillSampleLines * kFillSampleLineBytes);
    bloom::Filter f(g);
    for (int64_t i = 0; i < 300; ++i) f.insert(hash_int(i));
    const FillEstimate sampled = bloom::sampled_fill(g, f.bits()), full = bloom::fill(g, bloom::count_bits(f.bits(), g.bytes));
    EXPECT_EQ(sampled.count, full.count);
    EXPECT_EQ(sampled.fpr, full.fpr);
}

// 64 lines of 512 bits: at a fill x near one half the share's standard
// error is sqrt(0.25 / 32768) = 0.0028, the count's (-ln(1 - x) scaled)
// 0.0028 / ((1 - x) ln(1 / (1 - x))) = 0.8% for a classic filter, whose bits
// are independent. A blocked layout sets its bits line by line, which
// spreads the lines' fills more: the counting filter's bound (1.6%) there.
TEST(BloomSampledFill, EstimatesTheFullFillOfALargeFilter) {
    for (const auto& [layout, error] : {std::pair<const char*, double>{"classic", 0.008}, {"fast_multiblock32<7>", 0.016}}) {
        const bloom::Geometry g = bloom::capacity_for(100000, 0.01, bloom::parse_layout(layout));
        ASSERT_GT(g.bytes, 10 * kFillSampleLines * kFillSampleLineBytes) << layout;
        bloom::Filter f(g);
        for (int64_t i = 0; i < 100000; ++i) f.insert(hash_int(i));
        const FillEstimate sampled = bloom::sampled_fill(g, f.bits()), full = bloom::fill(g, bloom::count_bits(f.bits(), g.bytes));
        EXPECT_NEAR(sampled.count, full.count, 4 * error * full.count) << layout;
        EXPECT_NEAR(sampled.fpr, full.fpr, 0.5 * full.fpr) << layout;
    }
}

}  // namespace
