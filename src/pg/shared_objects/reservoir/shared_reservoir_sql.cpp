// Shared reservoirs: a reservoir sample kept in a shared object's file
// (src/core/shared_reservoir.hpp has the layout and the crash-safe add).
//   every call on a mutable object: the object's rwlock shared, then the
//   reservoir's own mutex (a PID-encoded spin word in the payload, held for
//   one add, one batch or one copy); the RNG advances under the mutex.
//   freeze takes the rwlock exclusively and so waits for all of them.
//   Frozen objects: no lock at all.
// (shared_reservoir_values.cpp has the functions between objects and values,
// shared_reservoir_items.cpp the items' stored bytes.)
// Items are turned into bytes (text form, or bytea's bytes) and weights are
// checked before any lock is taken; nothing between lock and unlock raises.
#include <cmath>
#include <cstring>

#include "reservoir/reservoir.hpp"
#include "reservoir/shared_reservoir.hpp"
#include "guard.hpp"
#include "jsonb_object.hpp"
#include "shared_objects/registry/shared_registry.hpp"
#include "shared_objects/reservoir/shared_reservoir_internal.hpp"
#include "types/reservoir_value.hpp"

extern "C" {
#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "parser/parse_type.h"
#include "utils/array.h"
#include "utils/float.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"
}

namespace sh = sketch::shared;
namespace ss = sketch_pg::shared;
namespace sr = sketch::shared_reservoir;

namespace {

sr::Geometry from_blob(const uint8_t* blob) {
    sr::Geometry g;
    memcpy(&g, blob, sizeof g);
    return g;
}

void validate(const char* label, const uint8_t* blob, uint32_t len, uint64_t payload_bytes) {
    if (len != sizeof(sr::Geometry))
        sketch::fail(sketch::Errc::corrupted, "shared object \"%s\": reservoir geometry has %u bytes", label, len);
    sr::check_geometry(label, from_blob(blob), payload_bytes);
}

// shared_objects: capacity = k, no fpr, layout = uniform | weighted,
// m = item_size, k = k.
void describe(const uint8_t* blob, uint32_t len, ss::GeometryInfo* out) {
    if (len != sizeof(sr::Geometry)) return;
    sr::Geometry g = from_blob(blob);
    out->capacity = int64(g.k);
    out->fpr = std::nan("");
    strlcpy(out->layout, g.weighted ? "weighted" : "uniform", sizeof out->layout);
    out->m = int64(g.item_size);
    out->k = int32(g.k);
}

}  // namespace

void sketch_pg::shared::register_shared_reservoir_kind() {
    ss::register_pg_kind(sh::Kind::reservoir, validate, describe, sr::reset_lock_words);
}

namespace sketch_pg::shared_reservoir {

// On the geometry validated when the file was mapped (sh::Mapping::fixed).
sr::View view_of(const ss::Entry* e) { return sr::View(from_blob(e->map.fixed.geometry), e->map.payload()); }

ss::Entry* open_arg(FunctionCallInfo fcinfo, uint8 need) {
    return ss::open_cached(fcinfo, PG_GETARG_TEXT_PP(0), kReservoir, need);
}

// ---- items as bytes ----

// The item type as the object records it: its schema-qualified name, which
// means the same type after a dump and restore (an OID would not).
const char* item_type_name(Oid typid) { return format_type_extended(typid, -1, FORMAT_TYPE_FORCE_QUALIFY); }

// item_type_name for the per-row add: looked up once per statement (a check
// round), not per row; a type renamed meanwhile is recorded by its new name
// from the next statement on.
static const char* statement_item_type_name(Oid typid) {
    static Oid type = InvalidOid;
    static uint64 round = 0;
    static char* name = nullptr;  // TopMemoryContext
    const uint64 now = ss::current_round();
    if (typid != type || now != round || name == nullptr) {
        char* fresh = MemoryContextStrdup(TopMemoryContext, item_type_name(typid));
        if (name != nullptr) pfree(name);
        name = fresh;
        type = typid;
        round = now;
    }
    return name;
}

static void check_weight(double w) {
    if (!sketch::reservoir::weight_ok(w)) sketch_pg::guarded([&] { sketch::reservoir::check_weight(w); });
}

static void check_weighting(const ss::Entry* e, bool weighted_call) {
    const bool weighted = view_of(e).geometry().weighted != 0;
    if (weighted && !weighted_call)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("shared reservoir \"%s\" is weighted: every item needs a weight", e->name),
                        errhint("Call shared_reservoir_add('%s', item, weight).", e->name)));
    if (!weighted && weighted_call)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("shared reservoir \"%s\" is uniform: it takes no weights", e->name),
                        errhint("Create it with weighted => true for weighted sampling.")));
}

// The rwlock shared, then the reservoir's mutex. A backend that cannot get
// the mutex soon lets go of the rwlock, checks for interrupts (so a wait
// stays cancellable) and tries again. Nothing between lock and unlock may
// raise an ERROR.
static void lock_reservoir(ss::Entry* e, const sr::View& v, Held* h, bool for_write) {
    h->me = ss::lock_owner_id();
    for (;;) {
        if (for_write)
            ss::lock_shared_to_change(e, &h->ticket);
        else
            ss::lock_shared(e, &h->ticket);
        if (sketch::try_lock_word(v.mutex(), h->me, ss::kLockWordSpins)) return;
        ss::back_off(e, h->ticket);
    }
}

void unlock_reservoir(ss::Entry* e, const sr::View& v, const Held& h) {
    sketch::unlock_word(v.mutex(), h.me);
    ss::unlock_shared(e, h.ticket);
}

// Refuses a reservoir whose state is damaged (XX001) before anything reads
// or writes through it: in full at this backend's first use of the file,
// the fields that address memory at every use (View::damage). Called with
// the mutex held (h, let go before the error) or on a frozen object (h null).
static void check_state(ss::Entry* e, const sr::View& v, const Held* h) {
    const char* bad = v.damage(!e->payload_checked);
    if (bad == nullptr) {
        e->payload_checked = true;
        return;
    }
    if (h != nullptr) unlock_reservoir(e, v, *h);
    ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED), errmsg("shared reservoir \"%s\" is damaged: %s", e->name, bad),
                    errhint("Drop it with shared_drop('%s') and create it again, or attach an exported copy.",
                            e->name)));
}

// Locks a mutable object (refusing a frozen one), checks its state and
// replays a crashed writer's journal.
void lock_for_write(ss::Entry* e, sr::View& v, Held* h) {
    lock_reservoir(e, v, h, true);
    check_state(e, v, h);
    v.recover();
}

static Datum add_one(FunctionCallInfo fcinfo, bool weighted_call) {
    ss::Entry* e = ss::open_unless_null(fcinfo, kReservoir, ss::kWrite);
    if (e == nullptr) PG_RETURN_NULL();
    ss::check_mutable(e);
    check_weighting(e, weighted_call);
    sr::View v = view_of(e);
    const Oid typid = get_fn_expr_argtype(fcinfo->flinfo, 1);
    const double w = weighted_call ? PG_GETARG_FLOAT8(2) : 1.0;
    if (weighted_call) check_weight(w);
    ItemBytes it = item_bytes(PG_GETARG_DATUM(1), typid, form_of(typid), v.geometry().item_size);
    const char* type_name = statement_item_type_name(typid);
    Held h;
    lock_for_write(e, v, &h);
    v.note_item_type(type_name);
    const bool stored = v.add(reinterpret_cast<const uint8_t*>(it.data), it.len, it.flags, w);
    sh::add_ops(e->map.header(), h.me, 1);
    unlock_reservoir(e, v, h);
    PG_RETURN_BOOL(stored);
}

Copy read_state(ss::Entry* e, bool with_items) {
    sr::View v = view_of(e);
    Copy c{};
    c.stride = v.geometry().stride;
    const bool frozen = ss::is_frozen(e);
    uint64 room = with_items ? Min(v.state().count, uint64(v.geometry().k)) : 0;  // a first guess, unlocked
    for (;;) {
        if (with_items) {
            c.slots = static_cast<char*>(MemoryContextAllocExtended(CurrentMemoryContext, Max(room, 1) * c.stride,
                                                                    MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM));
            if (c.slots != nullptr && v.geometry().weighted)
                c.keys = static_cast<double*>(MemoryContextAllocExtended(
                    CurrentMemoryContext, Max(room, 1) * sizeof(double), MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM));
            if (c.slots == nullptr || (v.geometry().weighted && c.keys == nullptr))
                ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory"),
                                errdetail("Copying %llu items of shared reservoir \"%s\".", (unsigned long long)room,
                                          e->name)));
        }
        Held h;
        if (!frozen) lock_reservoir(e, v, &h, false);
        check_state(e, v, frozen ? nullptr : &h);
        const sr::View::State s = v.state();
        bool fits = !with_items || s.count <= room;
        if (fits) {
            c.seen = s.seen;
            c.count = s.count;
            c.stored = s.stored;
            memcpy(c.item_type, v.item_type(), sizeof c.item_type);
            c.item_type[sizeof c.item_type - 1] = 0;
            for (uint64 i = 0; with_items && i < s.count; ++i) {
                const uint8_t* slot = v.slot_in(s, i);
                uint32 len;
                memcpy(&len, slot, 4);
                if (len > v.geometry().item_size) len = v.geometry().item_size;
                memcpy(c.slots + i * c.stride, slot, 8 + size_t(len));
                if (c.keys != nullptr)
                    c.keys[i] = int64(i) == s.overlay ? v.control()->journal.key : v.keys()[i];
            }
        }
        if (!frozen) unlock_reservoir(e, v, h);
        if (fits) return c;
        pfree(c.slots);
        if (c.keys != nullptr) pfree(c.keys);
        room = s.count;
    }
}

Slot slot_of(const Copy& c, uint64 i) {
    Slot sl;
    const char* slot = c.slots + i * c.stride;
    memcpy(&sl.len, slot, 4);
    memcpy(&sl.flags, slot + 4, 4);
    sl.data = slot + 8;
    return sl;
}

static varlena* varlena_of(const Slot& sl) {
    auto* t = static_cast<varlena*>(palloc(VARHDRSZ + sl.len));
    SET_VARSIZE(t, VARHDRSZ + sl.len);
    memcpy(VARDATA(t), sl.data, sl.len);
    return t;
}

// An item's text form: text items as stored, bytea items through byteaout.
char* item_cstring(const Slot& sl) {
    if (!(sl.flags & sr::kBinary)) return pnstrdup(sl.data, sl.len);
    return DatumGetCString(DirectFunctionCall1(byteaout, PointerGetDatum(varlena_of(sl))));
}

// The items of a copy as text values (bytea items in their text form).
Datum* items_as_text(const Copy& c) {
    auto* items = static_cast<Datum*>(palloc(sizeof(Datum) * (c.count + 1)));
    for (uint64 i = 0; i < c.count; ++i) {
        const Slot sl = slot_of(c, i);
        items[i] = sl.flags & sr::kBinary ? CStringGetTextDatum(item_cstring(sl)) : PointerGetDatum(varlena_of(sl));
    }
    return items;
}

// The items of a copy as bytea values (their stored bytes).
static Datum* items_as_bytea(const Copy& c) {
    auto* items = static_cast<Datum*>(palloc(sizeof(Datum) * (c.count + 1)));
    for (uint64 i = 0; i < c.count; ++i) items[i] = PointerGetDatum(varlena_of(slot_of(c, i)));
    return items;
}

Datum return_set(FunctionCallInfo fcinfo, const Datum* items, uint64 count) {
    InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
    auto* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
    for (uint64 i = 0; i < count; ++i) {
        bool isnull = false;
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, const_cast<Datum*>(&items[i]), &isnull);
    }
    return (Datum)0;
}

// The weights of add_many, one per item (same positions), each checked
// where its item is not NULL; all of them before the first item is offered.
static float8* checked_weights(ArrayType* wa, ArrayType* items, int n) {
    Datum* wv;
    bool* wn;
    int nw;
    deconstruct_array(wa, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &wv, &wn, &nw);
    if (nw != n)
        ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
                        errmsg("shared_reservoir_add_many needs one weight per item: %d items, %d weights", n, nw)));
    auto* weights = static_cast<float8*>(palloc(sizeof(float8) * (n > 0 ? n : 1)));
    const bits8* item_nulls = ARR_NULLBITMAP(items);
    for (int i = 0; i < n; ++i) {
        if (item_nulls != nullptr && !(item_nulls[i / 8] & (1 << (i % 8)))) continue;
        if (wn[i])
            ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("the weight of item %d is NULL", i + 1)));
        weights[i] = DatumGetFloat8(wv[i]);
        check_weight(weights[i]);
    }
    return weights;
}

// The seed a new object's RNG starts from until shared_reservoir_seed.
uint64 creation_seed() {
    uint64 seed = 0;
    if (!pg_strong_random(&seed, sizeof seed)) elog(ERROR, "could not generate a random seed");
    return seed;
}

// add_many converts and offers its items in chunks of this many, each chunk
// converted before the locks are taken: memory stays bounded whatever the
// array's size (converting a whole large array at once would fault in fresh
// pages for all of it), and a cancel is seen between chunks.
constexpr int kAddChunk = 1024;

}  // namespace sketch_pg::shared_reservoir

using namespace sketch_pg::shared_reservoir;

// shared_reservoir_create's arguments name, k, item_size and weighted (from
// argument `rest`) make an object; false when the name is taken and
// if_not_exists.
static bool create_from_args(FunctionCallInfo fcinfo, int rest, bool if_not_exists) {
    char name[64];
    ss::checked_name(PG_GETARG_TEXT_PP(0), name);
    const int32 k = PG_GETARG_INT32(1);
    const int32 item_size = PG_GETARG_INT32(rest);
    const bool weighted = PG_GETARG_BOOL(rest + 1);
    sr::Geometry g = sketch_pg::guarded([&] { return sr::make_geometry(k, item_size, weighted, creation_seed()); });
    return ss::create_object(name, sh::Kind::reservoir, reinterpret_cast<const uint8_t*>(&g), sizeof g,
                             sr::payload_bytes(g), nullptr, if_not_exists);
}

SKETCH_FUNCTION(shared_reservoir_create) {
    create_from_args(fcinfo, 2, false);
    PG_RETURN_VOID();
}

// shared_reservoir_create(name, k, item_size, weighted, if_not_exists):
// whether it created.
SKETCH_FUNCTION(shared_reservoir_create_if_not_exists) { PG_RETURN_BOOL(create_from_args(fcinfo, 2, PG_GETARG_BOOL(4))); }

SKETCH_FUNCTION(shared_reservoir_add) { return add_one(fcinfo, false); }

SKETCH_FUNCTION(shared_reservoir_add_weighted) { return add_one(fcinfo, true); }

// add_many(name, items [, weights]): NULL items are skipped (with their
// weights); every weight of a non-null item must be valid. Returns how many
// were stored.
SKETCH_FUNCTION(shared_reservoir_add_many) {
    const bool weighted_call = PG_NARGS() > 2;
    ss::Entry* e = ss::open_unless_null(fcinfo, kReservoir, ss::kWrite);
    if (e == nullptr) PG_RETURN_NULL();
    ss::check_mutable(e);
    check_weighting(e, weighted_call);
    sr::View v = view_of(e);
    ArrayType* items = PG_GETARG_ARRAYTYPE_P(1);
    const int n = ArrayGetNItems(ARR_NDIM(items), ARR_DIMS(items));
    const float8* weights = weighted_call ? checked_weights(PG_GETARG_ARRAYTYPE_P(2), items, n) : nullptr;
    const Oid elem = ARR_ELEMTYPE(items);
    const Form form = form_of(elem);
    const char* type_name = item_type_name(elem);
    const uint32 item_size = v.geometry().item_size;
    MemoryContext chunk_cxt = AllocSetContextCreate(CurrentMemoryContext, "shared_reservoir_add_many", ALLOCSET_DEFAULT_SIZES);
    ArrayIterator it = array_create_iterator(items, 0, nullptr);
    ItemBytes list[kAddChunk];
    float8 lw[kAddChunk];
    int64 stored = 0;
    bool counted = false;
    for (int i = 0; i < n;) {
        const MemoryContext caller = MemoryContextSwitchTo(chunk_cxt);
        int count = 0;
        for (; count < kAddChunk && i < n; ++i) {
            Datum value;
            bool isnull;
            array_iterate(it, &value, &isnull);
            if (isnull) continue;
            list[count] = item_bytes(value, elem, form, item_size);
            lw[count++] = weighted_call ? weights[i] : 1.0;
        }
        MemoryContextSwitchTo(caller);
        if (count > 0) {
            Held h;
            lock_for_write(e, v, &h);
            v.note_item_type(type_name);
            for (int j = 0; j < count; ++j)
                stored += v.add(reinterpret_cast<const uint8_t*>(list[j].data), list[j].len, list[j].flags, lw[j]);
            if (!counted) sh::add_ops(e->map.header(), h.me, 1);
            counted = true;
            unlock_reservoir(e, v, h);
        }
        MemoryContextReset(chunk_cxt);
        CHECK_FOR_INTERRUPTS();
    }
    array_free_iterator(it);
    MemoryContextDelete(chunk_cxt);
    PG_RETURN_INT64(stored);
}

SKETCH_FUNCTION(shared_reservoir_sample) {
    Copy c = read_state(open_arg(fcinfo, ss::kRead), true);
    return return_set(fcinfo, items_as_text(c), c.count);
}

SKETCH_FUNCTION(shared_reservoir_sample_bytea) {
    Copy c = read_state(open_arg(fcinfo, ss::kRead), true);
    return return_set(fcinfo, items_as_bytea(c), c.count);
}

SKETCH_FUNCTION(shared_reservoir_seen) {
    ss::Entry* e = open_arg(fcinfo, ss::kRead);
    PG_RETURN_INT64(int64(read_state(e, false).seen));
}

SKETCH_FUNCTION(shared_reservoir_count) {
    ss::Entry* e = open_arg(fcinfo, ss::kRead);
    PG_RETURN_INT64(int64(read_state(e, false).count));
}

SKETCH_FUNCTION(shared_reservoir_seed) {
    ss::Entry* e = ss::open_unless_null(fcinfo, kReservoir, ss::kWrite);
    if (e == nullptr) PG_RETURN_NULL();
    ss::check_mutable(e);
    sr::View v = view_of(e);
    const uint64 seed = uint64(PG_GETARG_INT64(1));
    Held h;
    lock_for_write(e, v, &h);
    v.seed(seed);
    unlock_reservoir(e, v, h);
    PG_RETURN_VOID();
}

SKETCH_FUNCTION(shared_reservoir_clear) {
    ss::Entry* e = open_arg(fcinfo, ss::kWrite);
    ss::check_mutable(e);
    sr::View v = view_of(e);
    Held h;
    lock_for_write(e, v, &h);
    v.clear();
    sh::add_ops(e->map.header(), h.me, 1);
    unlock_reservoir(e, v, h);
    PG_RETURN_VOID();
}

SKETCH_FUNCTION(shared_reservoir_stats) {
    ss::Entry* e = open_arg(fcinfo, ss::kRead);
    sr::View v = view_of(e);
    const sr::Geometry& g = v.geometry();
    Copy c = read_state(e, false);
    const uint64 replays = __atomic_load_n(&v.control()->recoveries, __ATOMIC_RELAXED);
    sketch_pg::JsonbObject json;
    json.number("k", uint32(g.k));
    json.number("item_size", uint32(g.item_size));
    json.boolean("weighted", g.weighted);
    json.number("count", uint64(c.count));
    json.number("seen", uint64(c.seen));
    json.number("stored", uint64(c.stored));
    json.number("journal_replays", uint64(replays));
    ss::add_file_stats(e, &json);
    PG_RETURN_DATUM(json.finish());
}
