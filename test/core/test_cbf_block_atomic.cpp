// The block layout's concurrent add (cbf_block.hpp: add_atomic, one
// compare-and-swap per word of the line the item touches): threads adding
// into one line at once lose no count, saturate exactly at 15, and leave
// the counters a serial build leaves (saturating increments commute).
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "cbf/cbf.hpp"
#include "cbf/cbf_layout.hpp"

namespace {

using namespace sketch;
using namespace sketch::cbf;

// A filter of `lines` lines of layout block<k>; 8-byte aligned counters, as
// a shared object's are.
struct Lines {
    Geometry g;
    std::vector<uint64_t> words;
    Lines(uint64_t lines, uint32_t k) {
        g = geometry_for(100, 0.01, parse_layout("block<" + std::to_string(k) + ">"));
        g.m = lines * kLineCounters;
        words.assign(g.counter_bytes() / 8, 0);
    }
    uint8_t* c() { return reinterpret_cast<uint8_t*>(words.data()); }
};

// Runs body(t) on `threads` threads released together.
template <typename Body>
void together(int threads, Body body) {
    std::atomic<int> ready{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            ready.fetch_add(1);
            while (ready.load() < threads) {}
            body(t);
        });
    for (auto& th : pool) th.join();
}

TEST(CbfBlockAtomic, OneLineManyThreadsEqualsSerial) {
    // One line: every add of every thread meets the others there. Items
    // overlap between threads; few enough that counters stay below 15.
    for (uint32_t k : {1u, 4u, 8u, 16u}) {
        Lines shared(1, k), serial(1, k);
        const int threads = 4, per_thread = 6;
        together(threads, [&](int t) {
            for (int i = 0; i < per_thread; ++i) add_atomic(shared.g, shared.c(), hash_int((i + t * 2) % 10));
        });
        for (int t = 0; t < threads; ++t)
            for (int i = 0; i < per_thread; ++i) add(serial.g, serial.c(), hash_int((i + t * 2) % 10));
        EXPECT_EQ(shared.words, serial.words) << "k " << k;
        EXPECT_EQ(counters_saturated(shared.g, shared.c()), 0u) << "k " << k;
        for (int i = 0; i < 10; ++i)
            EXPECT_EQ(count_of_atomic(shared.g, shared.c(), hash_int(i)), count_of(serial.g, serial.c(), hash_int(i)));
    }
}

TEST(CbfBlockAtomic, ManyLinesSaturatingEqualsSerial) {
    // Four lines, many items: counters reach 15 and stay; the result is the
    // serial one bit for bit.
    Lines shared(4, 8), serial(4, 8);
    const int threads = 4, per_thread = 3000;
    const auto item_for = [](int t, int i) { return hash_int((i + t * 500) % 2000); };
    together(threads, [&](int t) {
        for (int i = 0; i < per_thread; ++i) add_atomic(shared.g, shared.c(), item_for(t, i));
    });
    for (int t = 0; t < threads; ++t)
        for (int i = 0; i < per_thread; ++i) add(serial.g, serial.c(), item_for(t, i));
    EXPECT_EQ(shared.words, serial.words);
    EXPECT_GT(counters_saturated(shared.g, shared.c()), 0u);
}

TEST(CbfBlockAtomic, HotItemCountsExactlyThenSaturatesAt15) {
    Lines l(1, 7);
    const Hash128 hot = hash_int(42);
    std::atomic<int> fresh{0};
    together(3, [&](int) {
        for (int i = 0; i < 4; ++i) fresh += add_atomic(l.g, l.c(), hot);
    });
    EXPECT_EQ(count_of_atomic(l.g, l.c(), hot), 12u);  // 3 x 4 below saturation: exact
    // the first adds found counters at 0 (racing first adds may each win a word)
    EXPECT_GE(fresh.load(), 1);
    EXPECT_LE(fresh.load(), 3);
    together(4, [&](int) {
        for (int i = 0; i < 100; ++i) add_atomic(l.g, l.c(), hot);
    });
    EXPECT_EQ(count_of_atomic(l.g, l.c(), hot), 15u);
    EXPECT_TRUE(contains_atomic(l.g, l.c(), hot));
    // a saturated item stays present through removes (cbf.hpp)
    for (int i = 0; i < 30; ++i) EXPECT_TRUE(remove(l.g, l.c(), hot));
    EXPECT_EQ(count_of(l.g, l.c(), hot), 15u);
}

TEST(CbfBlockAtomic, SameAnswersAsThePlainAdd) {
    // "probably new" and the lookups agree with the plain kernels, one
    // thread, a filter of many lines.
    const Geometry g = geometry_for(5000, 0.01, parse_layout("block<6>"));
    std::vector<uint64_t> a(g.counter_bytes() / 8, 0), b(g.counter_bytes() / 8, 0);
    auto* ca = reinterpret_cast<uint8_t*>(a.data());
    auto* cb = reinterpret_cast<uint8_t*>(b.data());
    for (int i = 0; i < 8000; ++i) {
        const Hash128 h = hash_int(i % 6000);
        ASSERT_EQ(add_atomic(g, ca, h), add(g, cb, h)) << i;
    }
    EXPECT_EQ(a, b);
    for (int i = 0; i < 12000; ++i) {
        ASSERT_EQ(contains_atomic(g, ca, hash_int(i)), contains(g, cb, hash_int(i))) << i;
        ASSERT_EQ(count_of_atomic(g, ca, hash_int(i)), count_of(g, cb, hash_int(i))) << i;
    }
}

}  // namespace
