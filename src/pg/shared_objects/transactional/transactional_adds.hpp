// Transactional adds to shared Bloom and counting filters.
//
// An add made in a transaction does not touch the filter: the backend keeps
// the item's hash in a local list (with the subtransaction level that made
// it) and applies the list to the filters when the transaction commits
// (XACT_EVENT_COMMIT: the commit is certain and the transaction's locks are
// still held). An abort, a rollback to a savepoint, a killed backend or a
// crash drops the list, so no other transaction ever sees those adds.
//
// Racing adders meet in PostgreSQL's lock manager, as a unique index's
// inserters do: an add of a new item takes an exclusive lock on the (object,
// item) key, held to the end of the transaction, so another transaction
// adding that item waits, then finds it in the filter if the holder
// committed, or adds it if the holder aborted. Deadlocks, lock_timeout,
// statement_timeout and cancel work as for any lock.
//
// The lock table is small and shared, so a transaction takes at most
// kKeyLocksPerObject key locks per object. Beyond them it overflows: it takes
// the object's overflow lock exclusively (after any transaction overflowing
// before it has ended) and adds without key locks. Every adder of a new item
// checks the overflow lock after taking its key lock and, when a transaction
// overflows, lets go of the key and waits for that transaction to end; the
// overflowing one waits for the transactions whose pending adds held key
// locks when it began. Shared memory stays bounded (the key locks); each
// pending add takes 24 bytes of the backend's memory in the list and 16 to 32
// in its index.
//
// An overflowing transaction that lists many new items for one sub-filter
// (as many as a 64th of its bytes) gathers the next ones in a private copy of
// that sub-filter instead of its index: no other transaction adds new items
// while it overflows, and at commit the copy goes into the object in one pass
// (subfilter_copy.hpp) where its items would take a random line each. Its
// lookups look in the copies as in the index. A rollback to a savepoint that
// drops items of a copy (the copy cannot drop them) puts the items left back
// in the index and ends the object's copies for the transaction.
//
// Room in the object (shared_capacity.hpp) is reserved when an add that takes
// some is made, so a full fixed-size object refuses the add (53400), never the
// commit; the commit gives back what its adds did not use (items another
// transaction added first), an abort or a rollback to a savepoint what its
// adds reserved. A killed backend's reservations stay counted.
#pragma once

#include "shared/scaling.hpp"
#include "shared/subfilter_copy.hpp"
#include "shared_objects/registry/shared_registry.hpp"

namespace sketch_pg {
namespace shared {

// Key locks a transaction takes per object before it locks the object itself.
constexpr int64 kKeyLocksPerObject = 64;

// What a transactional add needs of the object's kind.
struct AddOps {
    // Adds n items to the filter at commit (every add of the transaction, a
    // repeated one too: a cbf's counters count them all, and ops counts each
    // call); must not raise (it runs under HOLD_INTERRUPTS, after the commit
    // record). Returns the items that took room (shared_capacity.hpp).
    uint64 (*apply)(Entry* e, const sketch::Hash128* h, int n);
    // The object's series of sub-filters: its capacity and expansion.
    sketch::shared::Series (*series)(const Entry* e);
    // Whether every add takes room (a counting filter) or only a new item's.
    bool every_add_takes_room;
    // Describes sub-filter `sub` of e for a private copy of it, and where it
    // lies in the payload; may raise.
    void (*copy_of)(const Entry* e, uint32 sub, sketch::shared::SubfilterCopy* copy, uint64* offset);
};

// Whether the committed filter probably holds an item: a reference to the
// caller's lookup (which must not raise), valid for the call.
struct Lookup {
    bool (*fn)(const void* ctx, const sketch::Hash128& h);
    const void* ctx;
    bool operator()(const sketch::Hash128& h) const { return fn(ctx, h); }
};
template <typename F>
Lookup lookup_of(const F& f) {
    return Lookup{[](const void* ctx, const sketch::Hash128& h) { return (*static_cast<const F*>(ctx))(h); }, &f};
}

// Adds h to e in the current transaction; true when it was probably new
// (neither committed nor added before by this transaction). Waits for a
// transaction that has a pending add of the same item.
bool add_in_transaction(Entry* e, const sketch::Hash128& h, const Lookup& committed, const AddOps& ops);

// Whether this transaction has a pending add of h to e (a transaction sees
// its own adds).
bool pending_in_transaction(const Entry* e, const sketch::Hash128& h);
// Starts loading the slot of this transaction's index that an add or lookup
// of h in e will read (the prefetching scan calls it for upcoming rows: in a
// large transaction the index is far larger than the caches).
void prefetch_pending(const Entry* e, const sketch::Hash128& h);

// The `transactional` argument of an add (true when absent).
inline bool transactional_arg(FunctionCallInfo fcinfo, int argno) {
    return PG_NARGS() <= argno || PG_GETARG_BOOL(argno);
}

// Before a freeze or a drop of object `name`, incarnation file_id: waits for
// the transactions with pending adds to it to end (their commits must find it
// mutable, its file in place), and holds off new ones until this transaction
// ends (object_adders.hpp). A drop in the transaction that added needs no
// wait: the adds are applied before the drop's file actions at commit.
void wait_for_pending_adds(const char* name, uint64 file_id);
// Raises 55000 when the current transaction has added to e: a freeze would
// refuse its own adds at commit, and a sync's image would lack them (action:
// "freeze" or "sync", as the SQL function is named).
void refuse_after_own_adds(const Entry* e, const char* action);

}  // namespace shared
}  // namespace sketch_pg
