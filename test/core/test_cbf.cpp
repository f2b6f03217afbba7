// The counting Bloom filter core: every scenario of the spec's method
// descriptions, the statistical claims with fixed inputs and tolerances from
// the math, the value format, and the concurrent add.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "cbf/cbf.hpp"
#include "cbf/cbf_format.hpp"
#include "cbf/cbf_layout.hpp"

namespace {

using namespace sketch;
using namespace sketch::cbf;

Hash128 item(const std::string& s) { return hash_bytes(s.data(), s.size()); }
Hash128 item(int64_t i) { return hash_int(i); }

struct Filter {
    Geometry g;
    std::vector<uint8_t> c;
    Filter(int64_t capacity, double fpr) : g(geometry_for(capacity, fpr)), c(g.counter_bytes(), 0) {}
    bool add(const Hash128& h) { return cbf::add(g, c.data(), h); }
    bool remove(const Hash128& h) { return cbf::remove(g, c.data(), h); }
    bool contains(const Hash128& h) const { return cbf::contains(g, c.data(), h); }
    unsigned count_of(const Hash128& h) const { return cbf::count_of(g, c.data(), h); }
};

Errc code_of(void (*f)()) {
    try {
        f();
    } catch (const Error& e) {
        return e.code();
    }
    return Errc::internal;
}

TEST(CbfGeometry, SpecExamples) {
    Geometry a = geometry_for(1000, 0.01);
    EXPECT_EQ(a.k, 7u);
    EXPECT_EQ(a.m, 16384u);
    Geometry b = geometry_for(10, 0.5);
    EXPECT_EQ(b.k, 1u);
    EXPECT_EQ(b.m, 64u);
    EXPECT_EQ(geometry_for(1, 0.99).k, 1u);          // round(0.014) = 0, clamped to 1
    EXPECT_EQ(geometry_for(1, 1e-12).k, 32u);         // round(39.9) clamped to 32
    EXPECT_EQ(geometry_for(1, 0.01).m, 64u);          // floor of 64
    EXPECT_EQ(geometry_for(1000000, 0.001).m, uint64_t(1) << 24);  // 10 * 1e6 / ln 2 = 14.4M
}

TEST(CbfGeometry, BadParametersAreRefused) {
    EXPECT_EQ(code_of([] { geometry_for(0, 0.01); }), Errc::invalid_parameter);
    EXPECT_EQ(code_of([] { geometry_for(-5, 0.01); }), Errc::invalid_parameter);
    EXPECT_EQ(code_of([] { geometry_for(10, 0.0); }), Errc::invalid_parameter);
    EXPECT_EQ(code_of([] { geometry_for(10, 1.0); }), Errc::invalid_parameter);
    EXPECT_EQ(code_of([] { geometry_for(10, -0.1); }), Errc::invalid_parameter);
    EXPECT_EQ(code_of([] { geometry_for(10, std::nan("")); }), Errc::invalid_parameter);
    EXPECT_EQ(code_of([] { geometry_for(INT64_MAX, 0.01); }), Errc::program_limit);
    EXPECT_EQ(code_of([] { geometry_for(200000000, 0.01, uint64_t(1) << 30); }), Errc::program_limit);
    EXPECT_NO_THROW(geometry_for(100000000, 0.01, uint64_t(1) << 30));
}

// Past 2^-32 the hashes stop at 32: the counters grow until the filter
// meets the rate it records, and a rate no filter within the limit meets is
// refused instead of recorded.
TEST(CbfGeometry, RatesBeyondThirtyTwoHashesAreMetOrRefused) {
    for (double fpr : {1e-10, 1e-12, 1e-14, 1e-20}) {
        const Geometry g = geometry_for(1000, fpr);
        EXPECT_EQ(g.k, 32u) << fpr;
        EXPECT_LE(fpr_for(1000, double(g.m), Layout{LayoutKind::classic, g.k}), fpr) << fpr;
        EXPECT_GT(fpr_for(1000, double(g.m / 2), Layout{LayoutKind::classic, g.k}), fpr) << fpr;
    }
    EXPECT_EQ(geometry_for(1000, 1e-12).m, 65536u);  // what the formula gave: it met the rate already
    EXPECT_EQ(code_of([] { geometry_for(1000, 1e-300); }), Errc::program_limit);
    EXPECT_EQ(code_of([] { geometry_for(1000, 4.9e-324); }), Errc::program_limit);
}

TEST(CbfOps, AddReportsNewThenNot) {
    Filter f(1000, 0.01);
    EXPECT_TRUE(f.add(item("alice")));
    EXPECT_FALSE(f.add(item("alice")));
    EXPECT_TRUE(f.contains(item("alice")));
    EXPECT_FALSE(f.contains(item("carol")));
}

TEST(CbfOps, RemoveOnlyWhatIsPresent) {
    Filter f(1000, 0.01);
    f.add(item("alice"));
    EXPECT_TRUE(f.remove(item("alice")));
    EXPECT_FALSE(f.remove(item("alice")));
    EXPECT_FALSE(f.contains(item("alice")));
    std::vector<uint8_t> before = f.c;
    EXPECT_FALSE(f.remove(item("never added")));
    EXPECT_EQ(f.c, before);  // nothing changed
    EXPECT_EQ(counters_set(f.g, f.c.data()), 0u);
}

TEST(CbfOps, CountOfFollowsAddsAndRemoves) {
    Filter f(1000, 0.01);
    const Hash128 x = item("x");
    EXPECT_EQ(f.count_of(x), 0u);
    f.add(x);
    EXPECT_EQ(f.count_of(x), 1u);
    f.add(x);
    f.add(x);
    EXPECT_EQ(f.count_of(x), 3u);
    f.remove(x);
    EXPECT_EQ(f.count_of(x), 2u);
    f.remove(x);
    f.remove(x);
    EXPECT_EQ(f.count_of(x), 0u);
    EXPECT_FALSE(f.contains(x));
}

TEST(CbfOps, SaturationSticksAt15) {
    Filter f(1000, 0.01);
    const Hash128 x = item("hot");
    for (int i = 0; i < 20; ++i) f.add(x);
    EXPECT_EQ(f.count_of(x), 15u);
    EXPECT_EQ(counters_saturated(f.g, f.c.data()), f.g.k);
    EXPECT_TRUE(f.remove(x));  // present, so reported...
    EXPECT_EQ(f.count_of(x), 15u);  // ...but a 15 is never decremented
    for (int i = 0; i < 30; ++i) EXPECT_TRUE(f.remove(x));
    EXPECT_TRUE(f.contains(x));
}

TEST(CbfOps, SmallFilterCountsExactly) {
    // (10, 0.5): k = 1, m = 64; these items land on distinct counters.
    Filter f(10, 0.5);
    const Hash128 a = item("a"), b = item("b"), c = item("c");
    ASSERT_NE(probe(f.g, a, 0), probe(f.g, b, 0));
    ASSERT_NE(probe(f.g, a, 0), probe(f.g, c, 0));
    ASSERT_NE(probe(f.g, b, 0), probe(f.g, c, 0));
    f.add(a);
    for (int i = 0; i < 2; ++i) f.add(b);
    for (int i = 0; i < 3; ++i) f.add(c);
    EXPECT_EQ(f.count_of(a), 1u);
    EXPECT_EQ(f.count_of(b), 2u);
    EXPECT_EQ(f.count_of(c), 3u);
    EXPECT_EQ(counters_set(f.g, f.c.data()), 3u);
    f.remove(c);
    EXPECT_EQ(f.count_of(c), 2u);
}

TEST(CbfOps, ProbesAreDistinct) {
    const Geometry g = geometry_for(1, 1e-12);  // k = 32 (round(39.9) clamped), m = 64
    EXPECT_EQ(g.k, 32u);
    for (int64_t i = 0; i < 200; ++i) {
        const Hash128 h = item(i);
        std::vector<bool> seen(g.m, false);
        for (uint32_t j = 0; j < g.k; ++j) {
            const uint64_t p = probe(g, h, j);
            EXPECT_FALSE(seen[p]);
            seen[p] = true;
        }
    }
}

TEST(CbfOps, ProbeFormulaAndPacking) {
    Filter f(1000, 0.01);
    const Hash128 h = item("alice");
    f.add(h);
    for (uint32_t i = 0; i < f.g.k; ++i) {
        const uint64_t p = (h.lo + uint64_t(i) * (h.hi | 1)) & (f.g.m - 1);
        EXPECT_EQ(counter_at(f.c.data(), p), 1u);
        const uint8_t byte = f.c[p >> 1];
        EXPECT_EQ((p & 1) ? byte >> 4 : byte & 15, 1);
    }
    EXPECT_EQ(counters_set(f.g, f.c.data()), f.g.k);
}

TEST(CbfOps, NoFalseNegatives) {
    Filter f(1000, 0.01);
    for (int64_t i = 0; i < 1000; ++i) f.add(item(i));
    for (int64_t i = 0; i < 1000; ++i) EXPECT_TRUE(f.contains(item(i))) << i;
}

TEST(CbfOps, ChurnKeepsEveryLiveItem) {
    // A sliding window of 3000 live items over 20000 adds at (4000, 0.001):
    // items that leave are removed as often as they were added.
    Filter f(4000, 0.001);
    const int64_t window = 3000, total = 20000;
    for (int64_t i = 0; i < total; ++i) {
        f.add(item(i));
        if (i % 7 == 0) f.add(item(i));  // some items twice
        if (i >= window) {
            const int64_t gone = i - window;
            EXPECT_TRUE(f.remove(item(gone)));
            if (gone % 7 == 0) {
                EXPECT_TRUE(f.remove(item(gone)));
            }
        }
        if (i % 2500 == 0 || i == total - 1) {
            for (int64_t j = std::max<int64_t>(0, i - window + 1); j <= i; ++j)
                ASSERT_TRUE(f.contains(item(j))) << "live item " << j << " lost at step " << i;
        }
    }
    // what is left is exactly the live window: the estimate is close to it
    const double est = estimate_count(f.g, counters_set(f.g, f.c.data()));
    EXPECT_NEAR(est, double(window), 0.05 * window);
}

TEST(CbfStats, CountEstimateWithin10Percent) {
    Filter f(10000, 0.01);
    for (int64_t i = 0; i < 5000; ++i) f.add(item(i));
    const double est = estimate_count(f.g, counters_set(f.g, f.c.data()));
    EXPECT_NEAR(est, 5000.0, 500.0);
    // adding the same items again does not change the estimate
    for (int64_t i = 0; i < 5000; ++i) f.add(item(i));
    EXPECT_DOUBLE_EQ(estimate_count(f.g, counters_set(f.g, f.c.data())), est);
}

// A full filter holds far more than its capacity: its count must say so (the
// past-capacity warning reads it), as the estimate at m - 1/2 counters set.
TEST(CbfStats, FullFilterCountsAsTheEstimateHalfACounterShortOfFull) {
    Filter f(10, 0.5);
    for (int64_t i = 0; i < 2000; ++i) f.add(item(i));
    ASSERT_EQ(counters_set(f.g, f.c.data()), f.g.m);
    const double m = double(f.g.m);
    EXPECT_DOUBLE_EQ(estimate_count(f.g, f.g.m), -(m / f.g.k) * std::log1p(-(m - 0.5) / m));
    EXPECT_GT(estimate_count(f.g, f.g.m), estimate_count(f.g, f.g.m - 1));
    EXPECT_GT(estimate_count(f.g, f.g.m), 1.05 * 10);
}

TEST(CbfMerge, DisjointFiltersKeepEverything) {
    Filter a(2000, 0.01), b(2000, 0.01);
    for (int64_t i = 0; i < 1000; ++i) a.add(item(i));
    for (int64_t i = 1000; i < 2000; ++i) b.add(item(i));
    merge(a.g, a.c.data(), b.c.data());
    for (int64_t i = 0; i < 2000; ++i) EXPECT_TRUE(a.contains(item(i))) << i;
}

TEST(CbfMerge, CountsAddAndSaturate) {
    Filter a(1000, 0.01), b(1000, 0.01);
    const Hash128 x = item("x"), y = item("y");
    a.add(x);
    a.add(x);
    b.add(x);
    for (int i = 0; i < 10; ++i) a.add(y), b.add(y);
    merge(a.g, a.c.data(), b.c.data());
    EXPECT_EQ(a.count_of(x), 3u);
    EXPECT_EQ(a.count_of(y), 15u);
}

TEST(CbfMerge, SwarMatchesCounterByCounter) {
    Geometry g = geometry_for(100, 0.01);
    std::vector<uint8_t> a(g.counter_bytes()), b(g.counter_bytes());
    uint64_t state = 12345;
    for (size_t i = 0; i < a.size(); ++i) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        a[i] = uint8_t(state >> 33);
        b[i] = uint8_t(state >> 45);
    }
    std::vector<uint8_t> merged = a;
    merge(g, merged.data(), b.data());
    uint64_t set = 0, sat = 0;
    for (uint64_t i = 0; i < g.m; ++i) {
        const unsigned want = std::min(15u, counter_at(a.data(), i) + counter_at(b.data(), i));
        EXPECT_EQ(counter_at(merged.data(), i), want) << i;
        set += counter_at(a.data(), i) != 0;
        sat += counter_at(a.data(), i) == 15;
    }
    EXPECT_EQ(counters_set(g, a.data()), set);
    EXPECT_EQ(counters_saturated(g, a.data()), sat);
}

TEST(CbfMerge, GeometryMustMatchToMerge) {
    EXPECT_TRUE(geometry_for(1000, 0.01).compatible(geometry_for(1000, 0.01)));
    EXPECT_TRUE(geometry_for(1000, 0.01).compatible(geometry_for(1100, 0.01)));  // same m and k
    EXPECT_FALSE(geometry_for(1000, 0.01).compatible(geometry_for(1000, 0.001)));
    EXPECT_FALSE(geometry_for(1000, 0.01).compatible(geometry_for(5000, 0.01)));
    EXPECT_FALSE(geometry_for(1000, 0.01, kMaxCounters, 0).compatible(geometry_for(1000, 0.01, kMaxCounters, 1)));
}

TEST(CbfOps, AddManyEqualsAddOneByOne) {
    Filter one(3000, 0.01), many(3000, 0.01);
    std::vector<Hash128> hs;
    for (int64_t i = 0; i < 5000; ++i) hs.push_back(item(i % 2500));
    size_t fresh = 0;
    for (const Hash128& h : hs) fresh += one.add(h);
    EXPECT_EQ(add_many(many.g, many.c.data(), hs.data(), 0), 0u);
    EXPECT_EQ(add_many(many.g, many.c.data(), hs.data(), 3), 3u);
    EXPECT_EQ(add_many(many.g, many.c.data(), hs.data() + 3, hs.size() - 3) + 3, fresh);
    EXPECT_EQ(one.c, many.c);
    EXPECT_LE(fresh, 2500u);  // the second pass over the same items is never new
}

TEST(CbfOps, ClearEmptiesTheFilter) {
    Filter f(1000, 0.01);
    for (int64_t i = 0; i < 100; ++i) f.add(item(i));
    clear(f.g, f.c.data());
    EXPECT_EQ(counters_set(f.g, f.c.data()), 0u);
    EXPECT_FALSE(f.contains(item(int64_t(5))));
}

TEST(CbfStats, FalsePositiveRateAtDesignLoad) {
    // n = capacity distinct items, then 1M probes that were never added. The
    // observed rate must lie within 4 binomial standard deviations of
    // (1 - e^{-kn/m})^k (the filter's own fill varies far less than that).
    const int64_t n = 100000;
    Filter f(n, 0.01);  // k = 7, m = 2^20
    for (int64_t i = 0; i < n; ++i) f.add(item(i));
    const int64_t probes = 1000000;
    int64_t hits = 0;
    for (int64_t i = 0; i < probes; ++i) hits += f.contains(item(n + i));
    const double p = expected_fpr(f.g, double(n));
    const double sigma = std::sqrt(p * (1 - p) / probes);
    const double observed = double(hits) / probes;
    EXPECT_NEAR(observed, p, 4 * sigma) << "expected " << p << ", observed " << observed;
    EXPECT_LT(observed, 0.01);  // m was rounded up, so better than asked
}

TEST(CbfBits, ProjectionAgreesWithContains) {
    Filter f(3000, 0.01);
    for (int64_t i = 0; i < 2500; ++i) f.add(item(i));
    for (int64_t i = 0; i < 300; ++i) f.remove(item(i * 5));
    std::vector<uint64_t> bits(f.g.m / 64);
    to_bits(f.g, f.c.data(), bits.data());
    for (uint64_t i = 0; i < f.g.m; ++i)
        ASSERT_EQ((bits[i >> 6] >> (i & 63)) & 1, counter_at(f.c.data(), i) != 0 ? 1u : 0u) << i;
    for (int64_t i = 0; i < 20000; ++i) {
        const Hash128 h = item(i);
        bool all = true;
        for (uint32_t j = 0; j < f.g.k; ++j) {
            const uint64_t p = probe(f.g, h, j);
            all &= ((bits[p >> 6] >> (p & 63)) & 1) != 0;
        }
        ASSERT_EQ(all, f.contains(h)) << i;
    }
}

TEST(CbfAtomic, ConcurrentAddsLoseNothing) {
    // 4 threads add overlapping items concurrently; the counters must equal a
    // sequential build exactly (saturating increments commute).
    const Geometry g = geometry_for(20000, 0.01);
    std::vector<uint8_t> shared(g.counter_bytes(), 0), sequential(g.counter_bytes(), 0);
    const int threads = 4;
    const int64_t per_thread = 8000;
    auto item_for = [](int t, int64_t i) { return item((i + t * 2000) % 20000); };  // overlapping ranges
    std::vector<std::thread> pool;
    std::atomic<int> start{0};
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            start.fetch_add(1);
            while (start.load() < threads) {}
            for (int64_t i = 0; i < per_thread; ++i) add_atomic(g, shared.data(), item_for(t, i));
        });
    for (auto& th : pool) th.join();
    for (int t = 0; t < threads; ++t)
        for (int64_t i = 0; i < per_thread; ++i) add(g, sequential.data(), item_for(t, i));
    EXPECT_EQ(shared, sequential);
    EXPECT_EQ(counters_saturated(g, shared.data()), counters_saturated(g, sequential.data()));
}

TEST(CbfAtomic, HotItemCountsExactlyThenSaturates) {
    const Geometry g = geometry_for(1000, 0.01);
    std::vector<uint8_t> c(g.counter_bytes(), 0);
    const Hash128 x = item("hot");
    std::atomic<int> fresh{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < 3; ++t)
        pool.emplace_back([&] {
            for (int i = 0; i < 4; ++i) fresh += add_atomic(g, c.data(), x);
        });
    for (auto& th : pool) th.join();
    EXPECT_EQ(count_of_atomic(g, c.data(), x), 12u);  // 3 x 4, below saturation: exact
    EXPECT_GE(fresh.load(), 1);
    pool.clear();
    for (int t = 0; t < 4; ++t)
        pool.emplace_back([&] {
            for (int i = 0; i < 100; ++i) add_atomic(g, c.data(), x);
        });
    for (auto& th : pool) th.join();
    EXPECT_EQ(count_of_atomic(g, c.data(), x), 15u);
    EXPECT_EQ(counters_saturated(g, c.data()), g.k);
    EXPECT_FALSE(add_atomic(g, c.data(), x));
}

TEST(CbfAtomic, ReadersNeverSeeFalseNegativesDuringAdds) {
    const Geometry g = geometry_for(50000, 0.01);
    std::vector<uint8_t> c(g.counter_bytes(), 0);
    std::atomic<int64_t> published{0};
    const int64_t total = 40000;
    std::atomic<int64_t> misses{0};
    std::thread writer([&] {
        for (int64_t i = 0; i < total; ++i) {
            add_atomic(g, c.data(), item(i));
            published.store(i + 1, std::memory_order_release);
        }
    });
    std::vector<std::thread> readers;
    for (int r = 0; r < 2; ++r)
        readers.emplace_back([&, r] {
            int64_t checked = 0;
            while (checked < total) {
                const int64_t upto = published.load(std::memory_order_acquire);
                for (; checked < upto; ++checked) {
                    if (!contains_atomic(g, c.data(), item(checked)) || count_of_atomic(g, c.data(), item(checked)) == 0)
                        misses.fetch_add(1);
                }
            }
            (void)r;
        });
    writer.join();
    for (auto& th : readers) th.join();
    EXPECT_EQ(misses.load(), 0);
    for (int64_t i = 0; i < total; ++i) ASSERT_TRUE(contains(g, c.data(), item(i)));
}

// ---- value format ----

std::vector<uint8_t> make_value(const Geometry& g) {
    std::vector<uint8_t> v(value_bytes(g), 0);
    write_header(v.data(), g);
    return v;
}

Errc read_code(std::vector<uint8_t> v) {
    try {
        read_value(v.data(), v.size(), kMaxCounters, Errc::corrupted);
    } catch (const Error& e) {
        return e.code();
    }
    return Errc::internal;  // no error
}

TEST(CbfFormat, RoundTripsTheHeader) {
    const Geometry g = geometry_for(1000, 0.01, kMaxCounters, 99);
    std::vector<uint8_t> v = make_value(g);
    EXPECT_EQ(v.size(), 44u + 8192u);
    View view = read_value(v.data(), v.size(), kMaxCounters, Errc::corrupted);
    EXPECT_EQ(view.g.k, 7u);
    EXPECT_EQ(view.g.m, 16384u);
    EXPECT_EQ(view.g.capacity, 1000u);
    EXPECT_EQ(view.g.fpr, 0.01);
    EXPECT_EQ(view.g.seed, 99u);
    EXPECT_EQ(view.counters, v.data() + 44);
    // little-endian fields at fixed offsets
    EXPECT_EQ(v[0], 1);
    EXPECT_EQ(v[1], 7);
    EXPECT_EQ(v[2], 1);
    EXPECT_EQ(v[8 + 1], 0x40);  // 16384 = 0x4000
    EXPECT_EQ(v[16], 1000 & 0xff);
}

TEST(CbfFormat, RejectsEveryKindOfDamage) {
    const Geometry g = geometry_for(1000, 0.01);
    const std::vector<uint8_t> good = make_value(g);
    EXPECT_EQ(read_code(good), Errc::internal);
    auto with = [&](size_t off, uint8_t byte) {
        std::vector<uint8_t> v = good;
        v[off] = byte;
        return v;
    };
    EXPECT_EQ(read_code(std::vector<uint8_t>(good.begin(), good.begin() + 10)), Errc::corrupted);  // short
    EXPECT_EQ(read_code(std::vector<uint8_t>(good.begin(), good.end() - 1)), Errc::corrupted);     // size != m
    std::vector<uint8_t> longer = good;
    longer.push_back(0);
    EXPECT_EQ(read_code(longer), Errc::corrupted);
    EXPECT_EQ(read_code(with(0, 2)), Errc::corrupted);     // version
    EXPECT_EQ(read_code(with(1, 0)), Errc::corrupted);     // k = 0
    EXPECT_EQ(read_code(with(1, 33)), Errc::corrupted);    // k = 33
    EXPECT_EQ(read_code(with(2, 7)), Errc::corrupted);     // scheme
    EXPECT_EQ(read_code(with(3, 1)), Errc::corrupted);     // unknown flag
    EXPECT_EQ(read_code(with(4, 1)), Errc::corrupted);     // reserved
    EXPECT_EQ(read_code(with(9, 0x41)), Errc::corrupted);  // m not a power of two
    std::vector<uint8_t> zero_capacity = with(16, 0);
    zero_capacity[17] = 0;                                 // 1000 = 0x03e8: both bytes zeroed
    EXPECT_EQ(read_code(zero_capacity), Errc::corrupted);
    EXPECT_EQ(read_code(with(23, 0x80)), Errc::corrupted); // capacity above INT64_MAX
    EXPECT_EQ(read_code(with(31, 0x7f)), Errc::corrupted); // fpr's exponent: NaN
    EXPECT_EQ(read_code(with(40, 1)), Errc::corrupted);    // reserved
}



// counters_set / counters_saturated sum nibble masks 15 words at a time: check
// them against counter_at over every counter, on random counters and on the
// extremes (all 15, all zero), with a word count that is not a multiple of 15.
TEST(CbfCore, CounterTalliesMatchACounterByCounterCount) {
    Filter f(2000, 0.01);  // m = 32768: 2048 words
    uint64_t state = 12345;
    for (int round = 0; round < 3; ++round) {
        for (auto& b : f.c) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            b = round == 0 ? static_cast<uint8_t>(state >> 56) : round == 1 ? 0xFF : 0;
        }
        uint64_t set = 0, saturated = 0;
        for (uint64_t i = 0; i < f.g.m; ++i) {
            set += counter_at(f.c.data(), i) != 0;
            saturated += counter_at(f.c.data(), i) == 15;
        }
        EXPECT_EQ(counters_set(f.g, f.c.data()), set);
        EXPECT_EQ(counters_saturated(f.g, f.c.data()), saturated);
    }
}

}  // namespace

TEST(CbfFormulas, FillFprIsTheChanceAllProbesFindASetCounter) {
    const Geometry g = geometry_for(1000, 0.01);
    EXPECT_EQ(fill_fpr(g, nullptr, 0), 0.0);  // classic: from the count of set counters alone
    EXPECT_DOUBLE_EQ(fill_fpr(g, nullptr, g.m / 2), std::pow(0.5, g.k));
    EXPECT_EQ(fill_fpr(g, nullptr, g.m), 1.0);
}
