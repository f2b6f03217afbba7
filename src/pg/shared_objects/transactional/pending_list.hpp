// The current transaction's pending adds (transactional_adds.hpp): the list
// of items, its local index, the objects added to, and the private copies of
// sub-filters that an overflowing transaction gathers its new items in.
// Internal to the transactional adds (transactional_adds.cpp,
// pending_list.cpp, object_adders.cpp).
#pragma once

#include "shared/subfilter_copy.hpp"
#include "shared_objects/transactional/transactional_adds.hpp"

namespace sketch_pg {
namespace shared {

// A private copy of a sub-filter, holding an overflowing transaction's new
// items (transactional_adds.hpp).
struct PendingCopy {
    uint32 sub = 0;     // the sub-filter
    uint64 offset = 0;  // where it lies in the payload
    sketch::shared::SubfilterCopy shape;
    uint8* bytes = nullptr;  // the copy, in TopTransactionContext
    int64 items = 0;
};

// An add, as listed. Named bit-fields keep an item at 24 bytes: a large
// transaction lists millions.
struct PendingItem {
    sketch::Hash128 h;
    uint32 object;         // index into the transaction's objects
    uint32 level : 28;     // nesting level of the subtransaction that added it
    uint32 key_locked : 1; // it holds its key lock
    uint32 indexed : 1;    // it is in the index
    uint32 reserved : 1;   // it reserved room in the object
    uint32 copied : 1;     // it is in a copy of a sub-filter, not in the index
};

// How an add is listed (PendingAdds::append).
struct Listing {
    bool indexed = false;
    bool key_locked = false;
    bool reserved = false;
    bool copied = false;
};

// An object the transaction added to.
struct PendingObject {
    PendingObject(Entry* e, const AddOps& add_ops) : entry(e), file_id(e->file_id), ops(add_ops) {}

    Entry* entry;    // registry entries are never freed
    uint64 file_id;  // the incarnation the adds were made to
    AddOps ops;
    int64 key_locks = 0;     // items holding their key lock
    int64 reserved = 0;      // room reserved in the object (shared_capacity.hpp)
    int adder_level = 0;     // level that entered as the object's adder (object_adders.hpp), 0: none
    int overflow_level = 0;  // level holding the overflow lock, 0: none
    // Overflowing: the key locks other transactions held when it began.
    uint64* others_keys = nullptr;
    int64 nothers_keys = 0;
    // Copies of sub-filters (at most one each), the newest last.
    PendingCopy* copies = nullptr;
    int ncopies = 0;
    // The new items listed in a row for one sub-filter while overflowing,
    // and that sub-filter described (no bytes yet), toward a copy of it.
    int64 listed = 0;
    PendingCopy listed_for;
    bool copies_stale = false;  // a rollback to a savepoint dropped items of a copy
    bool no_copies = false;     // the object makes no copy again in this transaction
};

// An overflowing transaction copies a sub-filter once it has listed a 64th of
// the sub-filter's bytes in new items for it: before, the copy would take
// more memory, and its merge at commit more time, than indexing the items.
constexpr uint64 kCopyBytesPerItem = 64;

uint64 mix(uint64 x);

// The transaction's pending adds, in TopTransactionContext (forget_all when
// it ends). The items are listed in the order they were made, so their
// levels never decrease along the list.
class PendingAdds {
  public:
    int64 item_count() const { return nitems_; }
    PendingItem& item(int64 i) { return items_[i]; }
    int object_count() const { return nobjects_; }
    PendingObject& object(uint32 o) { return objects_[o]; }

    // The object's index, or -1.
    int find_object(const Entry* e) const;
    // Lists e as an object of the transaction; returns its index.
    uint32 add_object(Entry* e, const AddOps& ops);

    // Lists an item.
    void append(uint32 object, const sketch::Hash128& h, const Listing& how);
    // Takes the last item off the list (a rollback to a savepoint), out of
    // the index if it is there.
    void drop_last();
    // Whether this transaction has a pending add of h to object o.
    bool has_pending(uint32 o, const sketch::Hash128& h);
    // Starts loading what has_pending(o, h) will read.
    void prefetch(uint32 o, const sketch::Hash128& h) const;
    // Forgets it all (TopTransactionContext goes with the transaction).
    void forget_all();

    // The copy that takes an overflowing transaction's new item whose room
    // starts at `position` in the object's series, made once enough items
    // were listed for its sub-filter; null: the item goes to the index.
    PendingCopy* copy_for(uint32 o, uint64 position);
    // Whether every copy of the object can go into it at commit: the object
    // maps the sub-filters copied (a commit may not raise, so it cannot when
    // mapping them failed; the items are then added one by one).
    static bool copies_mergeable(const PendingObject& po);
    // At commit: the copies into the object. Returns the items they held.
    static uint64 merge_copies(Entry* e, const PendingObject& po);

  private:
    uint64 home_of(uint32 object, const sketch::Hash128& h) const;
    uint64 probe(uint32 object, const sketch::Hash128& h) const;
    int64 find(uint32 object, const sketch::Hash128& h) const;
    void index_item(int64 i);
    void unindex_item(int64 i);
    template <typename Flag>
    void reindex(int64 count, Flag flag);
    void give_up_copies(uint32 o);
    PendingCopy* make_copy(uint32 o);
    void move_to_copy(uint32 o, PendingCopy* copy, int64 n);

    PendingItem* items_ = nullptr;
    int64 nitems_ = 0;
    int64 items_capacity_ = 0;
    PendingObject* objects_ = nullptr;
    int nobjects_ = 0;
    int objects_capacity_ = 0;
    // The index: open addressing (linear probing), at most half full. A slot
    // holds an item's index + 1 (0: empty) in its low half and the item's
    // fingerprint in its high half, so that a probe reads an item of the list
    // (a cache miss in a large list) only when the fingerprints match.
    uint64* slots_ = nullptr;
    uint64 slots_mask_ = 0;
    int64 indexed_ = 0;
};

}  // namespace shared
}  // namespace sketch_pg
