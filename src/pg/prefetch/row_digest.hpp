// The per-row state a prefetching scan (prefetch_scan.cpp) hands to the
// functions it serves: the digest of the row it is returning, so that the
// lookup of that row's item need not hash it again.
#pragma once

#include "hash.hpp"
#include "item_hash.hpp"
#include "pg.hpp"
#include "types/fetched_filters.hpp"

namespace sketch_pg {

struct PrefetchTarget;

// The item of the row a prefetching scan is returning,
// with the digest it computed ahead, so that a lookup of that row's item
// need not hash it again; typid InvalidOid: none. A by-reference item
// matches by address: the scan publishes only items inside the page it holds
// pinned, where one address is one value; the digest is withdrawn when the
// scan moves on, ends, or its transaction or subtransaction aborts. When the
// scan's first lookup is in a stored bloom or cbf value, filter names that
// value (by its StoredId: an address could be reused by another filter), and
// target is the scan's view of it (row_answer); filter.valueid InvalidOid:
// none. hits counts reuses: the scan reads
// ahead only while its rows are looked up as it returns them.
struct RowDigest {
    Datum item;
    Oid typid;
    uint64_t seed;
    sketch::Hash128 h;
    StoredId filter;
    const PrefetchTarget* target;
    uint64_t hits;
};
extern RowDigest row_digest;

// hash_item, taking the scan's digest when value is the current row's item.
inline sketch::Hash128 hash_row_item(const ItemHasher* hasher, Datum value, uint64_t seed) {
    if (row_digest.item == value && row_digest.typid == hasher->typid && row_digest.seed == seed) {
        ++row_digest.hits;
        return row_digest.h;
    }
    return hash_item(hasher, value, seed);
}

}  // namespace sketch_pg
