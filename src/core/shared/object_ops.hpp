// The protocol every change and consistent read of a mapped object follows:
// which lock, the checks made once it is held, and the op count.
//
//   add      the rwlock shared (many adders at once), each item under its
//            StripeLock stripe, so concurrent adds of one item are told
//            "new" once; a stripe a live process keeps held makes the adder
//            back off (let go of everything, poll, pause) and go on.
//   change   the rwlock exclusive: nothing else runs on the payload.
//   read     the rwlock exclusive for a point-in-time copy (no add in
//            flight), or no lock at all once the object is frozen.
//
// Waits are bounded: a lock is tried for kLockSliceMs at a time, and the
// caller's poll runs between tries. The poll is how the embedding process
// stays cancellable while it waits (PostgreSQL's CHECK_FOR_INTERRUPTS), and
// it MAY NOT RETURN: it may raise by longjmp, which skips destructors. So
// the poll is always called holding nothing (no lock, no stripe, no spin
// word), and no frame of this protocol owns anything with a destructor
// when it is called; the callables a caller passes (insert, change, read)
// must not own any either while these functions run.
//
// A lock taken on an object whose drop committed meanwhile (kDropped; a
// drop gives the payload's blocks back under the lock) is let go at once:
// Outcome::dropped, the payload untouched. A change that finds the object
// frozen once it holds the lock (a freeze won the race with the caller's
// own check) lets go and answers Outcome::frozen. In both cases nothing is
// held on return; the caller turns the outcome into its error.
//
// Nothing here throws or allocates, and the functions include nothing of
// the embedding process: its lock owner id and poll come in a Waiter.
#pragma once

#include <cstdint>

#include "hash.hpp"
#include "shared/held_items.hpp"
#include "shared/rwlock.hpp"
#include "shared/shared_file.hpp"

namespace sketch::shared {

// A lock is waited for in slices of this length: the poll (a cancel, a
// statement_timeout) is honoured within one.
constexpr int kLockSliceMs = 20;

// Spin words taken under the shared lock (item stripes, a reservoir's mutex)
// are tried this many times before backing off.
constexpr unsigned kLockWordSpins = 1024;

// Who waits: the id the locks record (a process id, or a thread id in
// tests), and what runs between waits, holding nothing; it may not return.
struct Waiter {
    uint32_t owner;
    void (*poll)();
};

enum class Outcome {
    done,
    frozen,   // a change found the object frozen once it held the lock
    dropped,  // the object's drop committed while the call waited for the lock
    grown,    // sub-filters were published that the caller's mapping lacks (add_hashes)
};

inline bool is_frozen(const Mapping& m) { return (load_flags(m.header()) & kFrozen) != 0; }

// The rwlock shared; Outcome::dropped (holding nothing) if the object was
// dropped meanwhile.
Outcome lock_shared(const Mapping& m, const Waiter& w, ReadTicket* ticket);
inline void unlock_shared(const Mapping& m, const Waiter& w, const ReadTicket& ticket) {
    m.lock().unlock_shared(w.owner, ticket);
}
// lock_shared for a change: also Outcome::frozen (holding nothing) if the
// object was frozen before the lock was taken.
Outcome lock_shared_to_change(const Mapping& m, const Waiter& w, ReadTicket* ticket);
// The rwlock exclusive; Outcome::dropped (holding nothing) as lock_shared.
Outcome lock_exclusive(const Mapping& m, const Waiter& w);
inline void unlock_exclusive(const Mapping& m, const Waiter& w) { m.lock().unlock_exclusive(w.owner); }

// For a caller holding the shared lock whose spin word stays held by a live
// process: lets go of the shared lock, polls, pauses; the caller takes the
// lock again and retries.
void back_off(const Mapping& m, const Waiter& w, const ReadTicket& ticket);

// Adds n hashed items under one shared acquisition of the lock (more only
// when a stripe stays held), each under its item stripe; insert
// (bool(const Hash128&), must not throw) does the kind's atomic add and says
// whether the item was probably new. *fresh counts those (items added
// before a frozen or dropped outcome included). Counts one op when done.
// How many items ahead of the one it adds add_hashes starts loading the
// lines of: enough to cover memory latency with a counting filter's k lines
// per item, few enough that the lines are still cached when they are used.
constexpr int kAddAhead = 8;

// prefetch (void(const Hash128&)) starts loading an item's lines: called
// kAddAhead items ahead, so that a batch larger than the caches does not
// wait for memory at every item.
//
// With `done`, an object that may grow is checked each time the shared lock
// is taken: when sub-filters were published that m does not map (growth
// holds the exclusive lock, so none can be published while the shared one is
// held), the call stops with Outcome::grown, *done items added, since an add
// that does not look in every sub-filter could call an item new that another
// backend has just added to the newest one. The caller maps the new
// sub-filters and adds the rest. *done is n when the call is done.
template <typename Insert, typename Prefetch>
Outcome add_hashes(const Mapping& m, const Waiter& w, const Hash128* hashes, int n, Insert&& insert, int64_t* fresh,
                   Prefetch&& prefetch, int* done = nullptr) {
    StripeLock stripes = m.stripes();
    ReadTicket ticket;
    *fresh = 0;
    for (int i = 0; i < n && i < kAddAhead; ++i) prefetch(hashes[i]);
    for (int i = 0;;) {
        const Outcome locked = lock_shared_to_change(m, w, &ticket);
        if (locked != Outcome::done) return locked;
        if (done != nullptr && m.grown != nullptr && load_subfilters(m.header()) != m.subfilters) {
            unlock_shared(m, w, ticket);
            *done = i;
            return Outcome::grown;
        }
        for (; i < n; ++i) {
            const uint32_t stripe = StripeLock::stripe_of(hashes[i].lo);
            if (!stripes.try_lock(stripe, w.owner, kLockWordSpins)) break;
            if (i + kAddAhead < n) prefetch(hashes[i + kAddAhead]);
            *fresh += insert(hashes[i]);
            stripes.unlock(stripe, w.owner);
        }
        if (i == n) break;
        back_off(m, w, ticket);
    }
    add_ops(m.header(), w.owner, 1);
    unlock_shared(m, w, ticket);
    if (done != nullptr) *done = n;
    return Outcome::done;
}

template <typename Insert>
Outcome add_hashes(const Mapping& m, const Waiter& w, const Hash128* hashes, int n, Insert&& insert, int64_t* fresh) {
    return add_hashes(m, w, hashes, n, insert, fresh, [](const Hash128&) {});
}

// Runs change() (must not throw) under the exclusive lock and counts one op.
template <typename Change>
Outcome change_exclusive(const Mapping& m, const Waiter& w, Change&& change) {
    const Outcome locked = lock_exclusive(m, w);
    if (locked != Outcome::done) return locked;
    if (is_frozen(m)) {
        unlock_exclusive(m, w);
        return Outcome::frozen;
    }
    change();
    add_ops(m.header(), w.owner, 1);
    unlock_exclusive(m, w);
    return Outcome::done;
}

// Runs merge() (must not throw; atomic on the payload, as adds are) under
// the shared lock, beside adds, and counts `ops` ops: the adds a private copy
// of a sub-filter gathered (subfilter_copy.hpp) going into the object.
template <typename Merge>
Outcome merge_shared(const Mapping& m, const Waiter& w, uint64_t ops, Merge&& merge) {
    ReadTicket ticket;
    const Outcome locked = lock_shared_to_change(m, w, &ticket);
    if (locked != Outcome::done) return locked;
    merge();
    add_ops(m.header(), w.owner, ops);
    unlock_shared(m, w, ticket);
    return Outcome::done;
}

// Runs read() (must not throw) on a point-in-time state of the object: under
// the exclusive lock, or with no lock once the object is frozen (it cannot
// change again).
template <typename Read>
Outcome read_exclusive(const Mapping& m, const Waiter& w, Read&& read) {
    if (is_frozen(m)) {
        read();
        return Outcome::done;
    }
    const Outcome locked = lock_exclusive(m, w);
    if (locked != Outcome::done) return locked;
    read();
    unlock_exclusive(m, w);
    return Outcome::done;
}

}  // namespace sketch::shared
