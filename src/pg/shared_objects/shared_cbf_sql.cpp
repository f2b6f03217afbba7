// Shared counting Bloom filters: the cbf core's raw-span operations run on
// the object's mapped counters.
//   add:                shared lock + the item's stripe + add_atomic (CAS per counter byte)
//   contains, count_of: no lock (atomic loads); frozen objects: plain reads
//   remove, clear, merge, snapshot: exclusive lock
// Items are hashed (which may raise an ERROR) before any lock is taken, and
// nothing between lock and unlock can raise one.
#include <cmath>
#include <cstring>

#include "cbf/cbf.hpp"
#include "cbf/cbf_layout.hpp"
#include "cbf/cbf_format.hpp"
#include "cbf/shared_cbf_format.hpp"
#include "array_items.hpp"
#include "guard.hpp"
#include "prefetch/prefetch.hpp"
#include "shared_objects/shared_capacity.hpp"
#include "shared_objects/shared_items.hpp"
#include "shared_objects/shared_registry.hpp"
#include "shared_objects/transactional_adds.hpp"

extern "C" {
#include "catalog/pg_type.h"
#include "utils/float.h"
#include "utils/jsonb.h"
}

namespace sh = sketch::shared;
namespace ss = sketch_pg::shared;
namespace cbf = sketch::cbf;
namespace scf = sketch::shared_cbf;

namespace {

constexpr uint32 kCbf = uint32(sh::Kind::cbf);
// Snapshots become `cbf` values, which stay below 2^29 counters (see cbf_sql.cpp).
constexpr uint64_t kValueMaxCounters = uint64_t(1) << 29;

// The stored geometry's format is the core's (cbf/shared_cbf_format.hpp).
using scf::from_blob;

void describe(const uint8_t* blob, uint32_t len, ss::GeometryInfo* out) {
    scf::Description d;
    if (!scf::describe(blob, len, &d)) return;
    out->capacity = int64(d.capacity);
    out->fpr = d.fpr;
    out->expansion = int32(d.expansion);
    out->layout = nullptr;
    out->m = int64(d.m);
    out->k = int32(d.k);
}

}  // namespace

void sketch_pg::shared::register_shared_cbf_kind() {
    ss::register_pg_kind(sh::Kind::cbf, scf::validate, describe);
}

namespace {

// The geometry validated when the file was mapped (sh::Mapping::fixed).
cbf::Geometry geometry(const ss::Entry* e) { return from_blob(e->map.fixed.geometry); }
sh::Series series_of(const ss::Entry* e) { return scf::series_of(e->map.fixed.geometry, e->map.fixed.geometry_len); }

ss::Entry* open_arg(FunctionCallInfo fcinfo, uint8 need) {
    return ss::open_cached(fcinfo, PG_GETARG_TEXT_PP(0), kCbf, need);
}

bool create_with(const char* name, const cbf::Geometry& g, uint32_t expansion, const uint8_t* counters,
                 bool if_not_exists = false) {
    const scf::StoredGeometry s = scf::to_stored(g, expansion);
    return ss::create_object(name, sh::Kind::cbf, reinterpret_cast<const uint8_t*>(&s), sizeof s, g.counter_bytes(),
                             counters, if_not_exists);
}

// The items' atomic adds, their counters loaded ahead. Returns the new ones.
int64 add_hashes_to(ss::Entry* e, const cbf::Geometry& g, const sketch::Hash128* hashes, int n) {
    uint8_t* counters = e->map.payload();
    return ss::add_hashes_shared(
        e, hashes, n, [&](const sketch::Hash128& x) { return cbf::add_atomic(g, counters, x); },
        [&](const sketch::Hash128& x) { cbf::prefetch(g, counters, x); });
}

// At commit, the transaction's adds (transactional_adds.hpp); each one took
// room.
uint64 apply_adds(ss::Entry* e, const sketch::Hash128* hashes, int n) {
    add_hashes_to(e, geometry(e), hashes, n);
    return uint64(n);
}

constexpr ss::AddOps kAddOps{apply_adds, series_of, true};

// Adds n items at once (not transactionally), room for each reserved first.
// Returns the ones that were new.
int64 add_now(ss::Entry* e, const cbf::Geometry& g, const sketch::Hash128* hashes, int n) {
    ss::reserve_room(e, series_of(e), uint64(n));
    return add_hashes_to(e, g, hashes, n);
}

bool add_in_transaction(ss::Entry* e, const cbf::Geometry& g, const sketch::Hash128& h) {
    const auto committed = [&](const sketch::Hash128& x) { return cbf::contains_atomic(g, e->map.payload(), x); };
    return ss::add_in_transaction(e, h, ss::lookup_of(committed), kAddOps);
}

}  // namespace

bool sketch_pg::shared_cbf_target(const char* name, int len, uint8 need, PrefetchTarget* t) {
    ss::Entry* e = ss::find_opened(name, len, kCbf, need);
    if (e == nullptr) return false;
    t->ops = nullptr;
    t->cbf = geometry(e);
    t->span.bits = e->map.payload();
    t->bytes = t->cbf.counter_bytes();
    t->seed = t->cbf.seed;
    t->object = e;
    return true;
}

// shared_cbf_create's arguments name, capacity, fpr and expansion (at
// expansion_arg) make an object; false when the name is taken and
// if_not_exists.
static bool create_from_args(FunctionCallInfo fcinfo, int expansion_arg, bool if_not_exists) {
    char name[64];
    ss::checked_name(PG_GETARG_TEXT_PP(0), name);
    const int64 capacity = PG_GETARG_INT64(1);
    const double fpr = PG_GETARG_FLOAT8(2);
    const int32 expansion = ss::expansion_arg(fcinfo, expansion_arg);
    cbf::Geometry g = sketch_pg::guarded([&] {
        sh::check_expansion(expansion);
        return cbf::geometry_for(capacity, fpr, cbf::kMaxCounters);
    });
    return create_with(name, g, uint32_t(expansion), nullptr, if_not_exists);
}

SKETCH_FUNCTION(shared_cbf_create) {
    create_from_args(fcinfo, 3, false);
    PG_RETURN_VOID();
}

// shared_cbf_create(name, capacity, fpr, if_not_exists [, expansion]): whether it created.
SKETCH_FUNCTION(shared_cbf_create_if_not_exists) { PG_RETURN_BOOL(create_from_args(fcinfo, 4, PG_GETARG_BOOL(3))); }

// Shared objects hold the classic layout only, for now: their adds are
// atomic per counter (cbf::add_atomic), which the block layout has no form of yet.
static void refuse_blocked(const cbf::Geometry& g, const char* what) {
    if (!g.blocked()) return;
    ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                    errmsg("cannot %s from a cbf of layout %s: shared counting Bloom filters have the classic layout only",
                           what, cbf::format_layout(cbf::layout_of(g)).c_str()),
                    errhint("Build the value with the classic layout (cbf_empty(capacity, fpr), cbf_agg(item, capacity, fpr)).")));
}

SKETCH_FUNCTION(shared_cbf_create_from) {
    char name[64];
    ss::checked_name(PG_GETARG_TEXT_PP(0), name);
    varlena* v = sketch_pg::detoast_large(PG_GETARG_DATUM(1));
    cbf::View view = sketch_pg::guarded([&] {
        return cbf::read_value(reinterpret_cast<uint8_t*>(VARDATA(v)), VARSIZE(v) - VARHDRSZ, kValueMaxCounters,
                               sketch::Errc::corrupted);
    });
    refuse_blocked(view.g, "create a shared object");
    create_with(name, view.g, sh::kDefaultExpansion, view.counters);
    ss::record_object_items(ss::open_object(name, kCbf, ss::kWrite), view.item, "create a shared object");
    PG_RETURN_VOID();
}

SKETCH_FUNCTION(shared_cbf_add) {
    ss::Entry* e = ss::open_unless_null(fcinfo, kCbf, ss::kWrite);
    if (e == nullptr) PG_RETURN_NULL();
    ss::check_mutable(e);
    ss::check_object_items(fcinfo, e, 1, sketch_pg::ItemUse::add, false, "shared_cbf_add_many");
    const cbf::Geometry g = geometry(e);
    const sketch::Hash128 h = ss::hash_arg(fcinfo, 1, g.seed);
    cbf::prefetch(g, e->map.payload(), h);  // the misses overlap the lock acquisition
    if (ss::transactional_arg(fcinfo, 2)) PG_RETURN_BOOL(add_in_transaction(e, g, h));
    PG_RETURN_BOOL(add_now(e, g, &h, 1) != 0);
}

SKETCH_FUNCTION(shared_cbf_add_many) {
    ss::Entry* e = ss::open_unless_null(fcinfo, kCbf, ss::kWrite);
    if (e == nullptr) PG_RETURN_NULL();
    ss::check_mutable(e);
    ss::check_object_items(fcinfo, e, 1, sketch_pg::ItemUse::add, true, nullptr);
    const cbf::Geometry g = geometry(e);
    int count;
    const sketch::Hash128* hashes = ss::hash_array_arg(fcinfo, 1, g.seed, &count);
    int64 fresh = 0;
    if (ss::transactional_arg(fcinfo, 2)) {
        for (int i = 0; i < count; ++i) fresh += add_in_transaction(e, g, hashes[i]);
        PG_RETURN_INT64(fresh);
    }
    // one lock acquisition for the whole batch
    PG_RETURN_INT64(add_now(e, g, hashes, count));
}

SKETCH_FUNCTION(shared_cbf_contains) {
    ss::Entry* e = ss::open_unless_null(fcinfo, kCbf, ss::kRead);
    if (e == nullptr) PG_RETURN_NULL();
    ss::check_object_items(fcinfo, e, 1, sketch_pg::ItemUse::lookup, false, "shared_cbf_contains_many");
    const cbf::Geometry g = geometry(e);
    const sketch::Hash128 h = ss::hash_arg(fcinfo, 1, g.seed);
    if (ss::is_frozen(e)) PG_RETURN_BOOL(cbf::contains(g, e->map.payload(), h));
    PG_RETURN_BOOL(cbf::contains_atomic(g, e->map.payload(), h) || ss::pending_in_transaction(e, h));
}

// shared_cbf_contains_many(name, items): shared_cbf_contains of each element.
SKETCH_FUNCTION(shared_cbf_contains_many) {
    ss::Entry* e = ss::open_unless_null(fcinfo, kCbf, ss::kRead);
    if (e == nullptr) PG_RETURN_NULL();
    ss::check_object_items(fcinfo, e, 1, sketch_pg::ItemUse::lookup, true, nullptr);
    const cbf::Geometry g = geometry(e);
    ArrayType* items = PG_GETARG_ARRAYTYPE_P(1);
    const sketch_pg::ItemHasher* hasher = ss::cached_hasher_for_elements(fcinfo, items);
    const bool frozen = ss::is_frozen(e);
    PG_RETURN_ARRAYTYPE_P(sketch_pg::answers_for(items, [&](Datum item) {
        const sketch::Hash128 h = sketch_pg::hash_item(hasher, item, g.seed);
        if (frozen) return cbf::contains(g, e->map.payload(), h);
        return cbf::contains_atomic(g, e->map.payload(), h) || ss::pending_in_transaction(e, h);
    }));
}

SKETCH_FUNCTION(shared_cbf_count_of) {
    ss::Entry* e = ss::open_unless_null(fcinfo, kCbf, ss::kRead);
    if (e == nullptr) PG_RETURN_NULL();
    ss::check_object_items(fcinfo, e, 1, sketch_pg::ItemUse::lookup, false, nullptr);
    const cbf::Geometry g = geometry(e);
    const sketch::Hash128 h = ss::hash_arg(fcinfo, 1, g.seed);
    if (ss::is_frozen(e)) PG_RETURN_INT32(int32(cbf::count_of(g, e->map.payload(), h)));
    PG_RETURN_INT32(int32(cbf::count_of_atomic(g, e->map.payload(), h)));
}

SKETCH_FUNCTION(shared_cbf_remove) {
    ss::Entry* e = ss::open_unless_null(fcinfo, kCbf, ss::kWrite);
    if (e == nullptr) PG_RETURN_NULL();
    ss::check_mutable(e);
    ss::check_object_items(fcinfo, e, 1, sketch_pg::ItemUse::lookup, false, nullptr);
    const cbf::Geometry g = geometry(e);
    const sketch::Hash128 h = ss::hash_arg(fcinfo, 1, g.seed);
    bool removed = false;
    ss::change_exclusive(e, [&] {
        removed = cbf::remove(g, e->map.payload(), h);
        if (removed) sh::release_items(e->map.header(), 1);
    });
    PG_RETURN_BOOL(removed);
}

SKETCH_FUNCTION(shared_cbf_clear) {
    ss::Entry* e = open_arg(fcinfo, ss::kWrite);
    ss::check_mutable(e);
    const cbf::Geometry g = geometry(e);
    ss::change_exclusive(e, [&] {
        cbf::clear(g, e->map.payload());
        sh::clear_items(e->map.header());
    });
    PG_RETURN_VOID();
}

SKETCH_FUNCTION(shared_cbf_merge) {
    ss::Entry* e = ss::open_unless_null(fcinfo, kCbf, ss::kWrite);
    if (e == nullptr) PG_RETURN_NULL();
    ss::check_mutable(e);
    const cbf::Geometry g = geometry(e);
    varlena* v = sketch_pg::detoast_large(PG_GETARG_DATUM(1));
    cbf::View other = sketch_pg::guarded([&] {
        return cbf::read_value(reinterpret_cast<uint8_t*>(VARDATA(v)), VARSIZE(v) - VARHDRSZ, kValueMaxCounters,
                               sketch::Errc::corrupted);
    });
    refuse_blocked(other.g, "merge into a shared object");
    if (!g.compatible(other.g) && g.m == other.g.m && g.k == other.g.k)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("cannot merge a cbf of hash seed %llu into shared object \"%s\" (hash seed %llu)",
                               (unsigned long long)other.g.seed, e->name, (unsigned long long)g.seed),
                        errhint("Both must have the same hash seed.")));
    if (!g.compatible(other.g))
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("cannot merge a cbf of %llu counters and %u hashes into shared object \"%s\" "
                               "(%llu counters, %u hashes)",
                               (unsigned long long)other.g.m, other.g.k, e->name, (unsigned long long)g.m, g.k),
                        errhint("Both must be created with the same capacity and fpr.")));
    ss::record_object_items(e, other.item, psprintf("merge a counting Bloom filter into shared object \"%s\"", e->name));
    ss::change_exclusive(e, [&] { cbf::merge(g, e->map.payload(), other.counters); });
    PG_RETURN_VOID();
}

SKETCH_FUNCTION(shared_cbf_count) {
    ss::Entry* e = open_arg(fcinfo, ss::kRead);
    const cbf::Geometry g = geometry(e);
    const uint64_t set = cbf::counters_set(g, e->map.payload());
    PG_RETURN_INT64(int64(std::llround(cbf::estimate_count(g, set))));
}

SKETCH_FUNCTION(shared_cbf_snapshot) {
    ss::Entry* e = open_arg(fcinfo, ss::kRead);
    const cbf::Geometry g = geometry(e);
    if (g.m > kValueMaxCounters)
        ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                        errmsg("shared object \"%s\" has %llu counters; a cbf value holds at most %llu", e->name,
                               (unsigned long long)g.m, (unsigned long long)kValueMaxCounters)));
    const size_t len = VARHDRSZ + cbf::value_bytes(g);
    auto* out = static_cast<varlena*>(sketch_pg::palloc_large(len));  // before the lock: palloc may raise
    SET_VARSIZE(out, len);
    auto* bytes = reinterpret_cast<uint8_t*>(VARDATA(out));
    cbf::write_header(bytes, g, ss::object_items(e));
    ss::read_exclusive(e, [&] { memcpy(bytes + cbf::kHeaderBytes, e->map.payload(), g.counter_bytes()); });
    PG_RETURN_POINTER(out);
}

SKETCH_FUNCTION(shared_cbf_stats) {
    ss::Entry* e = open_arg(fcinfo, ss::kRead);
    const cbf::Geometry g = geometry(e);
    const uint64_t set = cbf::counters_set(g, e->map.payload());
    const uint64_t saturated = cbf::counters_saturated(g, e->map.payload());
    const double estimate = cbf::estimate_count(g, set);
    char* fpr = float8out_internal(g.fpr);
    char* fill = float8out_internal(double(set) / double(g.m));
    char* estimated_fpr = float8out_internal(cbf::fill_fpr(g, e->map.payload(), set));
    char* json = psprintf(
        "{\"capacity\": %llu, \"fp_rate\": %s, \"counters\": %llu, \"hashes\": %u, \"counters_set\": %llu, "
        "\"count\": %lld, \"fill_ratio\": %s, \"saturated\": %llu, \"ops\": %llu, \"bytes\": %llu, "
        "\"mmap_size\": %llu, \"frozen\": %s, \"readonly\": %s, \"lock_recoveries\": %u, \"expansion\": %u, "
        "\"items_held\": %llu, \"estimated_fpr\": %s}",
        (unsigned long long)g.capacity, fpr, (unsigned long long)g.m, g.k, (unsigned long long)set,
        (long long)std::llround(estimate), fill, (unsigned long long)saturated,
        (unsigned long long)sh::load_ops(e->map.header()), (unsigned long long)e->map.size,
        (unsigned long long)e->map.size, ss::is_frozen(e) ? "true" : "false", e->readonly ? "true" : "false",
        e->map.lock().recoveries(), series_of(e).expansion, (unsigned long long)ss::held_items(e),
        estimated_fpr);
    PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(json)));
}

// The lookups here that the prefetching scan serves (prefetch/prefetch.hpp).
namespace sketch_pg {
void register_shared_cbf_prefetchables() {
    register_prefetchable("shared_cbf_add", PrefetchKind::shared_cbf, shared::kWrite);
    register_prefetchable("shared_cbf_contains", PrefetchKind::shared_cbf, shared::kRead);
    register_prefetchable("shared_cbf_count_of", PrefetchKind::shared_cbf, shared::kRead);
}
}  // namespace sketch_pg
