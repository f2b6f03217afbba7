// The counting Bloom filter's layouts (cbf_layout.hpp) and the block
// layout's kernels (cbf_block.hpp): parsing, sizing, the operations, the
// projection onto Boost.Bloom's block<uint64[2],K>, and the FPR formula
// against measurement.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "bloom/bloom.hpp"
#include "cbf/cbf.hpp"
#include "cbf/cbf_layout.hpp"

namespace {

using namespace sketch;
using namespace sketch::cbf;

Hash128 item(int64_t i) { return hash_int(i); }

struct Filter {
    Geometry g;
    std::vector<uint8_t> c;
    Filter(int64_t capacity, double fpr, const char* layout)
        : g(geometry_for(capacity, fpr, parse_layout(layout))), c(g.counter_bytes(), 0) {}
    bool add(const Hash128& h) { return cbf::add(g, c.data(), h); }
    bool remove(const Hash128& h) { return cbf::remove(g, c.data(), h); }
    bool contains(const Hash128& h) const { return cbf::contains(g, c.data(), h); }
    unsigned count_of(const Hash128& h) const { return cbf::count_of(g, c.data(), h); }
};

Errc parse_error(const char* spec) {
    try {
        parse_layout(spec);
    } catch (const Error& e) {
        return e.code();
    }
    return Errc::internal;
}

TEST(CbfLayout, ParsesAndFormats) {
    EXPECT_EQ(parse_layout("classic").kind, LayoutKind::classic);
    EXPECT_EQ(parse_layout("classic").k, 0u);
    EXPECT_EQ(parse_layout(" Classic < 7 > ").k, 7u);
    EXPECT_EQ(parse_layout("block").kind, LayoutKind::block);
    EXPECT_EQ(parse_layout("BLOCK<32>").k, 32u);
    EXPECT_EQ(format_layout(parse_layout("block<8>")), "block<8>");
    EXPECT_EQ(format_layout(parse_layout("classic<1>")), "classic<1>");
    for (const char* bad : {"", "blocked", "block<0>", "block<33>", "block<x>", "block<8", "block8>", "classic<7>x",
                            "block<>", "fast_multiblock32", "block<99999999999999999999>"})
        EXPECT_EQ(parse_error(bad), Errc::invalid_parameter) << bad;
}

TEST(CbfLayout, DefaultIsTheClassicSizingOfOldFilters) {
    for (int64_t n : {1, 1000, 1000000})
        for (double fpr : {0.5, 0.01, 1e-6}) {
            const Geometry a = geometry_for(n, fpr), b = geometry_for(n, fpr, Layout{});
            EXPECT_TRUE(a.compatible(b));
            EXPECT_EQ(a.capacity, b.capacity);
            EXPECT_EQ(format_layout(layout_of(b)), "classic<" + std::to_string(a.k) + ">");
        }
}

TEST(CbfLayout, SizingIsTheLeastThatMeetsTheRate) {
    for (const char* spec : {"block<8>", "block<3>", "classic<5>"}) {
        const Layout l = parse_layout(spec);
        const Geometry g = geometry_for(100000, 0.01, l);
        const uint64_t step = l.kind == LayoutKind::block ? kLineCounters : g.m / 2;
        EXPECT_LE(fpr_for(1e5, double(g.m), l), 0.01) << spec;
        EXPECT_GT(fpr_for(1e5, double(g.m - step), l), 0.01) << spec;
        EXPECT_EQ(g.k, l.k);
        check_geometry(g, kMaxCounters, Errc::internal);
    }
    // block without K: the smallest K among those needing the fewest
    // counters, sized as block<K> is
    for (const int64_t n : {int64_t(7), int64_t(100000), int64_t(10000000)})
        for (const double fpr : {0.1, 0.01, 1e-5}) {
            const Geometry chosen = geometry_for(n, fpr, parse_layout("block"));
            EXPECT_TRUE(chosen.blocked());
            for (uint32_t k = 1; k <= 16; ++k) {
                uint64_t m = UINT64_MAX;  // past the limit of counters
                try {
                    m = geometry_for(n, fpr, Layout{LayoutKind::block, k}).m;
                } catch (const Error& e) {
                    EXPECT_EQ(e.code(), Errc::program_limit);
                }
                if (k < chosen.k) {
                    EXPECT_LT(chosen.m, m) << n << " " << fpr << " " << k;
                } else if (k == chosen.k) {
                    EXPECT_EQ(chosen.m, m) << n << " " << fpr;
                } else {
                    EXPECT_LE(chosen.m, m) << n << " " << fpr << " " << k;
                }
            }
        }
}

// The fewest lines that meet the rate, from one item to the capacities of a
// grown object's later sub-filters: the sizing's bracket starts near the
// answer and must still find the least one.
TEST(CbfLayout, BlockSizingIsTheFewestLinesAtEveryCapacity) {
    for (const int64_t n : {int64_t(1), int64_t(7), int64_t(1000), int64_t(100000), int64_t(10000000), int64_t(80000000)})
        for (const double fpr : {0.5, 0.01, 1e-4, 1e-7})
            for (const uint32_t k : {1u, 3u, 6u, 7u, 12u, 16u}) {
                const Layout l{LayoutKind::block, k};
                Geometry g;
                try {
                    g = geometry_for(n, fpr, l);
                } catch (const Error& e) {
                    EXPECT_EQ(e.code(), Errc::program_limit) << n << " " << fpr << " " << k;
                    continue;
                }
                EXPECT_LE(fpr_for(double(n), double(g.m), l), fpr) << n << " " << fpr << " " << k;
                if (g.m > kLineCounters) {
                    EXPECT_GT(fpr_for(double(n), double(g.m - kLineCounters), l), fpr) << n << " " << fpr << " " << k;
                }
            }
}

// Near a rate of 1 at billions of items a line changes the computed rate by
// less than its rounding, so the lines that meet it are not one run: the
// sizing must try the counts a doubling from one line tries, or stored
// objects and values of these parameters would be read with other lines than
// they were made with (the lines here are those of that doubling).
TEST(CbfLayout, BlockSizingKeepsItsAnswerWhereTheRateIsNotMonotone) {
    struct Case {
        int64_t n;
        double fpr;
        uint32_t k;
        uint64_t max_counters;
        uint64_t lines;
        uint32_t k_found;
    };
    const Case cases[] = {
        {121003648645, 0.99999902026324172, 8, kMaxCounters, 463184351, 8},
        {33658091378, 0.99999997879252867, 21, kMaxCounters, 246759513, 21},
        {299918040547, 0.99999909327852576, 1, kMaxCounters, 168406353, 1},
        {172186303978, 0.99999997140520425, 4, kMaxCounters, 283713242, 4},
        {80677959816, 0.99999999073663448, 0, uint64_t(179400033) * kLineCounters, 34075298, 1},  // the K search
    };
    for (const Case& c : cases) {
        const Geometry g = geometry_for(c.n, c.fpr, Layout{LayoutKind::block, c.k}, c.max_counters);
        EXPECT_EQ(g.m, c.lines * kLineCounters) << c.n << " " << c.fpr << " " << c.k;
        EXPECT_EQ(g.k, c.k_found) << c.n << " " << c.fpr << " " << c.k;
    }
}

// A capacity near 2^63 at a tiny fpr wants more lines than any count holds.
TEST(CbfLayout, BlockSizingPastEveryCountIsAProgramLimit) {
    for (const uint32_t k : {0u, 8u}) {
        try {
            geometry_for(INT64_MAX, 1e-300, Layout{LayoutKind::block, k});
            FAIL() << k;
        } catch (const Error& e) {
            EXPECT_EQ(e.code(), Errc::program_limit) << k;
        }
    }
}

TEST(CbfLayout, TooLargeIsAProgramLimit) {
    try {
        geometry_for(int64_t(1) << 40, 0.01, parse_layout("block"), uint64_t(1) << 29);
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), Errc::program_limit);
        EXPECT_NE(std::string(e.what()).find("block"), std::string::npos) << e.what();
    }
}

TEST(CbfBlock, GeometryChecks) {
    Geometry g = geometry_for(1000, 0.01, parse_layout("block<6>"));
    g.m += 64;  // not whole lines
    EXPECT_THROW(check_geometry(g, kMaxCounters, Errc::corrupted), Error);
    g.m = 0;
    EXPECT_THROW(check_geometry(g, kMaxCounters, Errc::corrupted), Error);
    g.m = kLineCounters * 3;  // any number of lines
    EXPECT_NO_THROW(check_geometry(g, kMaxCounters, Errc::corrupted));
    g.scheme = 3;
    EXPECT_THROW(check_geometry(g, kMaxCounters, Errc::corrupted), Error);
}

TEST(CbfBlock, AnItemsCountersShareOneLine) {
    Filter f(10000, 0.01, "block<8>");
    const Hash128 h = item(42);
    f.add(h);
    uint64_t line = UINT64_MAX;
    for (uint64_t i = 0; i < f.g.m; ++i)
        if (counter_at(f.c.data(), i) != 0) {
            if (line == UINT64_MAX) line = i / kLineCounters;
            EXPECT_EQ(i / kLineCounters, line) << i;
        }
    EXPECT_NE(line, UINT64_MAX);
}

TEST(CbfBlock, AddRemoveCountOf) {
    Filter f(1000, 0.01, "block<7>");
    const std::vector<uint8_t> empty = f.c;
    EXPECT_TRUE(f.add(item(1)));
    EXPECT_FALSE(f.add(item(1)));
    EXPECT_GE(f.count_of(item(1)), 2u);
    EXPECT_FALSE(f.remove(item(2)));  // never added: nothing changes
    EXPECT_TRUE(f.remove(item(1)));
    EXPECT_TRUE(f.remove(item(1)));
    EXPECT_EQ(f.c, empty);  // every increment taken back, repeated draws included
    EXPECT_FALSE(f.contains(item(1)));
    EXPECT_FALSE(f.remove(item(1)));
    EXPECT_EQ(f.c, empty);
}

TEST(CbfBlock, RepeatedDrawsCountTwiceAndRemoveTwice) {
    // With k = 32 draws from 128 counters, most items draw some counter
    // twice: such a counter holds 2 after one add, and remove takes both.
    Filter f(100, 0.5, "block<32>");
    int repeated = 0;  // items that drew some counter more than once
    for (int64_t i = 0; i < 50; ++i) {
        const std::vector<uint8_t> before = f.c;
        f.add(item(i));
        uint64_t total = 0, most = 0;
        for (uint64_t c = 0; c < f.g.m; ++c) {
            const uint64_t d = counter_at(f.c.data(), c) - counter_at(before.data(), c);
            total += d;
            most = std::max(most, d);
        }
        EXPECT_EQ(total, 32u) << i;  // every draw counted, none lost to a repeat (nothing saturated yet)
        repeated += most > 1;
        EXPECT_TRUE(f.remove(item(i)));
        EXPECT_EQ(f.c, before) << i;
        f.add(item(i));
    }
    EXPECT_GT(repeated, 40);  // P(32 draws from 128 all distinct) is about 2%
}

TEST(CbfBlock, SaturatesAt15AndRemoveLeavesSaturatedCounters) {
    Filter f(1000, 0.01, "block<6>");
    for (int i = 0; i < 20; ++i) f.add(item(7));
    EXPECT_EQ(f.count_of(item(7)), 15u);
    EXPECT_GT(counters_saturated(f.g, f.c.data()), 0u);
    for (int i = 0; i < 20; ++i) EXPECT_TRUE(f.remove(item(7)));  // counters at 15 stay: may mean more than 15
    EXPECT_EQ(f.count_of(item(7)), 15u);
    EXPECT_TRUE(f.contains(item(7)));
}

TEST(CbfBlock, AddManyEqualsAddOneByOne) {
    Filter a(50000, 0.01, "block<8>"), b(50000, 0.01, "block<8>");
    std::vector<Hash128> hs;
    for (int64_t i = 0; i < 60000; ++i) hs.push_back(item(i % 40000));  // repeats too
    size_t fresh = 0;
    for (const Hash128& h : hs) fresh += a.add(h);
    EXPECT_EQ(add_many(b.g, b.c.data(), hs.data(), hs.size()), fresh);
    EXPECT_EQ(a.c, b.c);
}

TEST(CbfBlock, NoFalseNegativesAndMergeIsTheSumOfAdds) {
    Filter a(20000, 0.01, "block"), b(20000, 0.01, "block"), both(20000, 0.01, "block");
    for (int64_t i = 0; i < 10000; ++i) {
        (i % 2 ? a : b).add(item(i));
        both.add(item(i));
    }
    ASSERT_TRUE(a.g.compatible(b.g));
    merge(a.g, a.c.data(), b.c.data());
    EXPECT_EQ(a.c, both.c);
    for (int64_t i = 0; i < 10000; ++i) ASSERT_TRUE(a.contains(item(i))) << i;
    // a classic filter never merges with a blocked one
    const Geometry classic = geometry_for(20000, 0.01, Layout{LayoutKind::classic, a.g.k});
    EXPECT_FALSE(classic.compatible(a.g));
}

// The projection is Boost.Bloom's block<uint64[2],K> with one position per
// line, bit for bit, and it answers as the counting filter does.
TEST(CbfBlock, ProjectionIsTheBloomBlockLayout) {
    for (const char* spec : {"block<1>", "block<7>", "block<8>", "block<9>", "block<16>", "block<32>"}) {
        Filter f(5000, 0.01, spec);
        bloom::Layout bl = bloom::parse_layout("block<uint64[2]," + std::to_string(f.g.k) + ">");
        bloom::Filter direct(bloom::geometry_for_positions(bl, f.g.lines()));
        for (int64_t i = 0; i < 6000; ++i) {
            f.add(item(i));
            direct.insert(item(i));
        }
        for (int64_t i = 0; i < 600; ++i) f.remove(item(i * 7));
        bloom::Filter projected(direct.geometry());
        to_bits(f.g, f.c.data(), reinterpret_cast<uint64_t*>(projected.bits()));
        for (uint64_t i = 0; i < f.g.m; ++i)
            ASSERT_EQ((projected.bits()[i >> 3] >> (i & 7)) & 1, counter_at(f.c.data(), i) != 0 ? 1 : 0) << spec << " " << i;
        for (int64_t i = 0; i < 40000; ++i)
            ASSERT_EQ(projected.contains(item(i)), f.contains(item(i))) << spec << " item " << i;
        // before the removes, the projection is the Bloom filter of the same adds
        Filter g(5000, 0.01, spec);
        for (int64_t i = 0; i < 6000; ++i) g.add(item(i));
        bloom::Filter again(direct.geometry());
        to_bits(g.g, g.c.data(), reinterpret_cast<uint64_t*>(again.bits()));
        EXPECT_TRUE(again == direct) << spec;
    }
}

TEST(CbfBlock, CountEstimate) {
    Filter f(100000, 0.01, "block<8>");
    for (int64_t i = 0; i < 50000; ++i) f.add(item(i));
    const double estimate = estimate_count(f.g, counters_set(f.g, f.c.data()));
    EXPECT_NEAR(estimate, 50000, 50000 * 0.02);
}

// n distinct items into a filter sized for n, then `probes` items never
// added. fill_fpr is the exact rate of the filter as it is, so the observed
// hits lie within 4 binomial standard deviations of it. The formula
// (expected_fpr, the Poisson mixture over line loads) predicts the mean over
// filters: it must meet the observed rate within the same noise plus the
// filter's own spread around that mean (its fill varies by about
// 1/sqrt(n) relative; 2% covers several of those at n >= 50000).
void check_fpr(const char* spec, int64_t n, double fpr, int64_t probes, double model_tolerance) {
    Filter f(n, fpr, spec);
    std::vector<Hash128> hs(n);
    for (int64_t i = 0; i < n; ++i) hs[i] = item(i);
    add_many(f.g, f.c.data(), hs.data(), hs.size());
    int64_t hits = 0;
    for (int64_t i = 0; i < probes; ++i) hits += f.contains(item(n + i));
    const double observed = double(hits) / double(probes);
    const double exact = fill_fpr(f.g, f.c.data(), counters_set(f.g, f.c.data()));
    const double formula = expected_fpr(f.g, double(n));
    const double sigma = std::sqrt(exact * (1 - exact) / double(probes));
    EXPECT_NEAR(observed, exact, 4 * sigma) << spec << " exact " << exact << " observed " << observed;
    EXPECT_NEAR(observed / formula, 1.0, model_tolerance + 4 * sigma / formula)
        << spec << " formula " << formula << " observed " << observed;
    EXPECT_LE(formula, fpr);
}

TEST(CbfBlockFpr, MeasuredAgreesWithTheFormula) {
    check_fpr("block<8>", 100000, 0.01, 1000000, 0.02);
    check_fpr("block<4>", 100000, 0.05, 400000, 0.02);
    check_fpr("block<12>", 50000, 0.001, 2000000, 0.02);
    check_fpr("block", 200000, 0.01, 1000000, 0.02);
}

}  // namespace
