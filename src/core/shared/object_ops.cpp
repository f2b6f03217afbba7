#include "shared/object_ops.hpp"

#include <ctime>

namespace sketch::shared {

namespace {

// A drop that commits while a call waits for the lock gives the payload's
// blocks back under the lock (remove_file): once the lock is granted, a
// dropped object's payload must not be touched.
bool dropped(const Mapping& m) { return (load_flags(m.header()) & kDropped) != 0; }

}  // namespace

Outcome lock_shared(const Mapping& m, const Waiter& w, ReadTicket* ticket) {
    RWLock lock = m.lock();
    while (lock.lock_shared(w.owner, kLockSliceMs, ticket) != LockResult::acquired) w.poll();
    if (__builtin_expect(dropped(m), 0)) {
        lock.unlock_shared(w.owner, *ticket);
        return Outcome::dropped;
    }
    return Outcome::done;
}

Outcome lock_shared_to_change(const Mapping& m, const Waiter& w, ReadTicket* ticket) {
    const Outcome locked = lock_shared(m, w, ticket);
    if (locked != Outcome::done) return locked;
    if (is_frozen(m)) {
        unlock_shared(m, w, *ticket);
        return Outcome::frozen;
    }
    return Outcome::done;
}

Outcome lock_exclusive(const Mapping& m, const Waiter& w) {
    RWLock lock = m.lock();
    while (lock.lock_exclusive(w.owner, kLockSliceMs) != LockResult::acquired) w.poll();
    if (__builtin_expect(dropped(m), 0)) {
        lock.unlock_exclusive(w.owner);
        return Outcome::dropped;
    }
    return Outcome::done;
}

void back_off(const Mapping& m, const Waiter& w, const ReadTicket& ticket) {
    unlock_shared(m, w, ticket);
    w.poll();
    // Gives the holder of the word time to let go before the retry.
    const timespec pause{0, 100 * 1000};
    nanosleep(&pause, nullptr);
}

}  // namespace sketch::shared
