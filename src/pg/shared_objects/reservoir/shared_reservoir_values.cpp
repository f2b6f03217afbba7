// Shared reservoirs and reservoir values: the functions that move items
// between a shared object and a value: shared_create_from(name, reservoir),
// shared_reservoir_snapshot, shared_reservoir_merge, and the sample read as
// the type the object records (shared_reservoir_sample(name, NULL::type)).
// The locks and the item bytes are shared_reservoir_sql.cpp's
// (shared_reservoir_internal.hpp).
#include <cstring>

#include "reservoir/shared_reservoir.hpp"
#include "guard.hpp"
#include "pg_compat.hpp"
#include "shared_objects/registry/shared_registry.hpp"
#include "shared_objects/reservoir/shared_reservoir_internal.hpp"
#include "types/reservoir_value.hpp"

extern "C" {
#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
}

namespace sh = sketch::shared;
namespace ss = sketch_pg::shared;
namespace sr = sketch::shared_reservoir;
using namespace sketch_pg::shared_reservoir;

// The item type a copy records as one type, or nullptr (none, or several).
static const char* single_item_type(const Copy& c) {
    return c.item_type[0] == 0 || c.item_type[0] == sr::kMixedItemTypes ? nullptr : c.item_type;
}

// The items of a copy as values of type typid, read back through its input
// function from their text forms.
static Datum* items_as_type(const Copy& c, Oid typid) {
    Oid input, ioparam;
    getTypeInputInfo(typid, &input, &ioparam);
    FmgrInfo flinfo;
    fmgr_info(input, &flinfo);
    auto* items = static_cast<Datum*>(palloc(sizeof(Datum) * (c.count + 1)));
    for (uint64 i = 0; i < c.count; ++i)
        items[i] = InputFunctionCall(&flinfo, item_cstring(slot_of(c, i)), ioparam, -1);
    return items;
}

// Refuses (42804) to read the items of e as type `asked` unless that is the
// type the object records; an empty object that records none reads as any.
static void check_item_type(const ss::Entry* e, const Copy& c, Oid asked) {
    const char* asked_name = item_type_name(asked);
    const char* recorded = single_item_type(c);
    if (recorded != nullptr && strcmp(recorded, asked_name) == 0) return;
    if (c.item_type[0] == 0 && c.count == 0) return;
    if (recorded != nullptr)
        ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                        errmsg("shared reservoir \"%s\" holds items of type %s, not %s", e->name, recorded, asked_name),
                        errhint("Pass a NULL of the item type: shared_reservoir_sample('%s', NULL::%s).", e->name,
                                recorded)));
    ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                    errmsg("shared reservoir \"%s\" records no single item type, so its items cannot be read as %s",
                           e->name, asked_name),
                    errdetail(c.item_type[0] == 0 ? "Its items were added before item types were recorded."
                                                  : "Items of several types were added, or the type's name is longer "
                                                    "than 55 bytes."),
                    errhint("Read them as text: shared_reservoir_sample('%s').", e->name)));
}

// shared_create_from(name, reservoir): a new shared reservoir holding the
// value's items, seen, k and mode (and keys), recording its item type.
// item_size is the create default, or the longest item's size if larger.
SKETCH_FUNCTION(shared_reservoir_create_from) {
    char name[64];
    ss::checked_name(PG_GETARG_TEXT_PP(0), name);
    reservoir_pg::View value;
    reservoir_pg::view_of(PG_GETARG_DATUM(1), &value);
    const Oid type = value.elem.type;
    const Form form = form_of(type);
    auto* items = static_cast<ItemBytes*>(palloc(sizeof(ItemBytes) * (value.count + 1)));
    int64 item_size = kDefaultItemSize;
    for (int32 i = 0; i < value.count; ++i) {
        items[i] = item_bytes(value.items[i], type, form, uint32(sr::kMaxItemSize) + 1);
        item_size = Max(item_size, int64(items[i].len));
    }
    if (item_size > sr::kMaxItemSize)
        ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                        errmsg("a shared reservoir item holds at most %lld bytes; this reservoir has an item of %lld",
                               (long long)sr::kMaxItemSize, (long long)item_size)));
    const sr::Geometry g = sketch_pg::guarded(
        [&] { return sr::make_geometry(value.k, item_size, value.weighted, creation_seed()); });
    auto* payload = static_cast<uint8_t*>(
        MemoryContextAllocExtended(CurrentMemoryContext, sr::payload_bytes(g), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO));
    sr::View v(g, payload);
    for (int32 i = 0; i < value.count; ++i)
        v.load_item(uint64(i), reinterpret_cast<const uint8_t*>(items[i].data), items[i].len, items[i].flags,
                    value.weighted ? value.keys[i] : 0.0);
    v.load_done(uint64(value.seen), uint64(value.count));
    v.note_item_type(item_type_name(type));
    ss::create_object(name, sh::Kind::reservoir, reinterpret_cast<const uint8_t*>(&g), sizeof g, sr::payload_bytes(g),
                      payload);
    PG_RETURN_VOID();
}

// shared_reservoir_sample(name, NULL::type): the items as values of the
// type the object records, which the second argument names.
SKETCH_FUNCTION(shared_reservoir_sample_typed) {
    if (PG_ARGISNULL(0)) return return_set(fcinfo, nullptr, 0);  // as the STRICT forms: no rows
    ss::Entry* e = open_arg(fcinfo, ss::kRead);
    const Oid asked = get_fn_expr_argtype(fcinfo->flinfo, 1);
    if (!OidIsValid(asked))
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("could not determine the item type")));
    Copy c = read_state(e, true);
    check_item_type(e, c, asked);
    return return_set(fcinfo, items_as_type(c, asked), c.count);
}

// A reservoir value holding the object's items (as the recorded type; as
// text if it records none), seen and k, and for a weighted one the keys.
SKETCH_FUNCTION(shared_reservoir_snapshot) {
    ss::Entry* e = open_arg(fcinfo, ss::kRead);
    const sr::Geometry g = view_of(e).geometry();
    Copy c = read_state(e, true);
    const char* recorded = single_item_type(c);
    const Oid type = recorded == nullptr ? TEXTOID : sketch_pg::compat::type_by_name(recorded);
    Datum* items = recorded == nullptr ? items_as_text(c) : items_as_type(c, type);
    PG_RETURN_DATUM(reservoir_pg::flat_build(reservoir_pg::elem_for(type), g.weighted != 0, int32(g.k), int64(c.seen),
                                             int32(c.count), items, c.keys));
}

// shared_reservoir_merge(name, value): merges a reservoir value into the
// object exactly, as reservoir_union_agg merges two values: same mode, the
// object's item type (recorded by this merge if it records none yet), and a
// value k no smaller than the object's (a merge keeps the smaller k, and an
// object's k is fixed). Items longer than item_size are cut, as adds cut them.
SKETCH_FUNCTION(shared_reservoir_merge) {
    ss::Entry* e = ss::open_unless_null(fcinfo, kReservoir, ss::kWrite);
    if (e == nullptr) PG_RETURN_NULL();
    ss::check_mutable(e);
    sr::View v = view_of(e);
    const sr::Geometry& g = v.geometry();
    reservoir_pg::View value;
    reservoir_pg::view_of(PG_GETARG_DATUM(1), &value);
    if (value.weighted != (g.weighted != 0))
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("cannot merge a %s reservoir into shared reservoir \"%s\", which is %s",
                               value.weighted ? "weighted" : "uniform", e->name, g.weighted ? "weighted" : "uniform")));
    if (uint32(value.k) < g.k)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("cannot merge a reservoir of k = %d into shared reservoir \"%s\" of k = %u", value.k,
                               e->name, g.k),
                        errdetail("A merge keeps the smaller k, and a shared reservoir's k is fixed."),
                        errhint("Merge the values first, or create a shared reservoir of the smaller k with "
                                "shared_create_from.")));
    const Oid type = value.elem.type;
    const Form form = form_of(type);
    const char* type_name = item_type_name(type);
    auto* items = static_cast<sr::View::MergeItem*>(palloc(sizeof(sr::View::MergeItem) * (value.count + 1)));
    for (int32 i = 0; i < value.count; ++i) {
        const ItemBytes it = item_bytes(value.items[i], type, form, g.item_size);
        items[i] = {reinterpret_cast<const uint8_t*>(it.data), it.len, it.flags, value.weighted ? value.keys[i] : 0.0};
    }
    auto* take_a = static_cast<int32*>(palloc(sizeof(int32) * (g.k + 1)));
    auto* take_b = static_cast<int32*>(palloc(sizeof(int32) * (value.count + 1)));
    char recorded[sizeof(sr::Control::item_type)];
    Held h;
    lock_for_write(e, v, &h);
    memcpy(recorded, v.item_type(), sizeof recorded);
    const bool other_type = recorded[0] != 0 && recorded[0] != sr::kMixedItemTypes &&
                            strncmp(recorded, type_name, sizeof recorded) != 0;
    const char* failed = nullptr;
    if (!other_type) {
        if (value.count > 0) v.note_item_type(type_name);
        failed = v.merge(items, uint64(value.count), uint64(value.seen), take_a, take_b);
        sh::add_ops(e->map.header(), h.me, 1);
    }
    unlock_reservoir(e, v, h);
    recorded[sizeof recorded - 1] = 0;
    if (other_type)
        ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                        errmsg("cannot merge a reservoir of items of type %s into shared reservoir \"%s\", which "
                               "holds items of type %s",
                               type_name, e->name, recorded)));
    if (failed != nullptr)
        ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                        errmsg("cannot merge into shared reservoir \"%s\": %s", e->name, failed)));
    PG_RETURN_VOID();
}
