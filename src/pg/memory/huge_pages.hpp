// Large filters in transparent huge pages. Every probe of a filter beyond the
// caches lands on a page of its own; with 4 KiB pages each one is also a TLB
// miss (bench/core/cbf_bench.cpp compares both). This machine class's THP
// setting is `madvise`, so memory gets huge pages only when asked.
// All of it is a hint: when the kernel says no, the memory works as before.
// Stored filters read by a lookup per row are fetched once per call site
// (FetchedFilter), into reusable memory (reusable_memory.hpp), which is on
// huge pages too.
#pragma once

#include <cstddef>

#include "pg.hpp"

extern "C" {
#include "access/detoast.h"
}

namespace sketch_pg {

// The size of a transparent huge page on x86-64.
constexpr size_t kHugePageBytes = size_t(2) << 20;

// Advises the 2 MiB-aligned part of [p, p + len) into huge pages: memory not
// touched yet then faults in 2 MiB at a time. Nothing for less than 4 MiB.
void advise_huge(void* p, size_t len);

// `bytes` from cxt (1 GB or more allowed), the whole 2 MiB pages inside
// advised into huge pages before anything touches them. It is the start of an
// ordinary chunk, which PostgreSQL may copy, free or adopt like any other:
// for values a function returns (a fresh 64 MiB palloc faults in 16,384
// pages of 4 KiB; in huge pages, in 32).
void* alloc_large(MemoryContext cxt, size_t bytes);
inline void* palloc_large(size_t bytes) { return alloc_large(CurrentMemoryContext, bytes); }
void* palloc0_large(size_t bytes);
// PG_DETOAST_DATUM and PG_DETOAST_DATUM_COPY of a filter, into palloc_large
// memory, without an intermediate copy where PostgreSQL allows (huge_pages.cpp,
// detoast_into).
struct varlena* detoast_large(Datum d);
struct varlena* detoast_large_copy(Datum d);
// d detoasted, or copied when it is plain, into memory from alloc(len, arg):
// detoast_large_copy into memory of the caller's choosing.
struct varlena* detoast_copy_into(Datum d, void* (*alloc)(size_t len, void* arg), void* arg);

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

}  // namespace sketch_pg
