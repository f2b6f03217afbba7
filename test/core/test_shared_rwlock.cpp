// The in-file rwlock: mutual exclusion across threads and forked processes,
// write preference, bounded waits, and reclaiming the share of a dead holder.
#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <cstring>
#include <sys/mman.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include "shared/rwlock.hpp"

using sketch::LockResult;
using sketch::ReadTicket;
using sketch::RWLock;

namespace {

// The lock words, its slots and some data, in memory shared across fork().
struct Arena {
    sketch::RWLockWords words;
    uint32_t slots[sketch::kReaderSlots];
    uint64_t a, b;  // invariant under the lock: a == b
};

Arena* new_arena() {
    void* p = mmap(nullptr, sizeof(Arena), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    EXPECT_NE(p, MAP_FAILED);
    std::memset(p, 0, sizeof(Arena));
    return static_cast<Arena*>(p);
}

void free_arena(Arena* a) { munmap(a, sizeof(Arena)); }

void lock_x(RWLock& l, uint32_t id) {
    while (l.lock_exclusive(id, 50) != LockResult::acquired) {
    }
}
ReadTicket lock_s(RWLock& l, uint32_t id) {
    ReadTicket t;
    while (l.lock_shared(id, 50, &t) != LockResult::acquired) {
    }
    return t;
}

TEST(SharedRWLock, ThreadsKeepTheInvariant) {
    Arena* ar = new_arena();
    RWLock lock(&ar->words, ar->slots);
    std::atomic<int> broken{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&] {
            uint32_t id = sketch::current_thread_id();
            for (int i = 0; i < 20000; ++i) {
                lock_x(lock, id);
                uint64_t a = ar->a;
                ar->a = a + 1;
                ar->b = ar->b + 1;
                lock.unlock_exclusive(id);
            }
        });
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&] {
            uint32_t id = sketch::current_thread_id();
            for (int i = 0; i < 20000; ++i) {
                ReadTicket tk = lock_s(lock, id);
                if (__atomic_load_n(&ar->a, __ATOMIC_RELAXED) != __atomic_load_n(&ar->b, __ATOMIC_RELAXED))
                    broken++;
                lock.unlock_shared(id, tk);
            }
        });
    for (auto& th : threads) th.join();
    EXPECT_EQ(ar->a, 80000u);
    EXPECT_EQ(ar->b, 80000u);
    EXPECT_EQ(broken.load(), 0);
    EXPECT_EQ(lock.writer(), 0u);
    EXPECT_EQ(lock.readers(), 0u);
    EXPECT_EQ(lock.recoveries(), 0u);
    free_arena(ar);
}

TEST(SharedRWLock, WaitsAreBoundedAndHoldNothing) {
    Arena* ar = new_arena();
    RWLock lock(&ar->words, ar->slots);
    const uint32_t me = sketch::current_thread_id();
    ASSERT_EQ(lock.lock_exclusive(me, 10), LockResult::acquired);
    std::thread other([&] {
        uint32_t id = sketch::current_thread_id();
        ReadTicket t;
        EXPECT_EQ(lock.lock_shared(id, 30, &t), LockResult::timed_out);
        EXPECT_EQ(lock.lock_exclusive(id, 30), LockResult::timed_out);
    });
    other.join();
    EXPECT_EQ(lock.writer(), me);
    lock.unlock_exclusive(me);
    EXPECT_EQ(lock.writer(), 0u);
    free_arena(ar);
}

TEST(SharedRWLock, ReadersShareAndWritersArePreferred) {
    Arena* ar = new_arena();
    RWLock lock(&ar->words, ar->slots);
    const uint32_t me = sketch::current_thread_id();
    ReadTicket mine = lock_s(lock, me);
    std::atomic<bool> writer_in{false};
    std::thread reader2([&] {
        uint32_t id = sketch::current_thread_id();
        ReadTicket t;
        EXPECT_EQ(lock.lock_shared(id, 100, &t), LockResult::acquired);  // readers share
        lock.unlock_shared(id, t);
    });
    reader2.join();
    std::thread writer([&] {
        uint32_t id = sketch::current_thread_id();
        lock_x(lock, id);  // claims the writer word, then waits for us
        writer_in = true;
        lock.unlock_exclusive(id);
    });
    while (lock.writer() == 0) std::this_thread::yield();
    std::thread late_reader([&] {
        uint32_t id = sketch::current_thread_id();
        ReadTicket t;
        // A writer is waiting: a new reader does not overtake it.
        EXPECT_EQ(lock.lock_shared(id, 40, &t), LockResult::timed_out);
    });
    late_reader.join();
    EXPECT_FALSE(writer_in.load());
    lock.unlock_shared(me, mine);
    writer.join();
    EXPECT_TRUE(writer_in.load());
    free_arena(ar);
}

TEST(SharedRWLock, ForkedProcessesCountExactly) {
    Arena* ar = new_arena();
    const int kProcs = 4, kIters = 20000;
    std::vector<pid_t> kids;
    for (int p = 0; p < kProcs; ++p) {
        pid_t pid = fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            RWLock lock(&ar->words, ar->slots);
            uint32_t id = sketch::current_process_id();
            int bad = 0;
            for (int i = 0; i < kIters; ++i) {
                if (i % 2) {
                    ReadTicket t = lock_s(lock, id);
                    bad += ar->a != ar->b;
                    lock.unlock_shared(id, t);
                } else {
                    lock_x(lock, id);
                    ar->a++;
                    ar->b++;
                    lock.unlock_exclusive(id);
                }
            }
            _exit(bad == 0 ? 0 : 1);
        }
        kids.push_back(pid);
    }
    for (pid_t k : kids) {
        int status = 0;
        waitpid(k, &status, 0);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    EXPECT_EQ(ar->a, uint64_t(kProcs * kIters / 2));
    EXPECT_EQ(ar->b, ar->a);
    free_arena(ar);
}

// A child takes the lock (shared or exclusive), reports it, and is killed
// with SIGKILL while holding it. The next contender reclaims it.
void killed_holder(bool exclusive) {
    Arena* ar = new_arena();
    int pipefd[2];
    ASSERT_EQ(pipe(pipefd), 0);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        RWLock lock(&ar->words, ar->slots);
        uint32_t id = sketch::current_process_id();
        if (exclusive)
            lock_x(lock, id);
        else
            lock_s(lock, id);
        char c = 'x';
        if (write(pipefd[1], &c, 1) != 1) _exit(2);
        for (;;) pause();
    }
    char c;
    ASSERT_EQ(read(pipefd[0], &c, 1), 1);
    RWLock lock(&ar->words, ar->slots);
    const uint32_t me = sketch::current_thread_id();
    if (exclusive) {
        ReadTicket t;
        EXPECT_EQ(lock.lock_shared(me, 30, &t), LockResult::timed_out);  // alive: respected
        EXPECT_EQ(lock.writer(), uint32_t(pid));
    } else {
        EXPECT_EQ(lock.lock_exclusive(me, 30), LockResult::timed_out);
        EXPECT_EQ(lock.readers(), 1u);
    }
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    EXPECT_EQ(lock.lock_exclusive(me, 1000), LockResult::acquired);  // within one slice
    EXPECT_GE(lock.recoveries(), 1u);
    EXPECT_EQ(lock.readers(), 0u);
    lock.unlock_exclusive(me);
    ReadTicket t;
    EXPECT_EQ(lock.lock_shared(me, 100, &t), LockResult::acquired);
    lock.unlock_shared(me, t);
    close(pipefd[0]);
    close(pipefd[1]);
    free_arena(ar);
}

TEST(SharedRWLock, KilledWriterIsReclaimed) { killed_holder(true); }
TEST(SharedRWLock, KilledReaderIsReclaimed) { killed_holder(false); }

TEST(SharedRWLock, DeadWriterIsReclaimedByAReader) {
    Arena* ar = new_arena();
    pid_t pid = fork();
    if (pid == 0) _exit(0);
    waitpid(pid, nullptr, 0);
    ar->words.writer = uint32_t(pid);  // a writer that died holding the lock
    RWLock lock(&ar->words, ar->slots);
    ReadTicket t;
    EXPECT_EQ(lock.lock_shared(sketch::current_thread_id(), 100, &t), LockResult::acquired);
    lock.unlock_shared(sketch::current_thread_id(), t);
    EXPECT_EQ(lock.writer(), 0u);
    EXPECT_EQ(lock.recoveries(), 1u);
    free_arena(ar);
}

TEST(SharedRWLock, SlotlessReadersStillCount) {
    Arena* ar = new_arena();
    RWLock lock(&ar->words, ar->slots);
    const uint32_t parent = sketch::current_process_id();
    for (uint32_t i = 0; i < sketch::kReaderSlots; ++i) ar->slots[i] = parent;  // every slot held by a live process
    std::thread reader([&] {
        uint32_t id = sketch::current_thread_id();
        ReadTicket t;
        ASSERT_EQ(lock.lock_shared(id, 100, &t), LockResult::acquired);
        EXPECT_EQ(t.slot, -1);
        EXPECT_EQ(ar->words.slotless, 1u);
        lock.unlock_shared(id, t);
        EXPECT_EQ(ar->words.slotless, 0u);
    });
    reader.join();
    for (uint32_t i = 0; i < sketch::kReaderSlots; ++i) ar->slots[i] = 0;
    free_arena(ar);
}

TEST(SharedRWLock, AliveMeansTheProcessExists) {
    EXPECT_TRUE(RWLock::alive(sketch::current_process_id()));
    EXPECT_TRUE(RWLock::alive(1));  // init, owned by someone else: EPERM or fine
    EXPECT_FALSE(RWLock::alive(0));
    pid_t pid = fork();
    if (pid == 0) _exit(0);
    waitpid(pid, nullptr, 0);
    EXPECT_FALSE(RWLock::alive(uint32_t(pid)));
}

}  // namespace

namespace {

TEST(SharedStripes, SerializeOneItemAcrossThreads) {
    std::vector<uint32_t> words(sketch::kItemStripes, 0);
    sketch::StripeLock stripes(words.data());
    uint64_t counter = 0;  // protected by the stripe of hash 42
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&] {
            uint32_t id = sketch::current_thread_id();
            for (int i = 0; i < 50000; ++i) {
                const uint32_t s = sketch::StripeLock::stripe_of(42);
                while (!stripes.try_lock(s, id, 1024)) {
                }
                counter = counter + 1;
                stripes.unlock(s, id);
            }
        });
    for (auto& th : threads) th.join();
    EXPECT_EQ(counter, 200000u);
    for (uint32_t w : words) EXPECT_EQ(w, 0u);
}

// A spin word (a stripe, a reservoir's mutex): taken and released; refused
// while a live process holds it, after the spins asked for; taken over from a
// dead holder.
TEST(SharedStripes, SpinWordRefusedWhileHeldTakenOverWhenDead) {
    std::vector<uint32_t> words(sketch::kItemStripes, 0);
    sketch::StripeLock stripes(words.data());
    const uint32_t me = sketch::current_thread_id();
    const uint32_t s = sketch::StripeLock::stripe_of(uint64_t(7) << 40);
    EXPECT_EQ(s, 7u);
    EXPECT_TRUE(stripes.try_lock(s, me, 10));
    EXPECT_EQ(words[s], me);
    stripes.unlock(s, me);
    EXPECT_EQ(words[s], 0u);
    words[s] = 1;  // init: alive, never us
    EXPECT_FALSE(stripes.try_lock(s, me, 200));
    EXPECT_EQ(words[s], 1u);
    pid_t pid = fork();
    if (pid == 0) _exit(0);
    waitpid(pid, nullptr, 0);
    words[s] = uint32_t(pid);  // died holding it
    EXPECT_TRUE(stripes.try_lock(s, me, 200));
    EXPECT_EQ(words[s], me);
    stripes.unlock(s, me);
    EXPECT_EQ(words[s], 0u);
}

}  // namespace
