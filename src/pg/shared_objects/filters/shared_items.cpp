#include "shared_objects/filters/shared_items.hpp"

namespace sh = sketch::shared;

namespace sketch_pg {
namespace shared {

namespace {

const char* object_label(const Entry* e) { return psprintf("shared object \"%s\"", e->name); }

// Whether the items of argument argno have one type at every call of this
// call site. An array's declared type is fixed by its expression, except
// for an expression of type anyarray (a column of pg_statistic or pg_stats
// such as most_common_vals), whose element type changes from row to row.
bool items_type_fixed(FunctionCallInfo fcinfo, int argno, bool elements) {
    if (!elements) return true;
    const Oid type = get_fn_expr_argtype(fcinfo->flinfo, argno);
    return OidIsValid(type) && type != ANYARRAYOID;
}

// The hasher of this call site's items: of argument argno, or of its elements.
const ItemHasher* items_hasher(FunctionCallInfo fcinfo, int argno, bool elements) {
    if (!elements) return cached_hasher(fcinfo, argno);
    return cached_hasher_for_elements(fcinfo, PG_GETARG_ARRAYTYPE_P(argno));
}

}  // namespace

const ItemHasher* cached_hasher_for_elements(FunctionCallInfo fcinfo, ArrayType* items) {
    CallCache* cc = call_cache(fcinfo);
    if (unlikely(cc->hasher.typid != ARR_ELEMTYPE(items)))
        item_hasher_init(&cc->hasher, ARR_ELEMTYPE(items), fcinfo->flinfo->fn_mcxt);
    return &cc->hasher;
}

sketch::ItemClass object_items(const Entry* e) {
    sketch::ItemClass c;
    if (!sketch::item_class_of_word(sh::load_item_class(e->map.header()), &c))
        ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
                        errmsg("shared object \"%s\" records an item class this build does not know", e->name)));
    return c;
}

void check_object_items_slow(FunctionCallInfo fcinfo, Entry* e, int argno, ItemUse use, bool elements, const char* many) {
    const ItemHasher* h = items_hasher(fcinfo, argno, elements);
    sketch::ItemClass stored = object_items(e);
    // An array given as one item to an object of no class is refused below
    // (check_item), not recorded.
    if (use == ItemUse::add && !stored.known() && !h->is_array)
        sketch::item_class_of_word(sh::record_item_class(e->map.header(), sketch::item_class_word(h->item)), &stored);
    // the label formatted only for the error: this runs once per statement
    if (!item_meets(stored, h, use)) item_mismatch(stored, h, object_label(e), many);
    // else every call checks, with the hasher of its own elements
    if (items_type_fixed(fcinfo, argno, elements)) call_cache(fcinfo)->items_checked = e->file_id;
}

void record_object_items(Entry* e, sketch::ItemClass items, const char* what) {
    const sketch::ItemClass stored = object_items(e);
    check_classes_meet(stored, items, what);
    if (!stored.known() && items.known()) {
        sketch::ItemClass now;
        sketch::item_class_of_word(sh::record_item_class(e->map.header(), sketch::item_class_word(items)), &now);
        check_classes_meet(now, items, what);  // another backend's first add won the race
    }
}

}  // namespace shared
}  // namespace sketch_pg
