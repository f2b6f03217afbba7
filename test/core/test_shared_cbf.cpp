// The shared add path on a raw counter span: add_atomic under the item's
// stripe, as shared_cbf_add runs it. Threads adding the same items at the
// same moment must tell exactly one of them "new" per item.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "cbf/cbf.hpp"
#include "hash.hpp"
#include "shared/rwlock.hpp"

namespace {

namespace cbf = sketch::cbf;

// Returns how many items were reported new more than once, and fills total.
int racing_adds(bool use_stripes, int* total_new) {
    const cbf::Geometry g = cbf::geometry_for(200000, 0.01);
    std::vector<uint8_t> counters(g.counter_bytes(), 0);
    std::vector<uint32_t> words(sketch::kItemStripes, 0);
    sketch::StripeLock stripes(words.data());
    constexpr int kThreads = 4, kItems = 200000;
    std::vector<std::vector<uint8_t>> fresh(kThreads, std::vector<uint8_t>(kItems, 0));
    std::atomic<int> ready{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            const uint32_t id = sketch::current_thread_id();
            ready++;
            while (ready.load() < kThreads) {
            }
            for (int i = 0; i < kItems; ++i) {
                const sketch::Hash128 h = sketch::hash_int(i);
                if (use_stripes) {
                    const uint32_t s = sketch::StripeLock::stripe_of(h.lo);
                    while (!stripes.try_lock(s, id, 1024)) {
                    }
                    fresh[t][i] = cbf::add_atomic(g, counters.data(), h);
                    stripes.unlock(s, id);
                } else {
                    fresh[t][i] = cbf::add_atomic(g, counters.data(), h);
                }
            }
        });
    for (auto& th : threads) th.join();
    int twice = 0;
    *total_new = 0;
    for (int i = 0; i < kItems; ++i) {
        int n = 0;
        for (int t = 0; t < kThreads; ++t) n += fresh[t][i];
        twice += n > 1;
        *total_new += n;
        EXPECT_GE(cbf::count_of(g, counters.data(), sketch::hash_int(i)), unsigned(kThreads)) << i;
    }
    return twice;
}

TEST(SharedCbf, RacingAddsOfOneItemAreNewOnce) {
    int total = 0;
    EXPECT_EQ(racing_adds(true, &total), 0);
    // every item is new once, except false positives at the time of its first add
    EXPECT_GE(total, 200000 * 99 / 100);
    EXPECT_LE(total, 200000);
}

}  // namespace
