// Hashing SQL values of any type into the core's Hash128, by the canonical
// forms documented in docs/hashing.md. Every structure hashes
// its items through here, so sketch_hash() predicts membership everywhere.
#pragma once

#include "hash.hpp"
#include "types/fetched_filters.hpp"
#include "pg.hpp"

namespace sketch_pg {

enum class ItemKind : uint8_t {
    bytes,
    padded_chars,  // char(n): its text without the trailing spaces (its cast to text)
    name,
    integer2,
    integer4,
    integer8,
    float4,
    float8,
    boolean,
    uuid,
    text_output
};

struct ItemHasher {
    Oid typid;  // InvalidOid (a zeroed hasher): not set up yet
    ItemKind kind;
    FmgrInfo output;  // used only for ItemKind::text_output
};

// Fills a hasher for values of typid (domains resolve to their base type).
// output's memory lives in mcxt.
void item_hasher_init(ItemHasher* hasher, Oid typid, MemoryContext mcxt);

// h, set up for argument argno of this call site at its first use.
inline const ItemHasher* call_site_hasher(ItemHasher* h, FunctionCallInfo fcinfo, int argno) {
    if (unlikely(h->typid == InvalidOid))
        item_hasher_init(h, get_fn_expr_argtype(fcinfo->flinfo, argno), fcinfo->flinfo->fn_mcxt);
    return h;
}

// The hasher for argument argno of the current call, cached in fn_extra.
// Only for functions that use fn_extra for nothing else.
const ItemHasher* item_hasher_for_arg(FunctionCallInfo fcinfo, int argno);

sketch::Hash128 hash_item(const ItemHasher* hasher, Datum value, uint64_t seed = 0);

// Whether values of typid hash through their text output (a call of the
// output function and an allocation each: too dear to hash twice).
bool hashes_by_output(Oid typid);

struct PrefetchTarget;

// The item of the row a prefetching scan (prefetch_scan.cpp) is returning,
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
