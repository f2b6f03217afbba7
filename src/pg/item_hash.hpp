// Hashing SQL values of any type into the core's Hash128, by the canonical
// forms documented in docs/hashing.md. Every structure hashes
// its items through here, so sketch_hash() predicts membership everywhere.
#pragma once

#include "hash.hpp"
#include "item_class.hpp"
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
    bool is_array;           // items are arrays (add_many takes their elements)
    sketch::ItemClass item;  // the class filters built from these items record (item_types.hpp)
    FmgrInfo output;  // used only for ItemKind::text_output
    // text_output of a type whose text may name catalog objects as the
    // search_path shows them (the reg* types, and the containers that may
    // hold one): written under a fixed search_path.
    bool fixed_search_path;
};

// Fills a hasher for values of typid (domains resolve to their base type).
// output's memory lives in mcxt.
void item_hasher_init(ItemHasher* hasher, Oid typid, MemoryContext mcxt);

// The type of argument argno of a call: the call expression's, else the
// function's declared type when that is not polymorphic, else InvalidOid.
// Citus calls an aggregate's support functions on the workers through
// worker_partial_agg without any expression, so the aggregates have overloads
// for common item types whose support functions declare them (docs/citus.md).
Oid call_arg_type(FmgrInfo* flinfo, int argno);

// h, set up for argument argno of this call site at its first use.
inline const ItemHasher* call_site_hasher(ItemHasher* h, FunctionCallInfo fcinfo, int argno) {
    if (unlikely(h->typid == InvalidOid))
        item_hasher_init(h, call_arg_type(fcinfo->flinfo, argno), fcinfo->flinfo->fn_mcxt);
    return h;
}

// The hasher for argument argno of the current call, cached in fn_extra.
// Only for functions that use fn_extra for nothing else.
const ItemHasher* item_hasher_for_arg(FunctionCallInfo fcinfo, int argno);
// The hasher for items of typid (an array argument's element type), cached
// in fn_extra likewise.
const ItemHasher* item_hasher_for_type(FunctionCallInfo fcinfo, Oid typid);

sketch::Hash128 hash_item(const ItemHasher* hasher, Datum value, uint64_t seed = 0);

// Whether values of typid hash through their text output (a call of the
// output function and an allocation each: too dear to hash twice).
bool hashes_by_output(Oid typid);

}  // namespace sketch_pg

// hash_row_item (prefetch/row_digest.hpp): for the callers that include only
// this header (shared_objects/registry/shared_registry.hpp).
#include "prefetch/row_digest.hpp"
