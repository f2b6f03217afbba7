// The class of items a filter holds (core item_class.hpp) in PostgreSQL's
// terms: the class of a type, its name in errors, and the checks that a
// lookup, add or merge meets a filter of its own class.
#pragma once

#include "item_class.hpp"
#include "item_hash.hpp"
#include "pg.hpp"

namespace sketch_pg {

// The class of items of base type `base` that hash as `kind`.
sketch::ItemClass item_class_of(ItemKind kind, Oid base);

// What a call does with an item: an add records the item's class in a
// filter that has none.
enum class ItemUse : uint8_t { lookup, add };

// The error of check_item (42804), naming the filter (`what`: "bloom
// filter", "shared object \"seen\"") and both types.
[[noreturn]] void item_mismatch(sketch::ItemClass filter, const ItemHasher* h, const char* what, const char* many);

// Whether an item of the hasher's type may meet a filter of class `filter`
// in `use`: not when the classes differ, or the item is an array given to an
// add on a filter of no class (an array is one item only in a filter of
// arrays). check_item raises 42804 where it may not (`many` names the
// function that takes an array's elements).
inline bool item_meets(sketch::ItemClass filter, const ItemHasher* h, ItemUse use) {
    return sketch::classes_compatible(filter, h->item) && !(h->is_array && !filter.known() && use == ItemUse::add);
}
inline void check_item(sketch::ItemClass filter, const ItemHasher* h, ItemUse use, const char* what, const char* many) {
    if (likely(item_meets(filter, h, use))) return;
    item_mismatch(filter, h, what, many);
}

// Raises 42804 unless filters of classes a and b may be combined by `what`
// ("union bloom filters").
void check_classes_meet(sketch::ItemClass a, sketch::ItemClass b, const char* what);

}  // namespace sketch_pg
