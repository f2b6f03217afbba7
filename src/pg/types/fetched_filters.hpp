// Stored filters read by a lookup per row, fetched once per call site
// (FetchedFilter) into reusable memory (memory/reusable_memory.hpp), which is
// on huge pages too; the backend keeps one copy of each stored value that
// some call site holds, shared with the prefetching scan (prefetch/).
#pragma once

#include <cstddef>

#include "memory/detoast_into.hpp"
#include "pg.hpp"

extern "C" {
#include "access/detoast.h"
}

namespace sketch_pg {

// Which stored value an out-of-line (VARATT_IS_EXTERNAL_ONDISK) datum is:
// its TOAST relation and value id, which no other value has and which name a
// value that never changes. valueid InvalidOid: none, as for any other datum.
struct StoredId {
    Oid toastrelid;
    Oid valueid;
    bool operator==(const StoredId& o) const { return valueid == o.valueid && toastrelid == o.toastrelid; }
};
inline StoredId stored_id(const struct varlena* raw) {
    if (!VARATT_IS_EXTERNAL_ONDISK(raw)) return StoredId{InvalidOid, InvalidOid};
    varatt_external p;
    VARATT_EXTERNAL_GET_POINTER(p, raw);
    return StoredId{p.va_toastrelid, p.va_valueid};
}

// One detoasted copy of a stored filter, shared by every FetchedFilter of this
// backend that holds that value: the prefetching scan (prefetch_scan.cpp) and
// the function it prefetches for must read the same memory. It lives in a
// context of its own and goes with its last holder.
struct FetchedCopy {
    StoredId id;
    struct varlena* value;
    MemoryContext cxt;  // holds this struct and value
    int holders;
    FetchedCopy* next;  // the backend's list of held copies
};

// The stored filters a call site keeps besides the one it reads now: a join
// whose rows take turns among stored filters (`FROM events JOIN days USING
// (day) WHERE days.f @> events.x`) would otherwise fetch a whole filter again
// at every turn. Bounded in bytes, which bounds large filters (four of 64
// MiB), and in number, which bounds the search at each turn (the current one
// is always kept, whatever its size).
constexpr int kRecentFilters = 15;
constexpr size_t kRecentBytes = size_t(256) << 20;

// A stored filter fetched once per call site (fn_extra), keyed by its TOAST
// pointer, so that `cbf_contains((SELECT f FROM filters), x)` fetches the
// filter once per query rather than once per row; and the filters it read
// just before. Zeroed: holds nothing. It lets go of its copies when the
// context it was fetched for is reset.
struct FetchedFilter {
    FetchedCopy* copy;                     // the filter read now
    FetchedCopy* recent[kRecentFilters];  // held too, most recent first; nullptr: none
    MemoryContextCallback on_reset;        // registered at the first fetch
};

// Whether f's current filter is raw: never unless raw is an out-of-line value it fetched.
inline bool holds(const FetchedFilter* f, struct varlena* raw) {
    return f->copy != nullptr && f->copy->id == stored_id(raw);
}

// The backend's copy of raw when some FetchedFilter holds one, else a fresh
// one in reusable memory (reusable_memory.hpp) whose array (after
// `header_bytes` of varlena and format header) starts a cache line (from 4 MiB
// a huge page), held by nobody yet (its context a child of cxt until hold_copy
// adopts it, so that a failed validation frees it with cxt).
FetchedCopy* find_or_fetch(struct varlena* raw, MemoryContext cxt, size_t header_bytes);
// The copy of raw that some FetchedFilter of this backend holds, held by f
// too from now on; nullptr when none does (nothing is fetched).
struct varlena* share_held(FetchedFilter* f, struct varlena* raw, MemoryContext cxt);
// f holds c from now on, until release_filter or the reset of cxt (where f lives).
void hold_copy(FetchedFilter* f, FetchedCopy* c, MemoryContext cxt);
// Lets go of every copy f holds.
void release_filter(FetchedFilter* f);
// Moves f's current copy to the front of its recent ones (letting go of those
// beyond kRecentFilters or kRecentBytes); f then has no current copy.
void keep_as_recent(FetchedFilter* f);
// The recent copy of f that is raw, taken out of the recent ones (still held
// by f), or nullptr.
FetchedCopy* take_recent(FetchedFilter* f, struct varlena* raw);

// The out-of-line value raw, detoasted as find_or_fetch does: the copy f holds
// when it is that value (a recent one becomes the current one again), else
// the backend's (or a fresh) copy that f holds from then on. validate(value)
// runs whenever the current copy changes; for a fetched one before f takes it
// (it may raise).
template <typename Validate>
struct varlena* fetch_filter(FetchedFilter* f, struct varlena* raw, MemoryContext cxt, size_t header_bytes,
                             Validate validate) {
    if (holds(f, raw)) return f->copy->value;
    if (FetchedCopy* c = take_recent(f, raw)) {
        keep_as_recent(f);
        f->copy = c;
        validate(c->value);  // validated when fetched: sets up the caller's view of it again
        return c->value;
    }
    FetchedCopy* c = find_or_fetch(raw, cxt, header_bytes);
    validate(c->value);
    keep_as_recent(f);
    hold_copy(f, c, cxt);
    return c->value;
}

// A filter compressed in its row (VARATT_IS_COMPRESSED: a small one in a
// row over 2 kB, or one nearly empty or full, shrunk to a few hundred bytes),
// which a subquery hands to every row as those bytes: it has no stored
// identity for FetchedFilter, so a call site keeps a copy of the last such
// bytes and their decompressed value. Zeroed: holds nothing; both live in the
// call site's context.
struct InlineCompressed {
    struct varlena* raw;
    struct varlena* value;
};

// Whether c holds raw's bytes (a memcmp of a few hundred bytes).
bool holds_compressed(const InlineCompressed* c, const struct varlena* raw);
// c holds nothing from now on.
void forget_compressed(InlineCompressed* c);
// c holds raw's bytes, and value (in cxt) as their decompressed value.
void keep_compressed(InlineCompressed* c, const struct varlena* raw, struct varlena* value, MemoryContext cxt);

// raw (compressed in line) decompressed, once for as long as the call site's
// rows pass the same bytes. validate(value) runs on each value decompressed
// anew, before c keeps it (it may raise: then c holds nothing).
template <typename Validate>
struct varlena* decompressed_once(InlineCompressed* c, struct varlena* raw, MemoryContext cxt, Validate validate) {
    if (holds_compressed(c, raw)) return c->value;
    forget_compressed(c);
    const MemoryContext old = MemoryContextSwitchTo(cxt);
    struct varlena* value = detoast_large(PointerGetDatum(raw));
    MemoryContextSwitchTo(old);
    validate(value);
    keep_compressed(c, raw, value, cxt);
    return value;
}

}  // namespace sketch_pg
