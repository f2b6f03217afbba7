// The current transaction's pending adds (transactional_adds.hpp): the list
// of items, its local index, and the private copies of sub-filters that an
// overflowing transaction gathers its new items in. Internal to the
// transactional adds (transactional_adds.cpp, pending_list.cpp).
#pragma once

#include "shared/subfilter_copy.hpp"
#include "shared_objects/transactional/transactional_adds.hpp"

namespace sketch_pg {
namespace shared {
namespace pending {

// Item flags, kept in the high bits of an item's level word.
constexpr uint32 kKeyLocked = 1u << 31;  // the item holds its key lock
constexpr uint32 kIndexed = 1u << 30;    // the item is in the index
constexpr uint32 kReserved = 1u << 29;   // the item reserved room in the object
constexpr uint32 kCopied = 1u << 28;     // the item is in a copy of a sub-filter, not in the index
constexpr uint32 kLevelMask = kCopied - 1;

// A private copy of a sub-filter, holding an overflowing transaction's new
// items (transactional_adds.hpp).
struct PendingCopy {
    uint32 sub;        // the sub-filter
    uint64 offset;     // where it lies in the payload
    sketch::shared::SubfilterCopy shape;
    uint8* bytes;      // the copy, in TopTransactionContext
    int64 items;
};

struct PendingItem {
    sketch::Hash128 h;
    uint32 object;  // index into objects
    uint32 level;   // nesting level of the subtransaction that added it, plus flags
};

struct PendingObject {
    Entry* entry;   // registry entries are never freed
    uint64 file_id; // the incarnation the adds were made to
    AddOps ops;
    int64 key_locks;       // items holding their key lock
    int64 reserved;        // room reserved in the object (shared_capacity.hpp)
    int adder_level;       // level that entered as the object's adder (object_adders.hpp), 0: none
    int overflow_level;    // level holding the overflow lock, 0: none
    // Overflowing: the key locks other transactions held when it began.
    uint64* others_keys;
    int64 nothers_keys;
    // Copies of sub-filters (at most one each), the newest last.
    PendingCopy* copies;
    int ncopies;
    // The new items listed in a row for one sub-filter while overflowing,
    // and that sub-filter described (no bytes yet), toward a copy of it.
    int64 listed;
    PendingCopy listed_for;
    bool copies_stale;  // a rollback to a savepoint dropped items of a copy
    bool no_copies;     // the object makes no copy again in this transaction
};

// An overflowing transaction copies a sub-filter once it has listed a 64th of
// the sub-filter's bytes in new items for it: before, the copy would take
// more memory, and its merge at commit more time, than indexing the items.
constexpr uint64 kCopyBytesPerItem = 64;

// The transaction's pending state, in TopTransactionContext.
extern PendingItem* items;
extern PendingObject* objects;
extern int nobjects;
extern int objects_capacity;

uint64 mix(uint64 x);

// Lists an item (flags: kIndexed, kKeyLocked, kReserved, kCopied).
void append(uint32 object, const sketch::Hash128& h, uint32 flags);
// Takes item i out of the index (a rollback to a savepoint drops it).
void unindex_item(int64 i);
// Whether this transaction has a pending add of h to object o.
bool has_pending(uint32 o, const sketch::Hash128& h);
// Starts loading what has_pending(o, h) will read.
void prefetch(uint32 o, const sketch::Hash128& h);
// The object's index in objects, or -1.
int find_object(const Entry* e);
// Forgets it all (TopTransactionContext goes with the transaction).
void forget_all();

// The copy that takes an overflowing transaction's new item whose room
// starts at `position` in the object's series, made once enough items were
// listed for its sub-filter; null: the item goes to the index.
PendingCopy* copy_for(uint32 o, uint64 position);
// Whether every copy of the object can go into it at commit: the object
// maps the sub-filters copied (a commit may not raise, so it cannot when
// mapping them failed; the items are then added one by one).
bool copies_mergeable(const PendingObject& po);
// At commit: the copies into the object. Returns the items they held.
uint64 merge_copies(Entry* e, const PendingObject& po);

}  // namespace pending
}  // namespace shared
}  // namespace sketch_pg
