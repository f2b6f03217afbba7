// What the prefetching scan (prefetch_scan.cpp) needs from each structure's
// face: where the lookups of one call site will go, so that it can start
// loading an upcoming row's lines while the rows before it are processed.
//
// A target is only ever used to issue prefetch instructions, which cannot
// fault: a stale one (an object dropped meanwhile) costs time, never
// correctness. The makers never raise for a filter the function would reject:
// they report "nothing to prefetch" and leave the error to the function.
#pragma once

#include "bloom/bloom.hpp"
#include "cbf/cbf.hpp"
#include "memory/huge_pages.hpp"
#include "types/fetched_filters.hpp"
#include "item_hash.hpp"
#include "prefetch/row_digest.hpp"
#include "pg.hpp"

namespace sketch_pg {

// The functions the scan serves, by what their first argument is: a bloom or
// cbf value, or the name of a shared bloom or cbf.
enum class PrefetchKind : uint8 { bloom_value, cbf_value, shared_bloom, shared_cbf };

// Makes the C function `symbol` of this library (its prosrc, whatever its SQL
// name), a lookup (filter or name, item, ...), one the scan prefetches for;
// need: the right a shared object is opened with. Called from _PG_init only,
// through the registration functions below (one per face file, next to the
// functions it registers).
void register_prefetchable(const char* symbol, PrefetchKind kind, uint8 need = 0);
void register_bloom_prefetchables();         // types/bloom_sql.cpp
void register_cbf_prefetchables();           // types/cbf_sql.cpp
void register_shared_bloom_prefetchables();  // shared_objects/filters/shared_bloom_sql.cpp
void register_shared_cbf_prefetchables();    // shared_objects/filters/shared_cbf_sql.cpp

namespace shared {
struct Entry;
}

struct PrefetchTarget {
    const sketch::bloom::Ops* ops;  // a bloom layout's kernels; nullptr: a cbf
    sketch::bloom::Span span;       // bloom: the array's shape; both: bits = the array
    sketch::cbf::Geometry cbf;      // a cbf's geometry
    uint64_t bytes;                 // the array's size
    uint64_t seed;                  // items hash with it
    const shared::Entry* object = nullptr;  // a shared object (its transaction's pending adds), else nullptr
};

inline void prefetch_item(const PrefetchTarget& t, const sketch::Hash128& h) {
    if (t.ops != nullptr)
        t.ops->prefetch_one(t.span, h);
    else
        sketch::cbf::prefetch(t.cbf, t.span.bits, h);
}

// Cache lines one item's lookup may touch (a block that may straddle two
// lines counts as two; a blocked cbf's counters share one line).
inline uint32_t lines_per_item(const PrefetchTarget& t) {
    if (t.ops != nullptr) return t.span.k * (t.span.stride > 1 ? 2 : 1);
    return t.cbf.blocked() ? 1 : t.cbf.k;
}

// A grown shared object's sub-filters beyond the first target: a lookup of
// an item it does not hold reads every sub-filter, so the scan loads the
// item's lines in each of them at once, as long as a row's lines stay within
// kSubfilterLines (a classic counting filter's k lines a sub-filter would
// crowd out the rows ahead, where lookups of members end in the first).
constexpr int kMoreSubfilters = 7;
constexpr uint32_t kSubfilterLines = 8;
struct MoreTargets {
    int n;
    PrefetchTarget t[kMoreSubfilters];
};

// The targets of an object's count sub-filters, in the order its lookups
// read them: the fullest into t, then the others, the newest first, into
// more. target_of(i, target) fills sub-filter i's.
template <typename TargetOf>
void subfilter_targets(uint32_t count, uint32_t fullest, TargetOf target_of, PrefetchTarget* t, MoreTargets* more) {
    target_of(fullest, t);
    more->n = 0;
    uint32_t lines = lines_per_item(*t);
    for (uint32_t i = count; i-- > 0 && more->n < kMoreSubfilters;) {
        if (i == fullest) continue;
        target_of(i, &more->t[more->n]);
        lines += lines_per_item(more->t[more->n]);
        if (lines > kSubfilterLines) return;
        ++more->n;
    }
}

// A lookup of item (of the call site's type typid) in the value filter, when
// it is the lookup of the row a prefetching scan is returning, in the stored
// value the scan reads: answered from the scan's digest and view of the
// filter (bloom: whether it contains item; cbf: item's count_of), without
// setting up the call. False otherwise.
inline bool row_answer(Oid typid, Datum filter, Datum item, int32* answer) {
    if (row_digest.item != item || row_digest.typid != typid || row_digest.filter.valueid == InvalidOid) return false;
    auto* raw = reinterpret_cast<struct varlena*>(DatumGetPointer(filter));
    if (!(stored_id(raw) == row_digest.filter)) return false;
    ++row_digest.hits;
    const PrefetchTarget& t = *row_digest.target;
    *answer = t.ops != nullptr ? int32(t.ops->contains_one(t.span, row_digest.h))
                               : int32(sketch::cbf::count_of(t.cbf, t.span.bits, row_digest.h));
    return true;
}

// A bloom or cbf value argument as its lookup function reads it, when the
// scan may read it without fetching anything: a stored value once the
// function has fetched it (its copy, then held by f too), a plain in-memory
// one in place; nullptr otherwise (not fetched yet, compressed in line).
// With fetch_header_bytes (the function's own, fetch_filter), a stored value
// not fetched yet is fetched as the function would, and held by f.
inline struct varlena* value_as_read(Datum filter, FetchedFilter* f, MemoryContext cxt, size_t fetch_header_bytes) {
    auto* raw = reinterpret_cast<struct varlena*>(DatumGetPointer(filter));
    if (VARATT_IS_EXTERNAL_ONDISK(raw)) {
        if (fetch_header_bytes == 0 || holds(f, raw)) return share_held(f, raw, cxt);
        release_filter(f);
        hold_copy(f, find_or_fetch(raw, cxt, fetch_header_bytes), cxt);
        return f->copy->value;
    }
    return VARATT_IS_4B_U(raw) ? raw : nullptr;
}

// The target of a bloom or cbf value argument (value_as_read, fetching it
// when `fetch`) for items of the hasher's type. False when there is nothing
// to prefetch (no value to read yet, a header the function will reject, a
// filter of items of another class, which the function refuses).
bool bloom_value_target(Datum filter, const ItemHasher* hasher, FetchedFilter* f, MemoryContext cxt, bool fetch,
                        PrefetchTarget* t);
bool cbf_value_target(Datum filter, const ItemHasher* hasher, FetchedFilter* f, MemoryContext cxt, bool fetch,
                      PrefetchTarget* t);
// A shared object this backend has opened for (need) before (find_opened):
// its sub-filters as subfilter_targets orders them (a grown object's only
// when the entry has its table of them: nothing may be made here).
bool shared_bloom_target(const char* name, int len, uint8 need, PrefetchTarget* t, MoreTargets* more);
bool shared_cbf_target(const char* name, int len, uint8 need, PrefetchTarget* t, MoreTargets* more);

}  // namespace sketch_pg
