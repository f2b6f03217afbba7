// The pending adds: the list, its index, the objects and the copies of
// sub-filters (pending_list.hpp).
#include "shared_objects/transactional/pending_list.hpp"

#include <new>

#include "memory/huge_pages.hpp"
#include "shared_objects/registry/registry_internal.hpp"

extern "C" {
#include "utils/memutils.h"
}

namespace sketch_pg {
namespace shared {

static_assert(sizeof(PendingItem) == 24, "a large transaction lists millions of items");

uint64 mix(uint64 x) {
    x ^= x >> 31;
    x *= 0x9E3779B97F4A7C15ull;
    return x ^ (x >> 29);
}

namespace {

// From other bits of the hash than home_of's.
uint64 fingerprint_of(const sketch::Hash128& h) { return h.hi & 0xFFFFFFFF00000000ull; }

uint32 item_of(uint64 slot) { return uint32(slot); }

bool copied(const PendingObject& po, const sketch::Hash128& h) {
    for (int c = po.ncopies; c-- > 0;)
        if (po.copies[c].shape.contains(po.copies[c].bytes, h)) return true;
    return false;
}

}  // namespace

uint64 PendingAdds::home_of(uint32 object, const sketch::Hash128& h) const {
    return mix(h.lo ^ (uint64(object) << 48)) & slots_mask_;
}

// The slot holding index+1 of an item equal to (object, h), or of a free one.
uint64 PendingAdds::probe(uint32 object, const sketch::Hash128& h) const {
    const uint64 fp = fingerprint_of(h);
    for (uint64 s = home_of(object, h);; s = (s + 1) & slots_mask_) {
        const uint64 v = slots_[s];
        if (v == 0) return s;
        if ((v & 0xFFFFFFFF00000000ull) != fp) continue;
        const PendingItem& it = items_[item_of(v) - 1];
        if (it.object == object && it.h == h) return s;
    }
}

void PendingAdds::index_item(int64 i) {
    slots_[probe(items_[i].object, items_[i].h)] = fingerprint_of(items_[i].h) | uint64(i + 1);
    items_[i].indexed = true;
    indexed_++;
}

// Makes the index anew, with room for `count` items: allocates it, calls
// flag() (which may change which items are flagged indexed), and indexes
// every flagged item. The allocation comes before anything changes (and the
// old index goes after it): one that fails leaves all as it was, for a
// subtransaction that catches the error.
template <typename Flag>
void PendingAdds::reindex(int64 count, Flag flag) {
    uint64 n = 16;  // most transactions list a few items: the index grows with them
    while (uint64(count) * 2 > n) n *= 2;
    // in huge pages: a probe of a large index is also a TLB miss on 4 KiB ones
    auto* fresh = static_cast<uint64*>(alloc_large(TopTransactionContext, n * sizeof(uint64)));
    flag();
    if (slots_ != nullptr) pfree(slots_);
    slots_ = fresh;
    memset(slots_, 0, n * sizeof(uint64));
    slots_mask_ = n - 1;
    indexed_ = 0;
    // Each item goes to a random slot: start loading one some items ahead.
    constexpr int64 kAhead = 16;
    for (int64 i = 0; i < nitems_; ++i) {
        if (i + kAhead < nitems_)
            __builtin_prefetch(&slots_[home_of(items_[i + kAhead].object, items_[i + kAhead].h)], 1);
        if (items_[i].indexed) index_item(i);
    }
}

// The index of an item of (object, h) in the list, or -1.
int64 PendingAdds::find(uint32 object, const sketch::Hash128& h) const {
    if (slots_ == nullptr) return -1;
    const uint64 v = slots_[probe(object, h)];
    return v == 0 ? -1 : int64(item_of(v)) - 1;
}

// After a rollback to a savepoint dropped items of the object's copies: the
// items left go back to the index, and the object makes no copy again in
// this transaction (savepoints rolled back in a loop would otherwise rebuild
// the copies each time). So do the items listed as seen and not indexed: a
// copy may have been all that answered for one of them (a false positive of
// the copy), and the transaction must still see its own adds once the copy
// is gone; one equal to an indexed item stays out (an item is indexed once).
void PendingAdds::give_up_copies(uint32 o) {
    PendingObject& po = objects_[o];
    const auto unindexed = [&](int64 i) { return items_[i].object == o && !items_[i].indexed; };
    int64 n = 0;
    for (int64 i = 0; i < nitems_; ++i) n += unindexed(i);
    reindex(indexed_ + n, [&] {
        for (int64 i = 0; i < nitems_; ++i)
            if (items_[i].object == o && items_[i].copied) {
                items_[i].copied = false;
                items_[i].indexed = true;
            }
    });
    // (the index has room for them all: no allocation, nothing raises)
    for (int64 i = 0; i < nitems_; ++i)
        if (unindexed(i) && find(o, items_[i].h) < 0) index_item(i);
    for (int c = 0; c < po.ncopies; ++c) pfree(po.copies[c].bytes);
    po.ncopies = 0;
    po.copies_stale = false;
    po.no_copies = true;
}

// The copy of the sub-filter the object's items are listed for.
PendingCopy* PendingAdds::make_copy(uint32 o) {
    PendingObject& po = objects_[o];
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
void PendingAdds::move_to_copy(uint32 o, PendingCopy* copy, int64 n) {
    reindex(indexed_ - n, [&] {
        for (int64 i = nitems_; n > 0 && i-- > 0;) {
            PendingItem& it = items_[i];
            if (it.object != o || !it.indexed || it.key_locked) continue;
            it.indexed = false;
            it.copied = true;
            copy->shape.add(copy->bytes, it.h);
            copy->items++;
            n--;
        }
    });
}

// Removes item i from the index (backward-shift deletion keeps every
// remaining item reachable from its home slot).
void PendingAdds::unindex_item(int64 i) {
    uint64 s = probe(items_[i].object, items_[i].h);
    slots_[s] = 0;
    indexed_--;
    for (uint64 next = (s + 1) & slots_mask_; slots_[next] != 0; next = (next + 1) & slots_mask_) {
        const PendingItem& it = items_[item_of(slots_[next]) - 1];
        const uint64 home = home_of(it.object, it.h);
        // Move it into the hole when the hole lies cyclically in [home, next).
        if (((next - home) & slots_mask_) >= ((next - s) & slots_mask_)) {
            slots_[s] = slots_[next];
            slots_[next] = 0;
            s = next;
        }
    }
}

void PendingAdds::append(uint32 object, const sketch::Hash128& h, const Listing& how) {
    if (nitems_ == items_capacity_) {
        const int64 n = items_capacity_ == 0 ? 16 : items_capacity_ * 2;
        const Size bytes = Size(n) * sizeof(PendingItem);
        items_ = static_cast<PendingItem*>(items_ == nullptr ? MemoryContextAllocHuge(TopTransactionContext, bytes)
                                                             : repalloc_huge(items_, bytes));
        items_capacity_ = n;
    }
    if (how.indexed && uint64(indexed_ + 1) * 2 > slots_mask_ + 1) reindex(indexed_ + 1, [] {});
    const int64 i = nitems_++;
    PendingItem& it = items_[i];
    it.h = h;
    it.object = object;
    it.level = uint32(GetCurrentTransactionNestLevel());
    it.key_locked = how.key_locked;
    it.indexed = false;  // index_item sets it
    it.reserved = how.reserved;
    it.copied = how.copied;
    if (how.indexed) index_item(i);
    if (how.key_locked) objects_[object].key_locks++;
}

void PendingAdds::drop_last() {
    const int64 i = nitems_ - 1;
    if (items_[i].indexed) unindex_item(i);
    nitems_--;
}

void PendingAdds::forget_all() { *this = PendingAdds(); }

int PendingAdds::find_object(const Entry* e) const {
    for (int i = 0; i < nobjects_; ++i)
        if (objects_[i].entry == e && objects_[i].file_id == e->file_id) return i;
    return -1;
}

uint32 PendingAdds::add_object(Entry* e, const AddOps& ops) {
    if (nobjects_ == objects_capacity_) {
        const int n = objects_capacity_ == 0 ? 4 : objects_capacity_ * 2;
        objects_ = static_cast<PendingObject*>(
            objects_ == nullptr ? MemoryContextAlloc(TopTransactionContext, n * sizeof(PendingObject))
                                : repalloc(objects_, n * sizeof(PendingObject)));
        objects_capacity_ = n;
    }
    new (&objects_[nobjects_]) PendingObject(e, ops);
    return uint32(nobjects_++);
}

bool PendingAdds::has_pending(uint32 o, const sketch::Hash128& h) {
    if (objects_[o].copies_stale) give_up_copies(o);
    return find(o, h) >= 0 || copied(objects_[o], h);
}

PendingCopy* PendingAdds::copy_for(uint32 o, uint64 position) {
    PendingObject& po = objects_[o];
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
        PendingCopy next;
        next.sub = sub;
        po.ops.copy_of(e, sub, &next.shape, &next.offset);  // may raise: nothing changed yet
        po.listed_for = next;
        po.listed = 0;
    }
    if (uint64(++po.listed) * kCopyBytesPerItem < po.listed_for.shape.bytes()) return nullptr;
    PendingCopy* copy = make_copy(o);
    move_to_copy(o, copy, po.listed - 1);
    return copy;
}

bool PendingAdds::copies_mergeable(const PendingObject& po) {
    if (po.ncopies == 0 || po.copies_stale) return false;
    for (int c = 0; c < po.ncopies; ++c)
        if (po.copies[c].sub >= po.entry->map.subfilters) return false;
    return true;
}

// At commit: the copies into the object. Returns the items they held (every
// one took room: it was new when added, and no other transaction adds new
// items while this one overflows).
uint64 PendingAdds::merge_copies(Entry* e, const PendingObject& po) {
    uint64 items_held = 0;
    for (int c = 0; c < po.ncopies; ++c) {
        const PendingCopy& copy = po.copies[c];
        (void)sketch::shared::merge_shared(e->map, waiter(), uint64(copy.items),
                                           [&] { copy.shape.merge_into(e->map.payload() + copy.offset, copy.bytes); });
        items_held += uint64(copy.items);
    }
    return items_held;
}

void PendingAdds::prefetch(uint32 o, const sketch::Hash128& h) const {
    if (slots_ != nullptr) __builtin_prefetch(&slots_[home_of(o, h)]);
    const PendingObject& po = objects_[o];
    if (po.ncopies > 0) po.copies[po.ncopies - 1].shape.prefetch(po.copies[po.ncopies - 1].bytes, h);
}

}  // namespace shared
}  // namespace sketch_pg
