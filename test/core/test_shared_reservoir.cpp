// The shared reservoir's payload logic without PostgreSQL: sampling
// distributions with fixed seeds, the crash-safe add (a writer stopped after
// each step, then recovered), clear, seed, and threads sharing one payload
// under the file lock.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "error.hpp"
#include "shared/rwlock.hpp"
#include "reservoir/shared_reservoir.hpp"

namespace {

namespace sr = sketch::shared_reservoir;

struct Res {
    sr::Geometry g;
    std::vector<uint64_t> mem;  // 8-aligned
    sr::View view;
    Res(int64_t k, int64_t item_size, bool weighted, uint64_t seed = 1)
        : g(sr::make_geometry(k, item_size, weighted, seed)),
          mem((sr::payload_bytes(g) + 7) / 8, 0),
          view(g, reinterpret_cast<uint8_t*>(mem.data())) {}
    bool add(const std::string& s, double w = 1.0, int crash_after = 0) {
        return view.add(reinterpret_cast<const uint8_t*>(s.data()), uint32_t(s.size()), 0, w, crash_after);
    }
    std::string item(uint64_t i) const {
        return std::string(reinterpret_cast<const char*>(view.item_data(i)), view.item_len(i));
    }
};

TEST(SharedReservoir, GeometryLimits) {
    EXPECT_THROW(sr::make_geometry(0, 256, false, 1), sketch::Error);
    EXPECT_THROW(sr::make_geometry(sr::kMaxK + 1, 256, false, 1), sketch::Error);
    EXPECT_THROW(sr::make_geometry(10, 0, false, 1), sketch::Error);
    EXPECT_THROW(sr::make_geometry(10, sr::kMaxItemSize + 1, false, 1), sketch::Error);
    EXPECT_THROW(sr::make_geometry(sr::kMaxK, sr::kMaxItemSize, false, 1), sketch::Error);  // > 64 GiB
    sr::Geometry g = sr::make_geometry(100, 13, true, 1);
    EXPECT_EQ(g.stride, 24u);
    EXPECT_NO_THROW(sr::check_geometry("t", g, sr::payload_bytes(g)));
    EXPECT_THROW(sr::check_geometry("t", g, sr::payload_bytes(g) + 8), sketch::Error);
    g.stride = 16;
    EXPECT_THROW(sr::check_geometry("t", g, sr::payload_bytes(g)), sketch::Error);
}

// Damage to the fields that address memory is found in O(1) (damage(false)),
// the weighted heap's order by the full check; a journal left by a crashed
// writer is not damage.
TEST(SharedReservoir, DamageIsFoundBeforeUse) {
    Res u(5, 8, false), w(5, 8, true);
    for (int i = 0; i < 50; ++i) {
        u.add(std::to_string(i));
        w.add(std::to_string(i), 1.0 + i);
    }
    ASSERT_EQ(u.view.damage(true), nullptr);
    ASSERT_EQ(w.view.damage(true), nullptr);
    auto damaged = [](Res& r, bool full, auto&& harm) {
        std::vector<uint64_t> saved = r.mem;
        harm(r.view);
        const char* bad = r.view.damage(full);
        r.mem = saved;
        return bad == nullptr ? std::string() : std::string(bad);
    };
    EXPECT_NE(damaged(u, false, [](sr::View& v) { v.control()->count = 6; }), "");
    EXPECT_NE(damaged(u, false, [](sr::View& v) { v.control()->stored = 1000; }), "");
    EXPECT_NE(damaged(u, false, [](sr::View& v) {
                  v.control()->journal.valid = 1;
                  v.control()->journal.pos = 5;  // k: the staging slot's index, not a position
                  v.control()->journal.seen = 51;
                  v.control()->journal.count = 5;
              }), "");
    EXPECT_NE(damaged(w, false, [](sr::View& v) { v.heap()[0] = 7; }), "");
    EXPECT_EQ(damaged(w, false, [](sr::View& v) { v.heap()[3] = v.heap()[4]; }), "");
    EXPECT_NE(damaged(w, true, [](sr::View& v) { v.heap()[3] = v.heap()[4]; }), "");
    // a writer stopped after committing its journal: pending, not damaged
    Res c(5, 8, true);
    for (int i = 0; i < 20; ++i) c.add(std::to_string(i), 1.0 + i);
    c.add("late", 1e9, 3);
    EXPECT_TRUE(c.view.pending());
    EXPECT_EQ(c.view.damage(true), nullptr);
    c.view.control()->count = 0;  // as if killed inside apply(): count set, seen not yet
    EXPECT_EQ(c.view.damage(true), nullptr);
    EXPECT_NE(c.view.check(), nullptr);
    EXPECT_TRUE(c.view.recover());
    EXPECT_EQ(c.view.check(), nullptr);
}

TEST(SharedReservoir, FillsThenSamplesAndTruncates) {
    Res r(3, 4, false);
    EXPECT_TRUE(r.add("a"));
    EXPECT_TRUE(r.add("bb"));
    EXPECT_TRUE(r.add("abcdefgh"));
    EXPECT_EQ(r.view.count(), 3u);
    EXPECT_EQ(r.item(2), "abcd");
    int stored = 0;
    for (int i = 0; i < 1000; ++i) stored += r.add(std::to_string(i));
    EXPECT_EQ(r.view.seen(), 1003u);
    EXPECT_EQ(r.view.count(), 3u);
    EXPECT_GT(stored, 0);
    EXPECT_EQ(r.view.check(), nullptr);
    r.view.clear();
    EXPECT_EQ(r.view.seen(), 0u);
    EXPECT_EQ(r.view.count(), 0u);
    EXPECT_TRUE(r.add("x"));
    EXPECT_EQ(r.item(0), "x");
}

TEST(SharedReservoir, RecordsOneItemType) {
    Res r(3, 8, false);
    EXPECT_STREQ(r.view.item_type(), "");
    r.view.note_item_type("integer");
    r.view.note_item_type("integer");
    EXPECT_STREQ(r.view.item_type(), "integer");
    r.view.note_item_type("text");  // a second type: none single any more
    EXPECT_EQ(r.view.item_type()[0], sr::kMixedItemTypes);
    r.view.note_item_type("integer");
    EXPECT_EQ(r.view.item_type()[0], sr::kMixedItemTypes);
    r.view.clear();  // the next add records its own
    EXPECT_STREQ(r.view.item_type(), "");
    r.view.note_item_type(std::string(55, 'n').c_str());
    EXPECT_EQ(r.view.item_type(), std::string(55, 'n'));
    r.view.clear();
    r.view.note_item_type(std::string(56, 'n').c_str());  // no room for it
    EXPECT_EQ(r.view.item_type()[0], sr::kMixedItemTypes);
}

// Loading a fresh payload gives the state adds would have left: weighted, the
// heap over the loaded keys (its root the smallest), and the sampling goes on.
TEST(SharedReservoir, LoadsAValue) {
    Res r(3, 8, true);
    const double keys[3] = {-0.5, -2.0, -1.0};
    const char* items[3] = {"a", "bb", "ccc"};
    for (int i = 0; i < 3; ++i)
        r.view.load_item(uint64_t(i), reinterpret_cast<const uint8_t*>(items[i]), uint32_t(strlen(items[i])), 0, keys[i]);
    r.view.load_done(40, 3);
    EXPECT_EQ(r.view.seen(), 40u);
    EXPECT_EQ(r.view.count(), 3u);
    EXPECT_EQ(r.item(1), "bb");
    EXPECT_EQ(r.view.heap()[0], 1);
    EXPECT_EQ(r.view.check(), nullptr);
    r.add("heavy", 1e12);  // a key near 0 replaces the smallest
    EXPECT_EQ(r.item(1), "heavy");
    EXPECT_EQ(r.view.check(), nullptr);
}

std::vector<sr::View::MergeItem> merge_items(const std::vector<std::string>& items, const std::vector<double>& keys) {
    std::vector<sr::View::MergeItem> out;
    for (size_t i = 0; i < items.size(); ++i)
        out.push_back({reinterpret_cast<const uint8_t*>(items[i].data()), uint32_t(items[i].size()), 0,
                       keys.empty() ? 0.0 : keys[i]});
    return out;
}

// A uniform merge keeps min(k, seen) items, each from one side, sums seen,
// and leaves a state adds go on from.
TEST(SharedReservoir, MergesUniformSamples) {
    Res r(4, 8, false);
    r.add("a");
    r.add("b");
    const std::vector<std::string> b = {"x", "y", "z", "v", "u"};  // 5 of 30: a side of k = 5
    auto items = merge_items(b, {});
    std::vector<int32_t> take_a(4), take_b(5);
    EXPECT_EQ(r.view.merge(items.data(), 5, 30, take_a.data(), take_b.data()), nullptr);
    EXPECT_EQ(r.view.seen(), 32u);
    EXPECT_EQ(r.view.count(), 4u);
    EXPECT_EQ(r.view.check(), nullptr);
    for (uint64_t i = 0; i < 4; ++i) EXPECT_NE(std::string("abxyzvu").find(r.item(i)), std::string::npos);
    r.add("w");
    EXPECT_EQ(r.view.seen(), 33u);
    EXPECT_EQ(r.view.check(), nullptr);
    EXPECT_NE(r.view.merge(items.data(), 5, uint64_t(INT64_MAX), take_a.data(), take_b.data()), nullptr);
    EXPECT_EQ(r.view.seen(), 33u);
}

// A weighted merge keeps the k largest keys of both sides.
TEST(SharedReservoir, MergesWeightedSamples) {
    Res r(2, 8, true);
    const double own[2] = {-3.0, -1.0};
    r.view.load_item(0, reinterpret_cast<const uint8_t*>("a"), 1, 0, own[0]);
    r.view.load_item(1, reinterpret_cast<const uint8_t*>("b"), 1, 0, own[1]);
    r.view.load_done(10, 2);
    const std::vector<std::string> b = {"x", "y", "z"};
    auto items = merge_items(b, {-0.5, -4.0, -2.0});
    std::vector<int32_t> take_a(2), take_b(3);
    EXPECT_EQ(r.view.merge(items.data(), 3, 3, take_a.data(), take_b.data()), nullptr);
    EXPECT_EQ(r.view.seen(), 13u);
    EXPECT_EQ(r.view.check(), nullptr);
    std::vector<std::string> kept = {r.item(0), r.item(1)};
    std::sort(kept.begin(), kept.end());
    EXPECT_EQ(kept, (std::vector<std::string>{"b", "x"}));
}

// k = 5 of n = 20 over 3000 seeded trials: each item's inclusion count passes
// a chi-square test with 19 degrees of freedom at p = 0.001 (critical 43.82).
TEST(SharedReservoir, UniformInclusionChiSquare) {
    Res r(5, 8, false);
    r.view.seed(20261130);
    std::vector<int> hits(20, 0);
    const int trials = 3000;
    for (int t = 0; t < trials; ++t) {
        r.view.clear();
        for (int i = 0; i < 20; ++i) r.add(std::to_string(i));
        ASSERT_EQ(r.view.count(), 5u);
        for (uint64_t s = 0; s < 5; ++s) hits[std::stoi(r.item(s))]++;
    }
    const double expected = trials * 5.0 / 20.0;
    double chi2 = 0;
    for (int h : hits) chi2 += (h - expected) * (h - expected) / expected;
    EXPECT_LT(chi2, 43.82);
}

// Same seed, same sample; another seed, (almost surely) another sample.
TEST(SharedReservoir, SeedReproduces) {
    auto sample = [](uint64_t seed) {
        Res r(10, 8, false);
        r.view.seed(seed);
        for (int i = 0; i < 1000; ++i) r.add(std::to_string(i));
        std::string s;
        for (uint64_t i = 0; i < 10; ++i) s += r.item(i) + ",";
        return s;
    };
    EXPECT_EQ(sample(7), sample(7));
    EXPECT_NE(sample(7), sample(8));
}

// k = 1, weights A = 1, B = 3: B with probability 0.75, within 4 standard
// deviations (4 * sqrt(8000 * 0.75 * 0.25) = 155) over 8000 trials.
TEST(SharedReservoir, WeightedOneSlot) {
    Res r(1, 8, true);
    r.view.seed(42);
    int b = 0;
    for (int t = 0; t < 8000; ++t) {
        r.view.clear();
        r.add("A", 1.0);
        r.add("B", 3.0);
        b += r.item(0) == "B";
    }
    EXPECT_NEAR(b, 6000, 155);
}

// 3 heavy (1e6) among 40 light items, k = 3: all three heavy items are kept
// in more than 98% of 1000 trials (the chance a light key beats a heavy one
// is about 1e-6 per pair).
TEST(SharedReservoir, WeightedHeavyKept) {
    Res r(3, 8, true);
    r.view.seed(43);
    int all = 0;
    for (int t = 0; t < 1000; ++t) {
        r.view.clear();
        for (int i = 0; i < 43; ++i) r.add((i % 14 == 0 ? "H" : "L") + std::to_string(i), i % 14 == 0 ? 1e6 : 1.0);
        int heavy = 0;
        for (uint64_t s = 0; s < 3; ++s) heavy += r.item(s)[0] == 'H';
        all += heavy == 3;
        ASSERT_EQ(r.view.check(), nullptr);
    }
    EXPECT_GT(all, 980);
}

// A writer stopped after each step of an add: the state is the one before
// (steps 1, 2) or after (3, 4: recovery replays the journal) the add, never a
// mixture, and the sampler goes on consistently.
TEST(SharedReservoir, CrashAfterEachStep) {
    for (bool weighted : {false, true}) {
        for (int step = 1; step <= 4; ++step) {
            for (int at = 1; at <= 60; at += 7) {
                Res r(8, 16, weighted, 99);
                for (int i = 0; i < at; ++i) r.add("item" + std::to_string(i), 1.0 + (i % 5));
                const uint64_t seen_before = r.view.seen();
                std::vector<std::string> before;
                for (uint64_t i = 0; i < r.view.count(); ++i) before.push_back(r.item(i));
                const bool stored = r.add("crashing-item-longer-than-16", 1000.0, step);
                // a reader before recovery sees the state after the add (overlay) or before it
                const sr::View::State st = r.view.state();
                EXPECT_EQ(st.seen, seen_before + (step >= 3 ? 1 : 0));
                EXPECT_EQ(st.count, std::min<uint64_t>(st.seen, 8));
                if (step >= 3 && stored) {
                    ASSERT_GE(st.overlay, 0);
                    const uint8_t* s = r.view.slot_in(st, uint64_t(st.overlay));
                    EXPECT_EQ(std::string(reinterpret_cast<const char*>(s + 8), 16), "crashing-item-lo");
                }
                const bool replayed = r.view.recover();
                EXPECT_EQ(replayed, step >= 3) << weighted << step;
                ASSERT_EQ(r.view.check(), nullptr) << weighted << " step " << step << " at " << at;
                EXPECT_EQ(r.view.seen(), seen_before + (step >= 3 ? 1 : 0));
                int changed = 0;
                for (uint64_t i = 0; i < r.view.count(); ++i) {
                    const std::string it = r.item(i);
                    if (i >= before.size() || it != before[i]) {
                        ++changed;
                        EXPECT_EQ(it, "crashing-item-lo");  // whole (cut to item_size), never torn
                    }
                }
                EXPECT_EQ(changed, step >= 3 && stored ? 1 : 0);
                for (int i = 0; i < 50; ++i) r.add("after" + std::to_string(i), 2.0);
                EXPECT_EQ(r.view.check(), nullptr);
            }
        }
    }
}

// A clear stopped after each step: a reader sees the state before it (step
// 2) or the empty one (3, 4: recovery replays the journal), never seen,
// count and stored that disagree, and the reservoir fills again from empty.
TEST(SharedReservoir, ClearStoppedAfterEachStep) {
    for (bool weighted : {false, true}) {
        for (int step = 2; step <= 4; ++step) {
            Res r(8, 16, weighted, 7);
            for (int i = 0; i < 30; ++i) r.add("item" + std::to_string(i), 1.0 + (i % 3));
            r.view.clear(step);
            const sr::View::State st = r.view.state();
            EXPECT_EQ(st.seen, step >= 3 ? 0u : 30u) << weighted << " step " << step;
            EXPECT_EQ(st.count, std::min<uint64_t>(st.seen, 8));
            EXPECT_EQ(r.view.damage(true), nullptr) << weighted << " step " << step;
            EXPECT_EQ(r.view.recover(), step >= 3);
            ASSERT_EQ(r.view.check(), nullptr) << weighted << " step " << step;
            EXPECT_EQ(r.view.seen(), step >= 3 ? 0u : 30u);
            if (step >= 3) {
                r.add("first", 5.0);
                EXPECT_EQ(r.view.count(), 1u);
                EXPECT_EQ(r.item(0), "first");
            }
            EXPECT_EQ(r.view.check(), nullptr);
        }
    }
}

// Threads (as processes would) add as the SQL face does: the object's rwlock
// shared, then the reservoir's mutex. seen is exact, every sampled item is
// one that was added.
TEST(SharedReservoir, ThreadsUnderTheLock) {
    for (bool weighted : {false, true}) {
        Res r(50, 32, weighted, 5);
        sketch::RWLockWords words{};
        std::vector<uint32_t> slots(sketch::kReaderSlots, 0);
        constexpr int kThreads = 4, kAdds = 5000;
        std::vector<std::thread> threads;
        for (int t = 0; t < kThreads; ++t)
            threads.emplace_back([&, t] {
                sketch::RWLock lock(&words, slots.data());
                const uint32_t me = sketch::current_thread_id();
                for (int i = 0; i < kAdds; ++i) {
                    const std::string item = "t" + std::to_string(t) + "-" + std::to_string(i);
                    sketch::ReadTicket ticket;
                    while (lock.lock_shared(me, 20, &ticket) != sketch::LockResult::acquired) {
                    }
                    while (!sketch::try_lock_word(r.view.mutex(), me, 1024)) {
                    }
                    r.view.recover();
                    r.add(item, 1.0 + i % 3);
                    sketch::unlock_word(r.view.mutex(), me);
                    lock.unlock_shared(me, ticket);
                }
            });
        for (auto& th : threads) th.join();
        EXPECT_EQ(r.view.seen(), uint64_t(kThreads * kAdds));
        EXPECT_EQ(r.view.count(), 50u);
        EXPECT_EQ(r.view.check(), nullptr);
        for (uint64_t i = 0; i < 50; ++i) {
            const std::string it = r.item(i);
            ASSERT_EQ(it[0], 't');
            const int t = it[1] - '0';
            const int n = std::stoi(it.substr(3));
            EXPECT_TRUE(t >= 0 && t < kThreads && n >= 0 && n < kAdds) << it;
        }
    }
}

}  // namespace
