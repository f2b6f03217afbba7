#include "shared/rwlock.hpp"

#include <cerrno>
#include <climits>
#include <ctime>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace sketch {

namespace {

// Longest single sleep: a dead holder is noticed at least this often.
constexpr int kPollMs = 5;

uint32_t load(const uint32_t* p) { return __atomic_load_n(p, __ATOMIC_SEQ_CST); }
bool cas(uint32_t* p, uint32_t expected, uint32_t desired) {
    return __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

int64_t now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Sleeps while *addr == expected, at most min(deadline - now, kPollMs).
// Shared (not FUTEX_PRIVATE) futexes: the word lives in a MAP_SHARED mapping.
void futex_wait(uint32_t* addr, uint32_t expected, int64_t deadline) {
    int64_t left = deadline - now_ns();
    if (left <= 0) return;
    if (left > int64_t(kPollMs) * 1000000) left = int64_t(kPollMs) * 1000000;
    timespec ts{time_t(left / 1000000000), long(left % 1000000000)};
    syscall(SYS_futex, addr, FUTEX_WAIT, expected, &ts, nullptr, 0);
}

void futex_wake(uint32_t* addr, int count) { syscall(SYS_futex, addr, FUTEX_WAKE, count, nullptr, nullptr, 0); }

uint32_t home_slot(uint32_t owner) { return (owner * 2654435761u) % kReaderSlots; }

}  // namespace

bool RWLock::alive(uint32_t id) noexcept {
    if (id == 0) return false;
    if (kill(pid_t(id), 0) == 0) return true;
    return errno != ESRCH;  // EPERM: it exists, owned by someone else
}

uint32_t current_process_id() noexcept { return uint32_t(getpid()); }
uint32_t current_thread_id() noexcept { return uint32_t(syscall(SYS_gettid)); }

LockResult RWLock::lock_shared(uint32_t owner, int slice_ms, ReadTicket* ticket) noexcept {
    // The clock is read only when there is a writer to wait for: the common,
    // uncontended acquisition (once per shared_*_add call) makes no clock call.
    int64_t deadline = 0;
    for (;;) {
        uint32_t writer = load(&w_->writer);
        if (writer != 0) {
            if (!alive(writer)) {
                if (cas(&w_->writer, writer, 0)) {
                    __atomic_fetch_add(&w_->recoveries, 1, __ATOMIC_SEQ_CST);
                    futex_wake(&w_->writer, INT_MAX);
                }
                continue;
            }
            if (deadline == 0)
                deadline = now_ns() + int64_t(slice_ms) * 1000000;
            else if (now_ns() >= deadline)
                return LockResult::timed_out;
            __atomic_fetch_add(&w_->waiters, 1, __ATOMIC_SEQ_CST);
            futex_wait(&w_->writer, writer, deadline);
            __atomic_fetch_sub(&w_->waiters, 1, __ATOMIC_SEQ_CST);
            continue;
        }

        // Publish ourselves: a free slot, near our home slot.
        int32_t slot = -1;
        const uint32_t home = home_slot(owner);
        for (uint32_t i = 0; i < kReaderSlots && slot < 0; ++i) {
            uint32_t* s = &slots_[(home + i) % kReaderSlots];
            if (load(s) == 0 && cas(s, 0, owner)) slot = int32_t((home + i) % kReaderSlots);
        }
        if (slot < 0) {  // full: take over the slot of a dead reader, if any
            for (uint32_t i = 0; i < kReaderSlots && slot < 0; ++i) {
                uint32_t* s = &slots_[i];
                uint32_t held = load(s);
                if (held != 0 && held != owner && !alive(held) && cas(s, held, owner)) {
                    __atomic_fetch_add(&w_->recoveries, 1, __ATOMIC_SEQ_CST);
                    slot = int32_t(i);
                }
            }
        }
        if (slot < 0) __atomic_fetch_add(&w_->slotless, 1, __ATOMIC_SEQ_CST);

        // Dekker-style handshake with lock_exclusive: both sides store, then
        // load the other's word (all seq_cst), so at least one sees the other.
        if (load(&w_->writer) == 0) {
            ticket->slot = slot;
            return LockResult::acquired;
        }
        ReadTicket undo;
        undo.slot = slot;
        unlock_shared(owner, undo);  // a writer came first: step back, wait for it
    }
}

void RWLock::unlock_shared(uint32_t owner, const ReadTicket& ticket) noexcept {
    uint32_t* word;
    if (ticket.slot >= 0) {
        word = &slots_[ticket.slot];
        cas(word, owner, 0);  // fails only if a writer reclaimed it, believing us dead
    } else {
        word = &w_->slotless;
        __atomic_fetch_sub(word, 1, __ATOMIC_SEQ_CST);
    }
    if (load(&w_->writer) != 0) futex_wake(word, INT_MAX);
}

LockResult RWLock::lock_exclusive(uint32_t owner, int slice_ms) noexcept {
    const int64_t deadline = now_ns() + int64_t(slice_ms) * 1000000;
    // 1. Claim the writer word; from now on no reader enters.
    for (;;) {
        uint32_t writer = load(&w_->writer);
        if (writer == 0) {
            if (cas(&w_->writer, 0, owner)) break;
            continue;
        }
        if (writer == owner || !alive(writer)) {  // a dead holder (or a stale self): take over
            if (cas(&w_->writer, writer, owner)) {
                __atomic_fetch_add(&w_->recoveries, 1, __ATOMIC_SEQ_CST);
                break;
            }
            continue;
        }
        if (now_ns() >= deadline) return LockResult::timed_out;
        __atomic_fetch_add(&w_->waiters, 1, __ATOMIC_SEQ_CST);
        futex_wait(&w_->writer, writer, deadline);
        __atomic_fetch_sub(&w_->waiters, 1, __ATOMIC_SEQ_CST);
    }
    // 2. Wait for the readers inside to leave (or to be found dead).
    for (uint32_t i = 0; i < kReaderSlots; ++i) {
        uint32_t* s = &slots_[i];
        for (;;) {
            uint32_t held = load(s);
            if (held == 0 || held == owner) break;
            if (!alive(held)) {
                if (cas(s, held, 0)) __atomic_fetch_add(&w_->recoveries, 1, __ATOMIC_SEQ_CST);
                continue;
            }
            if (now_ns() >= deadline) {
                unlock_exclusive(owner);
                return LockResult::timed_out;
            }
            futex_wait(s, held, deadline);
        }
    }
    for (;;) {
        uint32_t n = load(&w_->slotless);
        if (n == 0) break;
        if (now_ns() >= deadline) {
            unlock_exclusive(owner);
            return LockResult::timed_out;
        }
        futex_wait(&w_->slotless, n, deadline);
    }
    return LockResult::acquired;
}

void RWLock::unlock_exclusive(uint32_t owner) noexcept {
    if (cas(&w_->writer, owner, 0) && load(&w_->waiters) != 0) futex_wake(&w_->writer, INT_MAX);
}

bool try_lock_word(uint32_t* word, uint32_t owner, unsigned spins) noexcept {
    for (unsigned i = 0; i < spins; ++i) {
        uint32_t held = __atomic_load_n(word, __ATOMIC_RELAXED);
        if (held == 0 || held == owner) {
            if (__atomic_compare_exchange_n(word, &held, owner, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
                return true;
            continue;
        }
        if ((i & 63) == 63) {
            if (!RWLock::alive(held) &&
                __atomic_compare_exchange_n(word, &held, owner, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
                return true;
            sched_yield();  // the holder is alive, maybe descheduled
        } else {
            __builtin_ia32_pause();
        }
    }
    return false;
}

void unlock_word(uint32_t* word, uint32_t owner) noexcept {
    uint32_t expected = owner;  // fails only if the word was taken over, its holder believed dead
    __atomic_compare_exchange_n(word, &expected, 0, false, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

uint32_t RWLock::writer() const noexcept { return load(&w_->writer); }

uint32_t RWLock::readers() const noexcept {
    uint32_t n = load(&w_->slotless);
    for (uint32_t i = 0; i < kReaderSlots; ++i) n += load(&slots_[i]) != 0;
    return n;
}

uint32_t RWLock::recoveries() const noexcept { return load(&w_->recoveries); }

}  // namespace sketch
