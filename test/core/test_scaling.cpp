// The series of sub-filters of a scaling shared filter (shared/scaling):
// capacities and rates, the room an add needs, the expansion argument, each
// kind's sub-filters in the payload, and the false-positive rate of a whole
// filled to the capacity of each of its sub-filters, measured against the
// bound of the derivation; and the items held (shared/held_items):
// concurrent reservations, settling, growth's published count.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <thread>
#include <vector>

#include "bloom/bloom.hpp"
#include "bloom/shared_bloom_format.hpp"
#include "cbf/shared_cbf_format.hpp"
#include "error.hpp"
#include "shared/held_items.hpp"
#include "shared/scaling.hpp"
#include "test_bloom_util.hpp"

namespace {

namespace sh = sketch::shared;
namespace sb = sketch::bloom;
namespace sbf = sketch::shared_bloom;
namespace scf = sketch::shared_cbf;

TEST(Scaling, SeriesOfCapacitiesAndRates) {
    const sh::Series s{1000, 0.01, 2};
    EXPECT_EQ(sh::subfilter_capacity(s, 0), 1000u);
    EXPECT_EQ(sh::subfilter_capacity(s, 3), 8000u);
    EXPECT_DOUBLE_EQ(sh::subfilter_fpr(s, 0), 0.005);
    EXPECT_DOUBLE_EQ(sh::subfilter_fpr(s, 3), 0.01 / 16);
    EXPECT_EQ(sh::capacity_of(s, 4), 15000u);
    double sum = 0;
    for (uint32_t i = 0; i < sh::kMaxSubfilters; ++i) sum += sh::subfilter_fpr(s, i);
    EXPECT_LT(sum, 0.01);

    const sh::Series same{1000, 0.01, 1};
    EXPECT_EQ(sh::subfilter_capacity(same, 5), 1000u);
    EXPECT_EQ(sh::capacity_of(same, 5), 5000u);

    const sh::Series fixed{1000, 0.01, 0};
    EXPECT_FALSE(fixed.scaling());
    EXPECT_DOUBLE_EQ(sh::subfilter_fpr(fixed, 0), 0.01);
    EXPECT_EQ(sh::capacity_of(fixed, 1), 1000u);
}

TEST(Scaling, CapacitiesSaturate) {
    const sh::Series s{uint64_t(1) << 40, 0.01, 16};
    EXPECT_EQ(sh::subfilter_capacity(s, 7), UINT64_MAX);
    EXPECT_EQ(sh::capacity_of(s, sh::kMaxSubfilters), UINT64_MAX);
}

TEST(Scaling, RoomForAnAdd) {
    const sh::Series s{100, 0.01, 2};
    sh::Room r = sh::room_for(s, 1, 99, 1);
    EXPECT_EQ(r.outcome, sh::Room::fits);
    r = sh::room_for(s, 1, 100, 1);
    EXPECT_EQ(r.outcome, sh::Room::grow);
    EXPECT_EQ(r.grow_to, 2u);
    r = sh::room_for(s, 1, 0, 701);  // 100 + 200 + 400 < 701 <= 1500
    EXPECT_EQ(r.outcome, sh::Room::grow);
    EXPECT_EQ(r.grow_to, 4u);
    const sh::Series same{100, 0.01, 1};  // 64 sub-filters hold 6400 items
    EXPECT_EQ(sh::room_for(same, sh::kMaxSubfilters - 1, 6300, 1).outcome, sh::Room::grow);
    EXPECT_EQ(sh::room_for(same, sh::kMaxSubfilters, 6400, 1).outcome, sh::Room::full);

    const sh::Series fixed{100, 0.01, 0};
    EXPECT_EQ(sh::room_for(fixed, 1, 99, 1).outcome, sh::Room::fits);
    EXPECT_EQ(sh::room_for(fixed, 1, 100, 1).outcome, sh::Room::full);
    EXPECT_EQ(sh::room_for(fixed, 1, 0, 101).outcome, sh::Room::full);
}

TEST(Scaling, ItemsArePlacedByTheirPosition) {
    const sh::Series s{100, 0.01, 2};  // sub-filters of 100, 200, 400 items
    EXPECT_EQ(sh::subfilter_at(s, 1, 0), 0u);
    EXPECT_EQ(sh::subfilter_at(s, 1, 5000), 0u);  // one sub-filter: it takes everything
    EXPECT_EQ(sh::subfilter_at(s, 3, 99), 0u);
    EXPECT_EQ(sh::subfilter_at(s, 3, 100), 1u);
    EXPECT_EQ(sh::subfilter_at(s, 3, 299), 1u);
    EXPECT_EQ(sh::subfilter_at(s, 3, 300), 2u);
    EXPECT_EQ(sh::subfilter_at(s, 3, 100000), 2u);  // past them all: the newest
    // lookups look first where most items are
    EXPECT_EQ(sh::fullest_subfilter(s, 1, 5000), 0u);
    EXPECT_EQ(sh::fullest_subfilter(s, 3, 350), 1u);  // 200 in the second, 50 in the newest
    EXPECT_EQ(sh::fullest_subfilter(s, 3, 500), 2u);  // 200 in each
    // a reservation says where its items start
    sh::FileHeader h{};
    uint64_t before = 1;
    ASSERT_EQ(sh::reserve_items(&h, s, 40, &before).outcome, sh::Room::fits);
    EXPECT_EQ(before, 0u);
    ASSERT_EQ(sh::reserve_items(&h, s, 60, &before).outcome, sh::Room::fits);
    EXPECT_EQ(before, 40u);
}

TEST(Scaling, ExpansionArgument) {
    EXPECT_NO_THROW(sh::check_expansion(0));
    EXPECT_NO_THROW(sh::check_expansion(1));
    EXPECT_NO_THROW(sh::check_expansion(sh::kMaxExpansion));
    for (int64_t bad : {int64_t(-1), int64_t(sh::kMaxExpansion) + 1, int64_t(1) << 40}) {
        try {
            sh::check_expansion(bad);
            ADD_FAILURE() << bad;
        } catch (const sketch::Error& e) {
            EXPECT_EQ(e.code(), sketch::Errc::invalid_parameter);
            EXPECT_NE(std::string(e.what()).find("expansion"), std::string::npos) << e.what();
        }
    }
}

TEST(Scaling, CombinedRate) {
    const double rates[] = {0.005, 0.0025, 0.00125};
    EXPECT_NEAR(sh::combined_fpr(rates, 3), 1 - 0.995 * 0.9975 * 0.99875, 1e-15);
    EXPECT_EQ(sh::combined_fpr(rates, 0), 0);
}

TEST(Scaling, BloomSubfiltersInThePayload) {
    const sh::Series s{10000, 0.01, 2};
    const sb::Geometry first = sb::capacity_for(s.n, sh::subfilter_fpr(s, 0), sb::parse_layout("fast_multiblock32<7>"));
    const std::vector<sbf::Subfilter> subs = sbf::subfilters(first, s, 4);
    ASSERT_EQ(subs.size(), 4u);
    EXPECT_EQ(subs[0].offset, 0u);
    EXPECT_TRUE(subs[0].g == first);
    EXPECT_EQ(sbf::payload_bytes(std::vector<sbf::Subfilter>(subs.begin(), subs.begin() + 1)), sbf::payload_bytes(first));
    for (uint32_t i = 1; i < 4; ++i) {
        EXPECT_EQ(subs[i].offset % sh::kSubfilterAlign, 0u);
        EXPECT_GE(subs[i].offset, subs[i - 1].offset + sbf::payload_bytes(subs[i - 1].g));
        EXPECT_EQ(sb::format_layout(subs[i].g.layout), "fast_multiblock32<7>");
        EXPECT_LE(sb::fpr_for(double(sh::subfilter_capacity(s, i)), double(subs[i].g.bits()), subs[i].g.layout),
                  sh::subfilter_fpr(s, i));
    }
    EXPECT_EQ(sbf::payload_bytes(subs), subs[3].offset + sbf::payload_bytes(subs[3].g));
}

TEST(Scaling, CbfSubfiltersInThePayload) {
    const sh::Series s{10000, 0.01, 2};
    const sketch::cbf::Geometry first =
        sketch::cbf::geometry_for(int64_t(s.n), sh::subfilter_fpr(s, 0), sketch::cbf::kMaxCounters, 5);
    const std::vector<scf::Subfilter> subs = scf::subfilters(first, s, 3);
    ASSERT_EQ(subs.size(), 3u);
    EXPECT_EQ(subs[0].offset, 0u);
    EXPECT_EQ(subs[0].g.m, first.m);
    for (uint32_t i = 1; i < 3; ++i) {
        EXPECT_EQ(subs[i].offset % sh::kSubfilterAlign, 0u);
        EXPECT_GE(subs[i].offset, subs[i - 1].offset + subs[i - 1].g.counter_bytes());
        EXPECT_EQ(subs[i].g.capacity, sh::subfilter_capacity(s, i));
        EXPECT_EQ(subs[i].g.seed, 5u);
        EXPECT_GT(subs[i].g.k, subs[i - 1].g.k - 1);  // tighter rates, as many probes or more
    }
    EXPECT_EQ(scf::payload_bytes(subs), subs[2].offset + subs[2].g.counter_bytes());
    const sh::Series huge{uint64_t(1) << 40, 0.01, 16};
    const sketch::cbf::Geometry small = sketch::cbf::geometry_for(1000, 0.005);
    try {
        scf::subfilters(small, huge, 2);
        ADD_FAILURE() << "no error";
    } catch (const sketch::Error& e) {
        EXPECT_EQ(e.code(), sketch::Errc::program_limit);
    }
}

// Four sub-filters of the default layout, each filled to its capacity with
// items of its own: items never added answer "present" in any of them at a
// rate within the bound fpr * (1 - 2^-4). 400,000 probes give the estimate a
// standard deviation of sqrt(p / N) ~ 1.5e-4 at p = 0.0094; four of them are
// allowed above the bound.
TEST(Scaling, WholeStaysWithinTheRateAsked) {
    const sh::Series s{2000, 0.01, 2};
    constexpr uint32_t kCount = 4;
    const double fpr0 = sh::subfilter_fpr(s, 0);
    const sb::Geometry first = sb::capacity_for(s.n, fpr0, sb::default_layout(s.n, fpr0));
    std::vector<sb::Filter> filters;
    uint64_t seed = 11;
    for (const sbf::Subfilter& sub : sbf::subfilters(first, s, kCount)) {
        filters.emplace_back(sub.g);
        const uint32_t i = uint32_t(filters.size() - 1);
        for (const sketch::Hash128& h : bloom_test::keys(sh::subfilter_capacity(s, i), seed++)) filters.back().insert(h);
    }
    constexpr size_t kProbes = 400000;
    size_t positives = 0;
    for (const sketch::Hash128& h : bloom_test::keys(kProbes, 999)) {
        for (const sb::Filter& f : filters)
            if (f.contains(h)) {
                ++positives;
                break;
            }
    }
    const double bound = 0.01 * (1 - std::pow(0.5, kCount));
    const double sd = std::sqrt(bound / kProbes);
    EXPECT_LT(double(positives) / kProbes, bound + 4 * sd);
}

// Four threads reserve one item at a time in a fixed-size object of 1000:
// exactly 1000 reservations succeed, and each adder that then finds its item
// already held gives its reservation back.
TEST(HeldItems, ConcurrentReservationsStopAtTheCapacity) {
    sh::FileHeader h{};
    const sh::Series fixed{1000, 0.01, 0};
    std::atomic<int> reserved{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < 400; ++i)
                if (sh::reserve_items(&h, fixed, 1).outcome == sh::Room::fits) ++reserved;
        });
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(reserved.load(), 1000);
    EXPECT_EQ(sh::load_held(&h), 1000u);
    EXPECT_EQ(sh::reserve_items(&h, fixed, 1).outcome, sh::Room::full);
    sh::settle_items(&h, 10, 4);  // six of ten were held already
    EXPECT_EQ(sh::load_held(&h), 994u);
    sh::release_items(&h, 2000);
    EXPECT_EQ(sh::load_held(&h), 0u);
}

TEST(HeldItems, GrowthPublishesSubfilters) {
    sh::FileHeader h{};
    const sh::Series s{100, 0.01, 2};
    EXPECT_EQ(sh::load_subfilters(&h), 1u);  // a file of an earlier build: one
    ASSERT_EQ(sh::reserve_items(&h, s, 100).outcome, sh::Room::fits);
    const sh::Room room = sh::reserve_items(&h, s, 1);
    ASSERT_EQ(room.outcome, sh::Room::grow);
    EXPECT_EQ(room.grow_to, 2u);
    EXPECT_EQ(sh::load_held(&h), 100u);  // nothing reserved by a refusal
    sh::publish_subfilters(&h, room.grow_to);
    sh::publish_subfilters(&h, 1);  // a late publisher of a smaller count changes nothing
    EXPECT_EQ(sh::load_subfilters(&h), 2u);
    EXPECT_EQ(sh::reserve_items(&h, s, 200).outcome, sh::Room::fits);
    EXPECT_EQ(sh::load_held(&h), 300u);
    sh::clear_items(&h);
    EXPECT_EQ(sh::load_held(&h), 0u);
    EXPECT_EQ(sh::load_subfilters(&h), 2u);
}

}  // namespace
