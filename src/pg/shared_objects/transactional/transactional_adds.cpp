// Transactional adds (see transactional_adds.hpp): the key and overflow
// locks, the commit, and the (sub)transaction callbacks; the pending items
// themselves are pending_list.hpp's, the adders' entry and the closers'
// waits object_adders.hpp's.
#include "shared_objects/transactional/transactional_adds.hpp"

#include <algorithm>

#include "shared_objects/transactional/lock_classes.hpp"
#include "shared_objects/transactional/object_adders.hpp"
#include "shared_objects/transactional/pending_list.hpp"
#include "shared_objects/registry/registry_internal.hpp"
#include "shared_objects/filters/shared_capacity.hpp"

extern "C" {
#include "optimizer/planner.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "utils/memutils.h"
}

namespace sketch_pg {
namespace shared {

namespace {

// The current transaction's pending adds.
PendingAdds pending;

bool callbacks_registered = false;  // and the planner hook

void key_tag(LOCKTAG* tag, uint64 file_id, const sketch::Hash128& h) {
    set_lock_tag(tag, mix(h.lo ^ mix(file_id)), LockClass::key);
}

// At commit: each object's items, in batches, to its filter. Nothing here
// may raise: interrupts are held off (the waits for the object's lock stay
// bounded by the holders' work; the closers wait for this transaction), and
// an object dropped meanwhile (its entry let go of, mapping another
// incarnation, or its file marked dropped by a removal that did not wait)
// or frozen by this transaction receives nothing.
uint64 apply_batch(Entry* e, const PendingObject& po, const sketch::Hash128* batch, int n) {
    const uint64 used = po.ops.apply(e, batch, n);
    // ops counts each committed add, as it counts each immediate one
    sketch::shared::add_ops(e->map.header(), lock_owner_id(), uint64(n - 1));
    return used;
}

// Whether the object's file is still the one the adds were made to, and
// writable.
bool same_object(const PendingObject& po) {
    const Entry* e = po.entry;
    return e->loaded && e->file_id == po.file_id && !e->readonly;
}

// Gives back n of the room the adds reserved (they will not be applied).
// Never raises.
void give_back(PendingObject& po, int64 n) {
    if (same_object(po)) sketch::shared::release_items(po.entry->map.header(), uint64(n));
    po.reserved -= n;
}

void apply_all() {
    HOLD_INTERRUPTS();
    constexpr int kBatch = 256;
    sketch::Hash128 batch[kBatch];
    for (int o = 0; o < pending.object_count(); ++o) {
        PendingObject& po = pending.object(uint32(o));
        Entry* e = po.entry;
        if (!same_object(po) ||
            (sketch::shared::load_flags(e->map.header()) & (sketch::shared::kFrozen | sketch::shared::kDropped))) {
            give_back(po, po.reserved);
            continue;
        }
        int n = 0;
        uint64 used = 0;
        follow_growth_quietly(e);
        const bool merge = PendingAdds::copies_mergeable(po);
        if (merge) used += PendingAdds::merge_copies(e, po);
        for (int64 i = 0; i < pending.item_count(); ++i) {
            const PendingItem& it = pending.item(i);
            if (it.object != uint32(o) || (merge && it.copied)) continue;
            batch[n++] = it.h;
            if (n == kBatch) {
                used += apply_batch(e, po, batch, n);
                n = 0;
            }
        }
        if (n > 0) used += apply_batch(e, po, batch, n);
        settle_room(e, uint64(po.reserved), used);
    }
    RESUME_INTERRUPTS();
}

// Counts the transaction out of the object's overflowing ones before
// PostgreSQL lets go of (or stops waiting for) the overflow lock: at the end
// of the transaction, or of the subtransaction that took it. Never raises.
void end_overflow(PendingObject& po) {
    if (po.overflow_level != 0 && same_object(po)) sketch::shared::count_out(&po.entry->map.header()->overflowing);
    po.overflow_level = 0;
}

// At the end of the transaction: the overflows and the adders' slots.
void end_objects() {
    for (int o = 0; o < pending.object_count(); ++o) {
        end_overflow(pending.object(uint32(o)));
        leave_object(pending.object(uint32(o)));
    }
}

void xact_callback(XactEvent event, void*) {
    if (pending.object_count() == 0) return;
    switch (event) {
        case XACT_EVENT_PRE_PREPARE:
            if (pending.item_count() == 0) break;
            ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                            errmsg("cannot PREPARE a transaction that has added to shared objects transactionally"),
                            errhint("Add with transactional => false, or commit without PREPARE.")));
            break;
        case XACT_EVENT_COMMIT:
            apply_all();
            end_objects();
            pending.forget_all();
            break;
        case XACT_EVENT_ABORT:
            for (int o = 0; o < pending.object_count(); ++o)
                give_back(pending.object(uint32(o)), pending.object(uint32(o)).reserved);
            end_objects();
            pending.forget_all();
            break;
        case XACT_EVENT_PREPARE:
            end_objects();
            pending.forget_all();
            break;
        default: break;
    }
}

// A rollback to a savepoint drops the items its subtransactions added (a
// suffix of the list: levels never decrease along it) and PostgreSQL lets go
// of the locks they took; a subtransaction's commit hands both to its parent.
void subxact_callback(SubXactEvent event, SubTransactionId, SubTransactionId, void*) {
    if (pending.object_count() == 0) return;
    const uint32 level = uint32(GetCurrentTransactionNestLevel());
    if (event == SUBXACT_EVENT_ABORT_SUB) {
        while (pending.item_count() > 0 && pending.item(pending.item_count() - 1).level >= level) {
            const PendingItem& it = pending.item(pending.item_count() - 1);
            PendingObject& po = pending.object(it.object);
            if (it.copied) po.copies_stale = true;
            // (the items listed in a row for a sub-filter are counted anew)
            if (it.indexed && !it.key_locked) po.listed = 0;
            if (it.key_locked) po.key_locks--;
            if (it.reserved) give_back(po, 1);
            pending.drop_last();
        }
        for (int o = 0; o < pending.object_count(); ++o) {
            PendingObject& po = pending.object(uint32(o));
            // The level that entered rolls back with every add of the
            // transaction to the object (they were all made since), as
            // PostgreSQL lets go of the object's lock if it entered by that:
            // it empties its slot too, or a freeze or drop would wait for the
            // rest of a transaction that has nothing pending there, and meet
            // it in deadlocks the lock never made.
            if (uint32(po.adder_level) >= level) {
                leave_object(po);
                po.adder_level = 0;
            }
            if (uint32(po.overflow_level) >= level) end_overflow(po);
        }
    } else if (event == SUBXACT_EVENT_COMMIT_SUB) {
        for (int64 i = pending.item_count() - 1; i >= 0 && pending.item(i).level == level; --i)
            pending.item(i).level = level - 1;
        for (int o = 0; o < pending.object_count(); ++o) {
            PendingObject& po = pending.object(uint32(o));
            if (uint32(po.adder_level) == level) po.adder_level = int(level - 1);
            if (uint32(po.overflow_level) == level) po.overflow_level = int(level - 1);
        }
    }
}

planner_hook_type previous_planner = nullptr;

// A transaction with pending adds plans no parallel query: a parallel
// worker's lookups could not see the transaction's own adds.
PlannedStmt* plan_serially_while_pending(Query* parse, const char* query_string, int cursor_options,
                                         ParamListInfo params) {
    if (pending.item_count() != 0) cursor_options &= ~CURSOR_OPT_PARALLEL_OK;
    return previous_planner != nullptr ? previous_planner(parse, query_string, cursor_options, params)
                                       : standard_planner(parse, query_string, cursor_options, params);
}

uint32 object_for(Entry* e, const AddOps& ops) {
    const int found = pending.find_object(e);
    if (found >= 0) return uint32(found);
    if (!callbacks_registered) {
        RegisterXactCallback(xact_callback, nullptr);
        RegisterSubXactCallback(subxact_callback, nullptr);
        previous_planner = planner_hook;
        planner_hook = plan_serially_while_pending;
        callbacks_registered = true;
    }
    return pending.add_object(e, ops);
}

// Reserves room in the object for an add (a new item's, or any of a counting
// filter's) before it is listed: a full fixed-size object refuses it with
// 53400. Returns whether it did.
bool reserve_for(uint32 object, bool fresh) {
    PendingObject& po = pending.object(object);
    if (!fresh && !po.ops.every_add_takes_room) return false;
    reserve_room(po.entry, po.ops.series(po.entry), 1);
    po.reserved++;
    return true;
}

// A new item of an overflowing transaction: into the copy of the sub-filter
// its room was reserved in, or the index.
void list_overflowing(uint32 o, const sketch::Hash128& h) {
    PendingObject& po = pending.object(o);
    const uint64 position = reserve_room(po.entry, po.ops.series(po.entry), 1);
    po.reserved++;
    Listing how;
    how.reserved = true;
    PendingCopy* copy = pending.copy_for(o, position);
    if (copy == nullptr) {
        how.indexed = true;
        pending.append(o, h, how);
        return;
    }
    how.copied = true;
    pending.append(o, h, how);
    copy->shape.add(copy->bytes, h);
    copy->items++;
}

// An add of an item the filter or this transaction already holds: applied
// at commit all the same (AddOps), not indexed.
bool seen(uint32 object, const sketch::Hash128& h) {
    Listing how;
    how.reserved = reserve_for(object, false);
    pending.append(object, h, how);
    return false;
}

// The tag of the lock a transaction takes exclusively while it overflows
// (adds without key locks).
void overflow_tag(LOCKTAG* tag, uint64 file_id) { set_lock_tag(tag, file_id, LockClass::overflow); }

// Past its key locks, a transaction goes on without them: it takes the
// object's overflow lock (after any transaction overflowing before it has
// ended), which every adder of a new item checks after taking its key lock,
// and waits for the transaction whose pending add holds an item's key lock:
// the key locks other transactions held when it took the overflow lock (later
// ones see it and let go of theirs), listed once here.
void begin_overflow(uint32 o) {
    PendingObject& po = pending.object(o);
    LOCKTAG tag;
    overflow_tag(&tag, po.file_id);
    // Counted before the wait (an error in it ends the (sub)transaction,
    // whose callback counts it out) and before the key locks are listed: an
    // adder whose key lock is not listed took it after, and then sees the
    // count (wait_for_overflowing).
    po.overflow_level = GetCurrentTransactionNestLevel();
    sketch::shared::count_in(&po.entry->map.header()->overflowing);
    (void)LockAcquire(&tag, ExclusiveLock, false, false);
    LockData* data = GetLockStatusData();
    int64 n = 0;
    po.others_keys = static_cast<uint64*>(
        MemoryContextAllocHuge(TopTransactionContext, Size(Max(data->nelements, 1)) * sizeof(uint64)));
    for (int i = 0; i < data->nelements; ++i) {
        const LockInstanceData& l = data->locks[i];
        if (is_lock_of(l.locktag, LockClass::key) && l.pid != MyProcPid && l.holdMask != 0)
            po.others_keys[n++] = lock_tag_id(l.locktag);
    }
    std::sort(po.others_keys, po.others_keys + n);
    po.nothers_keys = n;
}

// Past its key locks in one object, a transaction overflows with it every
// object where it holds half its key locks or more (and still the incarnation
// it entered), in the order of their file ids. Two loads that feed the same
// objects row by row reach their key locks in them at about the same row, in
// an order a false positive in one object (an add that takes no key lock) can
// swap: overflowing each alone, each load could then wait for the overflow
// lock the other holds. An object the transaction barely added to is left
// alone, so that its other adders do not wait for the load to end.
void begin_overflows() {
    uint32* order = static_cast<uint32*>(palloc(sizeof(uint32) * pending.object_count()));
    int n = 0;
    for (int o = 0; o < pending.object_count(); ++o) {
        const PendingObject& po = pending.object(uint32(o));
        if (po.overflow_level == 0 && po.key_locks >= kKeyLocksPerObject / 2 && same_object(po))
            order[n++] = uint32(o);
    }
    std::sort(order, order + n,
              [](uint32 a, uint32 b) { return pending.object(a).file_id < pending.object(b).file_id; });
    for (int i = 0; i < n; ++i) begin_overflow(order[i]);
    pfree(order);
}

bool key_locked_by_others(const PendingObject& po, const LOCKTAG& key) {
    return std::binary_search(po.others_keys, po.others_keys + po.nothers_keys, lock_tag_id(key));
}

// With the item's key lock held: when a transaction overflows the object
// (or waits to), lets go of the key, waits for it to end and returns true
// (the caller starts again); else false, the key still held. The header's
// count spares the common case, no such transaction, two trips through the
// lock manager; a waiting one makes the lock unavailable in share mode too,
// so adders queue behind it as behind the one holding it.
bool wait_for_overflowing(Entry* e, const LOCKTAG* key) {
    // No transaction counted itself overflowing before this key lock was
    // taken: if one overflows, it listed the key (begin_overflow).
    if (sketch::shared::load_count(&e->map.header()->overflowing) == 0) return false;
    LOCKTAG tag;
    overflow_tag(&tag, e->file_id);
    if (LockAcquire(&tag, ShareLock, false, true) != LOCKACQUIRE_NOT_AVAIL) {
        LockRelease(&tag, ShareLock, false);
        return false;
    }
    LockRelease(key, ExclusiveLock, false);
    (void)LockAcquire(&tag, ShareLock, false, false);
    LockRelease(&tag, ShareLock, false);
    return true;
}

}  // namespace

bool add_in_transaction(Entry* e, const sketch::Hash128& h, const Lookup& committed, const AddOps& ops) {
    if (unlikely(IsInParallelMode()))
        ereport(ERROR, (errcode(ERRCODE_INVALID_TRANSACTION_STATE),
                        errmsg("cannot add to shared object \"%s\" transactionally during a parallel operation",
                               e->name)));
    const uint32 o = object_for(e, ops);
    PendingObject& po = pending.object(o);
    enter_object(po);
    if (pending.has_pending(o, h) || committed(h)) return seen(o, h);
    if (po.overflow_level == 0 && po.key_locks >= kKeyLocksPerObject) {
        begin_overflows();
        if (committed(h)) return seen(o, h);  // an overflowing transaction waited for committed it
    }
    LOCKTAG key;
    key_tag(&key, e->file_id, h);
    if (po.overflow_level != 0) {
        // Another transaction's pending add of h holds its key lock.
        if (key_locked_by_others(po, key)) {
            (void)LockAcquire(&key, ExclusiveLock, false, false);
            LockRelease(&key, ExclusiveLock, false);
            if (committed(h)) return seen(o, h);
        }
        list_overflowing(o, h);
        return true;
    }
    for (;;) {
        (void)LockAcquire(&key, ExclusiveLock, false, false);
        if (!wait_for_overflowing(e, &key)) break;
        if (committed(h)) return seen(o, h);
    }
    if (committed(h)) {  // the holder waited for committed it
        LockRelease(&key, ExclusiveLock, false);
        return seen(o, h);
    }
    Listing how;
    how.indexed = true;
    how.key_locked = true;
    how.reserved = reserve_for(o, true);
    pending.append(o, h, how);
    return true;
}

bool pending_in_transaction(const Entry* e, const sketch::Hash128& h) {
    if (pending.item_count() == 0) return false;
    const int o = pending.find_object(e);
    return o >= 0 && pending.has_pending(uint32(o), h);
}

void prefetch_pending(const Entry* e, const sketch::Hash128& h) {
    if (pending.item_count() == 0) return;
    const int o = pending.find_object(e);
    if (o >= 0) pending.prefetch(uint32(o), h);
}

void refuse_after_own_adds(const Entry* e, const char* action) {
    const int o = pending.find_object(e);
    if (o >= 0 && pending.object(uint32(o)).adder_level != 0)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("cannot %s shared object \"%s\": this transaction has added to it", action, e->name),
                        errdetail("This transaction's adds reach the object only when it commits, after the %s.",
                                  action),
                        errhint("Call shared_%s in a transaction of its own, after this one commits.", action)));
}

}  // namespace shared
}  // namespace sketch_pg
