// The pending list, its index and the copies of sub-filters (pending_list.hpp).
#include "shared_objects/transactional/pending_list.hpp"

#include "memory/huge_pages.hpp"
#include "shared_objects/registry/registry_internal.hpp"

extern "C" {
#include "utils/memutils.h"
}

namespace sketch_pg {
namespace shared {
namespace pending {

PendingItem* items = nullptr;
PendingObject* objects = nullptr;
int nobjects = 0;
int objects_capacity = 0;

uint64 mix(uint64 x) {
    x ^= x >> 31;
    x *= 0x9E3779B97F4A7C15ull;
    return x ^ (x >> 29);
}

namespace {

int64 items_capacity = 0;

// Open addressing (linear probing), at most half full. A slot holds an
// item's index + 1 (0: empty) in its low half and the item's fingerprint in
// its high half, so that a probe reads an item of the list (a cache miss in a
// large list) only when the fingerprints match.
uint64* slots = nullptr;

uint64 slots_mask = 0;

int64 indexed = 0;

uint64 home_of(uint32 object, const sketch::Hash128& h) { return mix(h.lo ^ (uint64(object) << 48)) & slots_mask; }

// From other bits of the hash than home_of's.
uint64 fingerprint_of(const sketch::Hash128& h) { return h.hi & 0xFFFFFFFF00000000ull; }

uint32 item_of(uint64 slot) { return uint32(slot); }

// The slot holding index+1 of an item equal to (object, h), or of a free one.
uint64 probe(uint32 object, const sketch::Hash128& h) {
    const uint64 fp = fingerprint_of(h);
    for (uint64 s = home_of(object, h);; s = (s + 1) & slots_mask) {
        const uint64 v = slots[s];
        if (v == 0) return s;
        if ((v & 0xFFFFFFFF00000000ull) != fp) continue;
        const PendingItem& it = items[item_of(v) - 1];
        if (it.object == object && it.h == h) return s;
    }
}

void index_item(int64 i) {
    slots[probe(items[i].object, items[i].h)] = fingerprint_of(items[i].h) | uint64(i + 1);
    items[i].level |= kIndexed;
    indexed++;
}

// Makes the index anew, with room for `count` items: allocates it, calls
// flag() (which may change which items are flagged kIndexed), and indexes
// every flagged item. The allocation comes before anything changes (and the
// old index goes after it): one that fails leaves all as it was, for a
// subtransaction that catches the error.
template <typename Flag>
void reindex(int64 count, Flag flag) {
    uint64 n = 16;  // most transactions list a few items: the index grows with them
    while (uint64(count) * 2 > n) n *= 2;
    // in huge pages: a probe of a large index is also a TLB miss on 4 KiB ones
    auto* fresh = static_cast<uint64*>(alloc_large(TopTransactionContext, n * sizeof(uint64)));
    flag();
    if (slots != nullptr) pfree(slots);
    slots = fresh;
    memset(slots, 0, n * sizeof(uint64));
    slots_mask = n - 1;
    indexed = 0;
    // Each item goes to a random slot: start loading one some items ahead.
    constexpr int64 kAhead = 16;
    for (int64 i = 0; i < pending_items; ++i) {
        if (i + kAhead < pending_items)
            __builtin_prefetch(&slots[home_of(items[i + kAhead].object, items[i + kAhead].h)], 1);
        if (items[i].level & kIndexed) index_item(i);
    }
}

// The index of an item of (object, h) in the list, or -1.
int64 find(uint32 object, const sketch::Hash128& h) {
    if (slots == nullptr) return -1;
    const uint64 v = slots[probe(object, h)];
    return v == 0 ? -1 : int64(item_of(v)) - 1;
}

bool copied(const PendingObject& po, const sketch::Hash128& h) {
    for (int c = po.ncopies; c-- > 0;)
        if (po.copies[c].shape.contains(po.copies[c].bytes, h)) return true;
    return false;
}

// After a rollback to a savepoint dropped items of the object's copies: the
// items left go back to the index, and the object makes no copy again in
// this transaction (savepoints rolled back in a loop would otherwise rebuild
// the copies each time). So do the items listed as seen and not indexed: a
// copy may have been all that answered for one of them (a false positive of
// the copy), and the transaction must still see its own adds once the copy
// is gone; one equal to an indexed item stays out (an item is indexed once).
void give_up_copies(uint32 o) {
    PendingObject& po = objects[o];
    const auto unindexed = [&](int64 i) { return items[i].object == o && !(items[i].level & kIndexed); };
    int64 n = 0;
    for (int64 i = 0; i < pending_items; ++i) n += unindexed(i);
    reindex(indexed + n, [&] {
        for (int64 i = 0; i < pending_items; ++i)
            if (items[i].object == o && (items[i].level & kCopied)) items[i].level = (items[i].level & ~kCopied) | kIndexed;
    });
    // (the index has room for them all: no allocation, nothing raises)
    for (int64 i = 0; i < pending_items; ++i)
        if (unindexed(i) && find(o, items[i].h) < 0) index_item(i);
    for (int c = 0; c < po.ncopies; ++c) pfree(po.copies[c].bytes);
    po.ncopies = 0;
    po.copies_stale = false;
    po.no_copies = true;
}

// The copy of the sub-filter the object's items are listed for.
PendingCopy* make_copy(uint32 o) {
    PendingObject& po = objects[o];
    if (po.copies == nullptr)
        po.copies = static_cast<PendingCopy*>(
            MemoryContextAlloc(TopTransactionContext, sketch::shared::kMaxSubfilters * sizeof(PendingCopy)));
    PendingCopy& copy = po.copies[po.ncopies];
    copy = po.listed_for;
    copy.bytes = static_cast<uint8*>(alloc_large(TopTransactionContext, copy.shape.bytes()));
    memset(copy.bytes, 0, copy.shape.bytes());
    po.ncopies++;
    return &copy;
}

// Moves the last n items listed for the copy's sub-filter (the object's last
// n indexed items without a key lock) from the index to the copy, so that
// lookups need not probe a large index beside it.
void move_to_copy(uint32 o, PendingCopy* copy, int64 n) {
    reindex(indexed - n, [&] {
        for (int64 i = pending_items; n > 0 && i-- > 0;) {
            PendingItem& it = items[i];
            if (it.object != o || (it.level & (kIndexed | kKeyLocked)) != kIndexed) continue;
            it.level = (it.level & ~kIndexed) | kCopied;
            copy->shape.add(copy->bytes, it.h);
            copy->items++;
            n--;
        }
    });
}

}  // namespace

// Removes item i from the index (backward-shift deletion keeps every
// remaining item reachable from its home slot).
void unindex_item(int64 i) {
    uint64 s = probe(items[i].object, items[i].h);
    slots[s] = 0;
    indexed--;
    for (uint64 next = (s + 1) & slots_mask; slots[next] != 0; next = (next + 1) & slots_mask) {
        const PendingItem& it = items[item_of(slots[next]) - 1];
        const uint64 home = home_of(it.object, it.h);
        // Move it into the hole when the hole lies cyclically in [home, next).
        if (((next - home) & slots_mask) >= ((next - s) & slots_mask)) {
            slots[s] = slots[next];
            slots[next] = 0;
            s = next;
        }
    }
}

void append(uint32 object, const sketch::Hash128& h, uint32 flags) {
    if (pending_items == items_capacity) {
        const int64 n = items_capacity == 0 ? 16 : items_capacity * 2;
        const Size bytes = Size(n) * sizeof(PendingItem);
        items = static_cast<PendingItem*>(items == nullptr ? MemoryContextAllocHuge(TopTransactionContext, bytes)
                                                           : repalloc_huge(items, bytes));
        items_capacity = n;
    }
    if ((flags & kIndexed) && uint64(indexed + 1) * 2 > slots_mask + 1) reindex(indexed + 1, [] {});
    const int64 i = pending_items++;
    items[i] = PendingItem{h, object, uint32(GetCurrentTransactionNestLevel()) | (flags & (kKeyLocked | kReserved | kCopied))};
    if (flags & kIndexed) index_item(i);
    if (flags & kKeyLocked) objects[object].key_locks++;
}

void forget_all() {
    items = nullptr;
    items_capacity = 0;
    objects = nullptr;
    nobjects = 0;
    objects_capacity = 0;
    slots = nullptr;
    slots_mask = 0;
    indexed = 0;
    pending_items = 0;
}

int find_object(const Entry* e) {
    for (int i = 0; i < nobjects; ++i)
        if (objects[i].entry == e && objects[i].file_id == e->file_id) return i;
    return -1;
}

bool has_pending(uint32 o, const sketch::Hash128& h) {
    if (objects[o].copies_stale) give_up_copies(o);
    return find(o, h) >= 0 || copied(objects[o], h);
}

PendingCopy* copy_for(uint32 o, uint64 position) {
    PendingObject& po = objects[o];
    if (po.no_copies) return nullptr;
    const Entry* e = po.entry;
    // The count published in the header, not the one this backend maps:
    // another backend may have grown the object since this call followed
    // growth, and `position` may lie in a sub-filter it added (copy_of needs
    // no mapping; a commit that cannot map it adds the items one by one).
    const uint32 count = sketch::shared::load_subfilters(e->map.header());
    const uint32 sub = sketch::shared::subfilter_at(po.ops.series(e), count, position);
    for (int c = po.ncopies; c-- > 0;)
        if (po.copies[c].sub == sub) return &po.copies[c];
    if (po.listed == 0 || po.listed_for.sub != sub) {
        PendingCopy next{sub, 0, {}, nullptr, 0};
        po.ops.copy_of(e, sub, &next.shape, &next.offset);  // may raise: nothing changed yet
        po.listed_for = next;
        po.listed = 0;
    }
    if (uint64(++po.listed) * kCopyBytesPerItem < po.listed_for.shape.bytes()) return nullptr;
    PendingCopy* copy = make_copy(o);
    move_to_copy(o, copy, po.listed - 1);
    return copy;
}

bool copies_mergeable(const PendingObject& po) {
    if (po.ncopies == 0 || po.copies_stale) return false;
    for (int c = 0; c < po.ncopies; ++c)
        if (po.copies[c].sub >= po.entry->map.subfilters) return false;
    return true;
}

// At commit: the copies into the object. Returns the items they held (every
// one took room: it was new when added, and no other transaction adds new
// items while this one overflows).
uint64 merge_copies(Entry* e, const PendingObject& po) {
    uint64 items_held = 0;
    for (int c = 0; c < po.ncopies; ++c) {
        const PendingCopy& copy = po.copies[c];
        (void)sketch::shared::merge_shared(e->map, waiter(), uint64(copy.items),
                                           [&] { copy.shape.merge_into(e->map.payload() + copy.offset, copy.bytes); });
        items_held += uint64(copy.items);
    }
    return items_held;
}

void prefetch(uint32 o, const sketch::Hash128& h) {
    if (slots != nullptr) __builtin_prefetch(&slots[home_of(o, h)]);
    const PendingObject& po = objects[o];
    if (po.ncopies > 0) po.copies[po.ncopies - 1].shape.prefetch(po.copies[po.ncopies - 1].bytes, h);
}

}  // namespace pending
}  // namespace shared
}  // namespace sketch_pg
