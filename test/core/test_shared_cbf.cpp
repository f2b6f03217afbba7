// The shared protocol (shared/object_ops.hpp) on a real counting filter's
// object file, with cbf::add_atomic as the insert, as shared_cbf_add runs
// it: racing adds of one item are "new" once; a waiting call polls holding
// nothing and goes on once the lock is free; frozen and dropped objects are
// reported, not touched; changes and reads exclude adds.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <thread>
#include <vector>

#include "cbf/cbf.hpp"
#include "cbf/shared_cbf_format.hpp"
#include "hash.hpp"
#include "shared/object_ops.hpp"
#include "shared/shared_file.hpp"

namespace {

namespace cbf = sketch::cbf;
namespace sh = sketch::shared;
using sh::Outcome;

constexpr uint64_t kRun = 1;  // the server run the tests map files in
constexpr uint64_t kCapacity = 200000;

std::atomic<int> polls{0};
void count_poll() { polls++; }
// A poll that does not return, as CHECK_FOR_INTERRUPTS raising a cancel.
struct Cancelled : std::runtime_error {
    Cancelled() : std::runtime_error("cancelled") {}
};
void cancel_poll() { throw Cancelled(); }
// A poll that also records the most lock holders it ever saw: a caller
// polling while another holds the lock exclusive must hold nothing itself.
std::atomic<const sh::Mapping*> watched{nullptr};
std::atomic<int> most_readers_at_poll{0};
void watch_poll() {
    const int r = int(watched.load()->lock().readers());
    if (r > most_readers_at_poll) most_readers_at_poll = r;
    count_poll();
}

sh::Waiter this_thread(void (*poll)() = count_poll) { return {sketch::current_thread_id(), poll}; }

class SharedCbf : public ::testing::Test {
protected:
    std::string dir;
    cbf::Geometry g = cbf::geometry_for(kCapacity, 0.01);
    sh::Mapping m;

    void SetUp() override {
        sh::register_kind(sh::Kind::cbf, sketch::shared_cbf::validate);
        char tmpl[] = "/tmp/sketch-shared-cbf-test.XXXXXX";
        ASSERT_NE(mkdtemp(tmpl), nullptr);
        dir = tmpl;
        const sketch::shared_cbf::StoredGeometry stored = sketch::shared_cbf::to_stored(g, 0);
        sh::CreateSpec s{};
        s.kind = sh::Kind::cbf;
        s.geometry = reinterpret_cast<const uint8_t*>(&stored);
        s.geometry_len = sizeof stored;
        s.payload_bytes = g.counter_bytes();
        s.file_id = 7;
        s.durable = false;
        s.run = kRun;
        const std::string path = dir + "/seen";
        sh::create_file(path, "seen", s, sh::Existing::refuse);
        m = sh::attach_file(path, "seen", uint32_t(sh::Kind::cbf), true, kRun);
        polls = 0;
        watched = &m;
        most_readers_at_poll = 0;
    }
    void TearDown() override {
        sh::unmap(m);
        std::system(("rm -rf " + dir).c_str());
    }

    // Adds hashes through the protocol, as shared_cbf_add does; fresh[i]
    // says whether hashes[i] was reported new.
    Outcome add(const sh::Waiter& w, const std::vector<sketch::Hash128>& hashes, std::vector<uint8_t>* fresh,
                int64_t* nfresh) {
        return sh::add_hashes(m, w, hashes.data(), int(hashes.size()), [&](const sketch::Hash128& h) {
            const bool is_new = cbf::add_atomic(g, m.payload(), h);
            (*fresh)[size_t(&h - hashes.data())] = is_new;
            return is_new;
        }, nfresh);
    }
    Outcome add_one(const sh::Waiter& w, uint64_t item, int64_t* nfresh) {
        std::vector<sketch::Hash128> h{sketch::hash_int(int64_t(item))};
        std::vector<uint8_t> fresh(1);
        return add(w, h, &fresh, nfresh);
    }
    unsigned count_of(uint64_t item) const { return cbf::count_of(g, m.payload(), sketch::hash_int(int64_t(item))); }
    // Nothing of the lock is held by anyone.
    bool lock_free() const { return m.lock().writer() == 0 && m.lock().readers() == 0; }
};

// Waits (bounded, so a broken protocol fails rather than hangs) until done().
template <typename Done>
bool eventually(Done done) {
    for (int i = 0; i < 10000; ++i) {
        if (done()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return false;
}

TEST_F(SharedCbf, RacingAddsOfOneItemAreNewOnce) {
    constexpr int kThreads = 4, kItems = int(kCapacity), kBatch = 500;
    std::vector<std::vector<uint8_t>> fresh(kThreads, std::vector<uint8_t>(kItems, 0));
    std::atomic<int> ready{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            const sh::Waiter w = this_thread();
            ready++;
            while (ready.load() < kThreads) {
            }
            std::vector<sketch::Hash128> batch(kBatch);
            std::vector<uint8_t> batch_fresh(kBatch);
            for (int start = 0; start < kItems; start += kBatch) {
                for (int i = 0; i < kBatch; ++i) batch[size_t(i)] = sketch::hash_int(start + i);
                int64_t n = 0;
                EXPECT_EQ(add(w, batch, &batch_fresh, &n), Outcome::done);
                int64_t seen = 0;
                for (int i = 0; i < kBatch; ++i) seen += fresh[size_t(t)][size_t(start + i)] = batch_fresh[size_t(i)];
                EXPECT_EQ(n, seen);
            }
        });
    for (auto& th : threads) th.join();
    int twice = 0, total = 0;
    for (int i = 0; i < kItems; ++i) {
        int n = 0;
        for (int t = 0; t < kThreads; ++t) n += fresh[size_t(t)][size_t(i)];
        twice += n > 1;
        total += n;
        EXPECT_GE(count_of(uint64_t(i)), unsigned(kThreads)) << i;
    }
    EXPECT_EQ(twice, 0);
    // Every item is new once, except false positives at its first add: the
    // filter's rate grows to its 1% target only at its capacity, so fewer
    // than 1% of the items are missed.
    EXPECT_GE(total, kItems * 99 / 100);
    EXPECT_LE(total, kItems);
    EXPECT_EQ(sh::load_ops(m.header()), uint64_t(kThreads * kItems / kBatch));
    EXPECT_TRUE(lock_free());
}

// An add waiting for the exclusive lock polls between slices, holding
// nothing, and completes once the lock is let go.
TEST_F(SharedCbf, WaitingAddPollsHoldingNothing) {
    const sh::Waiter me = this_thread();
    ASSERT_EQ(sh::lock_exclusive(m, me), Outcome::done);
    std::atomic<bool> done{false};
    std::thread adder([&] {
        const sh::Waiter w = this_thread(watch_poll);
        int64_t n = 0;
        EXPECT_EQ(add_one(w, 42, &n), Outcome::done);
        EXPECT_EQ(n, 1);
        done = true;
    });
    ASSERT_TRUE(eventually([] { return polls.load() >= 2; }));
    EXPECT_FALSE(done.load());
    EXPECT_EQ(most_readers_at_poll.load(), 0);
    EXPECT_EQ(count_of(42), 0u);
    sh::unlock_exclusive(m, me);
    adder.join();
    EXPECT_TRUE(done.load());
    EXPECT_EQ(count_of(42), 1u);
    EXPECT_TRUE(lock_free());
}

// An item stripe kept by a live owner makes the adder back off: it lets go
// of the shared lock before it polls, and adds once the stripe is free.
TEST_F(SharedCbf, HeldStripeBacksOffHoldingNothing) {
    const uint32_t me = sketch::current_thread_id();
    const sketch::Hash128 h = sketch::hash_int(7);
    const uint32_t stripe = sketch::StripeLock::stripe_of(h.lo);
    ASSERT_TRUE(m.stripes().try_lock(stripe, me, 1));
    std::thread adder([&] {
        const sh::Waiter w = this_thread(watch_poll);
        int64_t n = 0;
        EXPECT_EQ(add_one(w, 7, &n), Outcome::done);
        EXPECT_EQ(n, 1);
    });
    ASSERT_TRUE(eventually([] { return polls.load() >= 2; }));
    EXPECT_EQ(most_readers_at_poll.load(), 0);
    EXPECT_EQ(count_of(7), 0u);
    m.stripes().unlock(stripe, me);
    adder.join();
    EXPECT_EQ(count_of(7), 1u);
    EXPECT_TRUE(lock_free());
}

// A poll that does not return (a cancel) leaves the caller holding nothing.
TEST_F(SharedCbf, CancelledWaitHoldsNothing) {
    const sh::Waiter me = this_thread();
    ASSERT_EQ(sh::lock_exclusive(m, me), Outcome::done);
    std::thread adder([&] {
        int64_t n = 0;
        EXPECT_THROW(add_one(this_thread(cancel_poll), 9, &n), Cancelled);
        EXPECT_THROW(sh::change_exclusive(m, this_thread(cancel_poll), [] {}), Cancelled);
    });
    adder.join();
    sh::unlock_exclusive(m, me);
    EXPECT_TRUE(lock_free());
    EXPECT_EQ(count_of(9), 0u);
    EXPECT_EQ(sh::lock_exclusive(m, me), Outcome::done);  // nobody else holds it
    sh::unlock_exclusive(m, me);
}

TEST_F(SharedCbf, FrozenRefusesChangesAndReadsWithoutLock) {
    const sh::Waiter me = this_thread();
    sh::set_flags(m.header(), sh::kFrozen);
    int64_t n = -1;
    EXPECT_EQ(add_one(me, 5, &n), Outcome::frozen);
    EXPECT_EQ(n, 0);
    bool changed = false;
    EXPECT_EQ(sh::change_exclusive(m, me, [&] { changed = true; }), Outcome::frozen);
    EXPECT_FALSE(changed);
    EXPECT_EQ(count_of(5), 0u);
    EXPECT_EQ(sh::load_ops(m.header()), 0u);
    EXPECT_TRUE(lock_free());
    // A frozen object is read with no lock: a writer holding it (a stale
    // one, say) does not stop the read, whose waits would cancel here.
    ASSERT_EQ(sh::lock_exclusive(m, me), Outcome::done);
    bool read = false;
    std::thread reader([&] {
        EXPECT_EQ(sh::read_exclusive(m, this_thread(cancel_poll), [&] { read = true; }), Outcome::done);
    });
    reader.join();
    EXPECT_TRUE(read);
    sh::unlock_exclusive(m, me);
}

// A drop that commits while calls wait for the lock: once they get it they
// let go and touch nothing.
TEST_F(SharedCbf, DroppedMeanwhileIsReportedUntouched) {
    const sh::Waiter me = this_thread();
    ASSERT_EQ(sh::lock_exclusive(m, me), Outcome::done);
    std::vector<Outcome> outcomes(3, Outcome::done);
    bool touched = false;
    std::vector<std::thread> callers;
    callers.emplace_back([&] {
        int64_t n = 0;
        outcomes[0] = add_one(this_thread(), 3, &n);
    });
    callers.emplace_back([&] { outcomes[1] = sh::change_exclusive(m, this_thread(), [&] { touched = true; }); });
    callers.emplace_back([&] { outcomes[2] = sh::read_exclusive(m, this_thread(), [&] { touched = true; }); });
    ASSERT_TRUE(eventually([] { return polls.load() >= 3; }));
    sh::set_flags(m.header(), sh::kDropped);
    sh::unlock_exclusive(m, me);
    for (auto& c : callers) c.join();
    for (Outcome o : outcomes) EXPECT_EQ(o, Outcome::dropped);
    EXPECT_FALSE(touched);
    EXPECT_EQ(count_of(3), 0u);
    EXPECT_TRUE(lock_free());
}

// Changes and reads take the lock exclusive: neither ever sees an add in
// flight. Each item's insert moves `started`, the counters, then `finished`;
// a call's last insert counts the call, whose op is counted before it lets go.
TEST_F(SharedCbf, ChangesAndReadsExcludeAdds) {
    constexpr int kAdders = 3, kBatches = 300, kBatch = 20, kRounds = 200;
    std::atomic<int64_t> started{0}, finished{0}, calls{0}, changes{0};
    std::atomic<int> adders_left{kAdders}, torn{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kAdders; ++t)
        threads.emplace_back([&, t] {
            const sh::Waiter w = this_thread();
            std::vector<sketch::Hash128> batch(kBatch);
            for (int b = 0; b < kBatches; ++b) {
                for (int i = 0; i < kBatch; ++i) batch[size_t(i)] = sketch::hash_int((t * kBatches + b) * kBatch + i);
                int64_t n = 0;
                EXPECT_EQ(sh::add_hashes(m, w, batch.data(), kBatch, [&](const sketch::Hash128& h) {
                              started.fetch_add(1, std::memory_order_relaxed);
                              const bool is_new = cbf::add_atomic(g, m.payload(), h);
                              finished.fetch_add(1, std::memory_order_relaxed);
                              if (&h == &batch[kBatch - 1]) calls.fetch_add(1, std::memory_order_relaxed);
                              return is_new;
                          }, &n),
                          Outcome::done);
            }
            adders_left--;
        });
    threads.emplace_back([&] {
        const sh::Waiter w = this_thread();
        for (int r = 0; r < kRounds || adders_left.load() > 0; ++r) {
            EXPECT_EQ(sh::change_exclusive(m, w, [&] {
                          torn += started.load(std::memory_order_relaxed) != finished.load(std::memory_order_relaxed);
                          changes.fetch_add(1, std::memory_order_relaxed);
                      }),
                      Outcome::done);
            EXPECT_EQ(sh::read_exclusive(m, w, [&] {
                          const int64_t items = started.load(std::memory_order_relaxed);
                          torn += items != finished.load(std::memory_order_relaxed);
                          torn += int64_t(sh::load_ops(m.header())) !=
                                  calls.load(std::memory_order_relaxed) + changes.load(std::memory_order_relaxed);
                      }),
                      Outcome::done);
        }
    });
    for (auto& th : threads) th.join();
    EXPECT_EQ(torn.load(), 0);
    EXPECT_EQ(finished.load(), int64_t(kAdders) * kBatches * kBatch);
    EXPECT_EQ(sh::load_ops(m.header()), uint64_t(kAdders * kBatches + changes.load()));
    EXPECT_TRUE(lock_free());
}

}  // namespace
