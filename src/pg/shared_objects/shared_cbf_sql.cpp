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
#include "cbf/cbf_format.hpp"
#include "guard.hpp"
#include "prefetch/prefetch.hpp"
#include "shared_objects/shared_registry.hpp"

extern "C" {
#include "catalog/pg_type.h"
#include "utils/float.h"
#include "utils/jsonb.h"
}

namespace sh = sketch::shared;
namespace ss = sketch_pg::shared;
namespace cbf = sketch::cbf;

namespace {

constexpr uint32 kCbf = uint32(sh::Kind::cbf);
// Snapshots become `cbf` values, which stay below 2^29 counters (see cbf_sql.cpp).
constexpr uint64_t kValueMaxCounters = uint64_t(1) << 29;

// The geometry as stored in the file header.
struct StoredGeometry {
    uint32_t k;
    uint8_t scheme;
    uint8_t pad[3];
    uint64_t m;
    uint64_t capacity;
    double fpr;
    uint64_t seed;
};

StoredGeometry to_stored(const cbf::Geometry& g) {
    StoredGeometry s{};
    s.k = g.k;
    s.scheme = g.scheme;
    s.m = g.m;
    s.capacity = g.capacity;
    s.fpr = g.fpr;
    s.seed = g.seed;
    return s;
}

cbf::Geometry from_blob(const uint8_t* blob) {
    StoredGeometry s;
    memcpy(&s, blob, sizeof s);
    cbf::Geometry g;
    g.k = s.k;
    g.scheme = s.scheme;
    g.m = s.m;
    g.capacity = s.capacity;
    g.fpr = s.fpr;
    g.seed = s.seed;
    return g;
}

void validate(const char* label, const uint8_t* blob, uint32_t len, uint64_t payload_bytes) {
    if (len != sizeof(StoredGeometry))
        sketch::fail(sketch::Errc::corrupted, "shared object \"%s\": counting filter geometry has %u bytes", label,
                     len);
    cbf::Geometry g = from_blob(blob);
    sh::naming(label, [&] { cbf::check_geometry(g, cbf::kMaxCounters, sketch::Errc::corrupted); });
    if (g.counter_bytes() != payload_bytes)
        sketch::fail(sketch::Errc::corrupted, "shared object \"%s\": %llu counters need %zu bytes, the file has %llu",
                     label, (unsigned long long)g.m, g.counter_bytes(), (unsigned long long)payload_bytes);
}

void describe(const uint8_t* blob, uint32_t, ss::GeometryInfo* out) {
    cbf::Geometry g = from_blob(blob);
    out->capacity = int64(g.capacity);
    out->fpr = g.fpr;
    out->layout = nullptr;
    out->m = int64(g.m);
    out->k = int32(g.k);
}

[[maybe_unused]] const bool registered = (ss::register_pg_kind(sh::Kind::cbf, validate, describe), true);

// The geometry validated when the file was mapped (sh::Mapping::fixed).
cbf::Geometry geometry(const ss::Entry* e) { return from_blob(e->map.fixed.geometry); }

ss::Entry* open_arg(FunctionCallInfo fcinfo, uint8 need) {
    return ss::open_cached(fcinfo, PG_GETARG_TEXT_PP(0), kCbf, need);
}

void create_with(const char* name, const cbf::Geometry& g, const uint8_t* counters) {
    StoredGeometry s = to_stored(g);
    ss::create_object(name, sh::Kind::cbf, reinterpret_cast<const uint8_t*>(&s), sizeof s, g.counter_bytes(),
                      counters);
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
    return true;
}

SKETCH_FUNCTION(shared_cbf_create) {
    char name[64];
    ss::checked_name(PG_GETARG_TEXT_PP(0), name);
    const int64 capacity = PG_GETARG_INT64(1);
    const double fpr = PG_GETARG_FLOAT8(2);
    cbf::Geometry g = sketch_pg::guarded([&] { return cbf::geometry_for(capacity, fpr, cbf::kMaxCounters); });
    create_with(name, g, nullptr);
    PG_RETURN_VOID();
}

SKETCH_FUNCTION(shared_cbf_create_from) {
    char name[64];
    ss::checked_name(PG_GETARG_TEXT_PP(0), name);
    varlena* v = sketch_pg::detoast_large(PG_GETARG_DATUM(1));
    cbf::View view = sketch_pg::guarded([&] {
        return cbf::read_value(reinterpret_cast<uint8_t*>(VARDATA(v)), VARSIZE(v) - VARHDRSZ, kValueMaxCounters,
                               sketch::Errc::corrupted);
    });
    create_with(name, view.g, view.counters);
    PG_RETURN_VOID();
}

SKETCH_FUNCTION(shared_cbf_add) {
    ss::Entry* e = ss::open_unless_null(fcinfo, kCbf, ss::kWrite);
    if (e == nullptr) PG_RETURN_NULL();
    ss::check_mutable(e);
    const cbf::Geometry g = geometry(e);
    const sketch::Hash128 h = ss::hash_arg(fcinfo, 1, g.seed);
    cbf::prefetch(g, e->map.payload(), h);  // the misses overlap the lock acquisition
    const bool fresh = ss::add_hashes_shared(e, &h, 1, [&](const sketch::Hash128& x) {
        return cbf::add_atomic(g, e->map.payload(), x);
    }) != 0;
    PG_RETURN_BOOL(fresh);
}

SKETCH_FUNCTION(shared_cbf_add_many) {
    ss::Entry* e = ss::open_unless_null(fcinfo, kCbf, ss::kWrite);
    if (e == nullptr) PG_RETURN_NULL();
    ss::check_mutable(e);
    const cbf::Geometry g = geometry(e);
    int count;
    const sketch::Hash128* hashes = ss::hash_array_arg(fcinfo, 1, g.seed, &count);
    // one lock acquisition for the whole batch
    const int64 fresh = ss::add_hashes_shared(e, hashes, count, [&](const sketch::Hash128& x) {
        return cbf::add_atomic(g, e->map.payload(), x);
    });
    PG_RETURN_INT64(fresh);
}

SKETCH_FUNCTION(shared_cbf_contains) {
    ss::Entry* e = ss::open_unless_null(fcinfo, kCbf, ss::kRead);
    if (e == nullptr) PG_RETURN_NULL();
    const cbf::Geometry g = geometry(e);
    const sketch::Hash128 h = ss::hash_arg(fcinfo, 1, g.seed);
    if (ss::is_frozen(e)) PG_RETURN_BOOL(cbf::contains(g, e->map.payload(), h));
    PG_RETURN_BOOL(cbf::contains_atomic(g, e->map.payload(), h));
}

SKETCH_FUNCTION(shared_cbf_count_of) {
    ss::Entry* e = ss::open_unless_null(fcinfo, kCbf, ss::kRead);
    if (e == nullptr) PG_RETURN_NULL();
    const cbf::Geometry g = geometry(e);
    const sketch::Hash128 h = ss::hash_arg(fcinfo, 1, g.seed);
    if (ss::is_frozen(e)) PG_RETURN_INT32(int32(cbf::count_of(g, e->map.payload(), h)));
    PG_RETURN_INT32(int32(cbf::count_of_atomic(g, e->map.payload(), h)));
}

SKETCH_FUNCTION(shared_cbf_remove) {
    ss::Entry* e = ss::open_unless_null(fcinfo, kCbf, ss::kWrite);
    if (e == nullptr) PG_RETURN_NULL();
    ss::check_mutable(e);
    const cbf::Geometry g = geometry(e);
    const sketch::Hash128 h = ss::hash_arg(fcinfo, 1, g.seed);
    bool removed = false;
    ss::change_exclusive(e, [&] { removed = cbf::remove(g, e->map.payload(), h); });
    PG_RETURN_BOOL(removed);
}

SKETCH_FUNCTION(shared_cbf_clear) {
    ss::Entry* e = open_arg(fcinfo, ss::kWrite);
    ss::check_mutable(e);
    const cbf::Geometry g = geometry(e);
    ss::change_exclusive(e, [&] { cbf::clear(g, e->map.payload()); });
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
    cbf::write_header(bytes, g);
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
    char* json = psprintf(
        "{\"capacity\": %llu, \"fp_rate\": %s, \"counters\": %llu, \"hashes\": %u, \"counters_set\": %llu, "
        "\"count\": %lld, \"fill_ratio\": %s, \"saturated\": %llu, \"ops\": %llu, \"bytes\": %llu, "
        "\"mmap_size\": %llu, \"frozen\": %s, \"readonly\": %s, \"lock_recoveries\": %u}",
        (unsigned long long)g.capacity, fpr, (unsigned long long)g.m, g.k, (unsigned long long)set,
        (long long)std::llround(estimate), fill, (unsigned long long)saturated,
        (unsigned long long)sh::load_ops(e->map.header()), (unsigned long long)e->map.size,
        (unsigned long long)e->map.size, ss::is_frozen(e) ? "true" : "false", e->readonly ? "true" : "false",
        e->map.lock().recoveries());
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
