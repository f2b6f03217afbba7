// The class of items a shared Bloom or counting filter holds: a word of its
// file's header (sh::FileHeader::item_class), recorded by the first add and
// checked once per call site and object, never per row.
#pragma once

#include "item_types.hpp"
#include "shared_objects/registry/shared_registry.hpp"

namespace sketch_pg {
namespace shared {

// The class recorded in the object (unknown: none yet, or a file of an
// earlier build).
sketch::ItemClass object_items(const Entry* e);

// Raises 42804 unless the items of argument argno (its elements, with
// `elements`: an array of items) may meet the object's; an add records their
// class in an object that has none (call after check_mutable). `many` names
// the function that takes an array's elements. Checked once per call site
// and object, unless the elements' type can change from row to row.
void check_object_items_slow(FunctionCallInfo fcinfo, Entry* e, int argno, ItemUse use, bool elements, const char* many);
inline void check_object_items(FunctionCallInfo fcinfo, Entry* e, int argno, ItemUse use, bool elements, const char* many) {
    const auto* cc = static_cast<const CallCache*>(fcinfo->flinfo->fn_extra);
    if (likely(cc->items_checked == e->file_id)) return;
    check_object_items_slow(fcinfo, e, argno, use, elements, many);
}

// The call-site cache's hasher, for the elements of items.
const ItemHasher* cached_hasher_for_elements(FunctionCallInfo fcinfo, ArrayType* items);

// Records the class of a value's items in the object (a create from a value,
// a merge), after checking that it meets the object's.
void record_object_items(Entry* e, sketch::ItemClass items, const char* what);

}  // namespace shared
}  // namespace sketch_pg
