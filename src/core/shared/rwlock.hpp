// A write-preferring reader/writer lock that lives inside a shared mapping and
// works across processes (Linux futexes on MAP_SHARED memory).
//
// Ownership is encoded by process id (or thread id: any id that kill(id, 0)
// can test), so a holder that dies is detected and its share reclaimed:
//   - the writer word holds the writer's id (0 = no writer);
//   - each reader publishes its id in one of a fixed table of reader slots
//     while it holds the lock; a reader that finds no free slot counts itself
//     in `slotless`, which cannot be attributed: a count left by a reader
//     that died goes only with the words of its server run (see
//     shared::attach_file).
// A writer first claims the writer word (from then on no new reader enters,
// which is what makes the lock write-preferring), then waits until every
// reader slot is empty or owned by a dead process.
//
// Every wait is bounded: lock_shared / lock_exclusive return timed_out after
// at most `slice_ms` while holding nothing, so a caller can check for
// interrupts (PostgreSQL's CHECK_FOR_INTERRUPTS) outside the lock and retry.
// Nothing here throws or allocates.
#pragma once

#include <cstdint>

namespace sketch {

struct RWLockWords {
    uint32_t writer;    // id of the writer holding or claiming the lock, 0 if none
    uint32_t waiters;   // processes sleeping on `writer` (only decides whether to wake)
    uint32_t slotless;  // readers holding the lock without a slot
    uint32_t recoveries;  // dead holders reclaimed so far (diagnostics)
};

constexpr uint32_t kReaderSlots = 1024;

enum class LockResult { acquired, timed_out };

// What a reader must remember to release its share.
struct ReadTicket {
    int32_t slot = -1;  // -1: slotless
};

class RWLock {
public:
    // words and slots point into the shared mapping; slots has kReaderSlots entries.
    RWLock(RWLockWords* words, uint32_t* slots) : w_(words), slots_(slots) {}

    LockResult lock_shared(uint32_t owner, int slice_ms, ReadTicket* ticket) noexcept;
    void unlock_shared(uint32_t owner, const ReadTicket& ticket) noexcept;
    LockResult lock_exclusive(uint32_t owner, int slice_ms) noexcept;
    void unlock_exclusive(uint32_t owner) noexcept;

    // Diagnostics (racy snapshots).
    uint32_t writer() const noexcept;
    uint32_t readers() const noexcept;  // slots in use + slotless
    uint32_t recoveries() const noexcept;

    // True unless kill(id, 0) says the process does not exist.
    static bool alive(uint32_t id) noexcept;

private:
    RWLockWords* w_;
    uint32_t* slots_;
};

// A spin lock in one 32-bit word holding its holder's id (0: free), for
// holds of nanoseconds that never block. try_lock_word tries `spins` times,
// pausing, and every 64th time checks whether the holder is alive (a dead
// holder's claim, or a stale claim of owner itself, is taken over) and yields
// the CPU. It returns false if a live process kept the word throughout: the
// caller then lets go of everything, checks for interrupts and tries again,
// so a holder that stopped (SIGSTOP, a debugger) cannot make a wait endless.
bool try_lock_word(uint32_t* word, uint32_t owner, unsigned spins) noexcept;
void unlock_word(uint32_t* word, uint32_t owner) noexcept;

// Item stripes: spin words that make one item's k counter updates atomic
// with respect to other adds of the same item, so two processes adding the
// same new item at once cannot both be told "new".
constexpr uint32_t kItemStripes = 1024;

class StripeLock {
public:
    explicit StripeLock(uint32_t* words) : words_(words) {}
    static uint32_t stripe_of(uint64_t item_hash) noexcept { return uint32_t((item_hash >> 40) % kItemStripes); }
    bool try_lock(uint32_t stripe, uint32_t owner, unsigned spins) noexcept {
        return try_lock_word(&words_[stripe], owner, spins);
    }
    void unlock(uint32_t stripe, uint32_t owner) noexcept { unlock_word(&words_[stripe], owner); }

private:
    uint32_t* words_;
};

// The id this process (or, in tests, this thread) locks as.
uint32_t current_process_id() noexcept;
uint32_t current_thread_id() noexcept;

}  // namespace sketch
