// Shared counting Bloom filters: the cbf core's raw-span operations run on
// the object's mapped counters, of either layout (cbf_layout.hpp): one, or
// the sub-filters of a scaling object that has grown (shared/scaling.hpp).
//   add:                shared lock + the item's stripe + an atomic add
//                       (classic: CAS per counter byte; block: CAS per word
//                       of the line)
//   contains, count_of: no lock (atomic loads); frozen objects: plain reads
//   remove, clear, merge, snapshot: exclusive lock
// The operations both filter kinds have are shared_filter_ops.hpp's; here
// are the kind's traits, its stats, count_of, remove and count.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "cbf/cbf.hpp"
#include "cbf/cbf_format.hpp"
#include "cbf/cbf_layout.hpp"
#include "cbf/shared_cbf_format.hpp"
#include "shared_objects/filters/shared_filter_ops.hpp"

extern "C" {
#include "utils/float.h"
}

namespace cbf = sketch::cbf;
namespace scf = sketch::shared_cbf;
using namespace sketch_pg::shared_filter;  // sh, ss and the shared operations

namespace {

constexpr uint32 kCbf = uint32(sh::Kind::cbf);
// Snapshots become `cbf` values, which stay below 2^29 counters (see cbf_sql.cpp).
constexpr uint64_t kValueMaxCounters = uint64_t(1) << 29;

// The geometry validated when the file was mapped (sh::Mapping::fixed); its
// format is the core's (cbf/shared_cbf_format.hpp).
cbf::Geometry geometry(const ss::Entry* e) { return scf::from_blob(e->map.fixed.geometry); }

struct CbfKind : KindBase<sh::Kind::cbf, scf::Subfilter, scf::Description, true> {
    static constexpr KindWords kWords{
        "shared_cbf_add_many", "shared_cbf_contains_many",
        "A cbf value is one array of counters; the object's items are spread over its sub-filters.",
        "merge a cbf into", "merge a counting Bloom filter into"};
    using Value = cbf::View;

    static Params params(const ss::Entry* e) {
        const Geometry g = geometry(e);
        return Params{g.seed, g, {}};
    }
    static sh::Series read_series(const ss::Entry* e) {
        return scf::series_of(e->map.fixed.geometry, e->map.fixed.geometry_len);
    }
    static std::vector<Sub> subfilters(const ss::Entry* e, uint32_t count) {
        return scf::subfilters(geometry(e), series<CbfKind>(e), count);
    }

    // Atomic loads and CAS while adds may run; plain reads once frozen.
    static constexpr auto contains_concurrent = cbf::contains_atomic;
    static constexpr auto contains_frozen = cbf::contains;
    static constexpr auto add_atomic = cbf::add_atomic;
    static auto prefetcher(const Params&, const Geometry& g, uint8_t* counters) {
        return [&g, counters](const sketch::Hash128& h) { cbf::prefetch(g, counters, h); };
    }
    static constexpr auto copy_shape = sh::SubfilterCopy::of_cbf;

    // NULL layout: classic, the sizing of every filter made before layouts.
    // A scaling object's first sub-filter has its share of the rate.
    static Geometry size_for(int64 capacity, double fpr, const char* layout, int32 expansion) {
        const cbf::Layout l = layout != nullptr ? cbf::parse_layout(layout) : cbf::Layout{};
        const Geometry asked = cbf::geometry_for(capacity, fpr, l);  // checks the arguments
        if (expansion == 0) return asked;
        return cbf::geometry_for(capacity, scf::first_fpr(sh::Series{uint64_t(capacity), fpr, uint32_t(expansion)}), l);
    }
    // (capacity and fpr are the geometry's)
    static bool create(const char* name, const Geometry& g, uint32_t expansion, uint64_t, double, const Value* from,
                       bool if_not_exists) {
        const scf::StoredGeometry s = scf::to_stored(g, expansion);
        return ss::create_object(name, kKind, reinterpret_cast<const uint8_t*>(&s), sizeof s, g.counter_bytes(),
                                 from != nullptr ? from->counters : nullptr, if_not_exists);
    }

    static Value read_value(FunctionCallInfo fcinfo, int argno) {
        varlena* v = sketch_pg::detoast_large(PG_GETARG_DATUM(argno));
        return sketch_pg::guarded([&] {
            return cbf::read_value(reinterpret_cast<uint8_t*>(VARDATA(v)), VARSIZE(v) - VARHDRSZ, kValueMaxCounters,
                                   sketch::Errc::corrupted);
        });
    }
    static void check_mergeable(const ss::Entry* e, const Value& other) {
        const Geometry g = geometry(e);
        const LayoutName ours = layout_name(cbf::layout_of(g)), theirs = layout_name(cbf::layout_of(other.g));
        if (g.scheme != other.g.scheme)
            ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                            errmsg("cannot merge a cbf of layout %s into shared object \"%s\" (layout %s)",
                                   theirs.text, e->name, ours.text),
                            errhint("Both must have the same layout, capacity and fpr.")));
        if (!g.compatible(other.g) && g.m == other.g.m && g.k == other.g.k)
            ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                            errmsg("cannot merge a cbf of hash seed %llu into shared object \"%s\" (hash seed %llu)",
                                   (unsigned long long)other.g.seed, e->name, (unsigned long long)g.seed),
                            errhint("Both must have the same hash seed.")));
        if (!g.compatible(other.g)) {
            const sh::Series s = series<CbfKind>(e);
            ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                            errmsg("cannot merge a cbf of %llu counters and %u hashes into shared object \"%s\" "
                                   "(%llu counters, %u hashes)",
                                   (unsigned long long)other.g.m, other.g.k, e->name, (unsigned long long)g.m, g.k),
                            s.scaling() ? errhint("The object scales: its first sub-filter is sized for fpr %g, half "
                                                  "the %g asked for. Build the value with cbf_empty(%llu, %g%s%s%s).",
                                                  g.fpr, s.fpr, (unsigned long long)g.capacity, g.fpr,
                                                  g.blocked() ? ", '" : "", g.blocked() ? ours.text : "",
                                                  g.blocked() ? "'" : "")
                                        : errhint("Both must be created with the same capacity and fpr.")));
        }
    }
    // (the geometries are compatible: the same counters, hashes and seed)
    static void merge_into(ss::Entry* e, const Value& other) { cbf::merge(other.g, e->map.payload(), other.counters); }

    static void check_snapshot(const ss::Entry* e) {
        const Geometry g = geometry(e);
        if (g.m > kValueMaxCounters)
            ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                            errmsg("shared object \"%s\" has %llu counters; a cbf value holds at most %llu", e->name,
                                   (unsigned long long)g.m, (unsigned long long)kValueMaxCounters)));
    }
    static struct varlena* new_value(const ss::Entry* e, uint8_t** payload, uint64_t* bytes) {
        const Geometry g = geometry(e);
        const size_t len = VARHDRSZ + cbf::value_bytes(g);
        auto* out = static_cast<varlena*>(sketch_pg::palloc_large(len));
        SET_VARSIZE(out, len);
        auto* value = reinterpret_cast<uint8_t*>(VARDATA(out));
        cbf::write_header(value, g, ss::object_items(e));
        *payload = value + cbf::kHeaderBytes;
        *bytes = g.counter_bytes();
        return out;
    }

    static constexpr auto describe_geometry = scf::describe;
    static constexpr auto validate = scf::validate;
    static constexpr auto grown_payload = scf::grown_payload;

    static void target(const Params&, const Sub& sub, uint8_t* counters, sketch_pg::PrefetchTarget* x) {
        x->ops = nullptr;
        x->cbf = sub.g;
        x->span.bits = counters;
        x->bytes = x->cbf.counter_bytes();
    }
};

using CbfFilters = Filters<CbfKind>;

// The item's count: the sum over the sub-filters (each add went to one).
template <bool frozen>
int32 count_of(const CbfFilters& f, const sketch::Hash128& h) {
    int64 n = 0;
    for (uint32_t i = 0; i < f.count; ++i)
        n += frozen ? cbf::count_of(f.g(i), f.bits(i), h) : cbf::count_of_atomic(f.g(i), f.bits(i), h);
    return int32(std::min<int64>(n, PG_INT32_MAX));
}

// A remove (under the exclusive lock): from the oldest sub-filter that has
// the item, where its adds went (add_atomic). Taking it from another one
// would take counters of the items added there, which would then be missed.
bool remove(const CbfFilters& f, const sketch::Hash128& h) {
    for (uint32_t i = 0; i < f.count; ++i)
        if (cbf::contains(f.g(i), f.bits(i), h)) return cbf::remove(f.g(i), f.bits(i), h);
    return false;
}

}  // namespace

SHARED_FILTER_FUNCTIONS(shared_cbf, CbfKind)

SKETCH_FUNCTION(shared_cbf_count_of) {
    ss::Entry* e = ss::open_unless_null(fcinfo, kCbf, ss::kRead);
    if (e == nullptr) PG_RETURN_NULL();
    ss::check_object_items(fcinfo, e, 1, sketch_pg::ItemUse::lookup, false, nullptr);
    const CbfFilters f = filters_of<CbfKind>(e);
    const sketch::Hash128 h = ss::hash_arg(fcinfo, 1, f.g(0).seed);
    if (ss::is_frozen(e)) PG_RETURN_INT32(count_of<true>(f, h));
    PG_RETURN_INT32(count_of<false>(f, h));
}

SKETCH_FUNCTION(shared_cbf_remove) {
    ss::Entry* e = open_to_change<CbfKind>(fcinfo);
    if (e == nullptr) PG_RETURN_NULL();
    ss::check_object_items(fcinfo, e, 1, sketch_pg::ItemUse::lookup, false, nullptr);
    const sketch::Hash128 h = ss::hash_arg(fcinfo, 1, geometry(e).seed);
    bool removed = false;
    for (;;) {  // the table of every sub-filter mapped when the lock is held
        const CbfFilters f = filters_of<CbfKind>(e);
        bool stale = false;
        ss::with_every_subfilter<ss::Locked::to_change>(e, [&] {
            stale = f.count != e->map.subfilters;
            if (stale) return;
            removed = remove(f, h);
            if (removed) sh::release_items(e->map.header(), 1);
        });
        if (!stale) break;
    }
    // The transaction's own add of the item reaches the object at its
    // commit, after this remove: answering "not there" (contains says it is)
    // would let the item arrive all the same. Nothing was changed.
    if (!removed && ss::pending_in_transaction(e, h))
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("cannot remove an item from shared object \"%s\" that this transaction added", e->name),
                        errdetail("A transactional add reaches the object when its transaction commits."),
                        errhint("Roll back to a savepoint to take the add back, remove the item after the commit, "
                                "or add it with transactional => false.")));
    PG_RETURN_BOOL(removed);
}

SKETCH_FUNCTION(shared_cbf_count) {
    ss::Entry* e = ss::open_cached(fcinfo, PG_GETARG_TEXT_PP(0), kCbf, ss::kRead);
    const CbfFilters f = filters_of<CbfKind>(e);
    double estimate = 0;
    for (uint32_t i = 0; i < f.count; ++i) estimate += cbf::estimate_count(f.g(i), cbf::counters_set(f.g(i), f.bits(i)));
    PG_RETURN_INT64(int64(std::llround(estimate)));
}

SKETCH_FUNCTION(shared_cbf_stats) {
    ss::Entry* e = ss::open_cached(fcinfo, PG_GETARG_TEXT_PP(0), kCbf, ss::kRead);
    const cbf::Geometry g = geometry(e);
    const sh::Series s = series<CbfKind>(e);
    const CbfFilters f = filters_of<CbfKind>(e);
    // Sums over the sub-filters; their rates combine (shared/scaling.hpp).
    uint64_t set = 0, saturated = 0, m = 0;
    double estimate = 0, rates[sh::kMaxSubfilters];
    for (uint32_t i = 0; i < f.count; ++i) {
        const uint64_t set_i = cbf::counters_set(f.g(i), f.bits(i));
        set += set_i;
        saturated += cbf::counters_saturated(f.g(i), f.bits(i));
        m += f.g(i).m;
        estimate += cbf::estimate_count(f.g(i), set_i);
        rates[i] = cbf::fill_fpr(f.g(i), f.bits(i), set_i);
    }
    sketch_pg::JsonbObject json;
    json.number("counters", uint64(m));
    json.number("hashes", uint32(g.k));
    json.number("counters_set", uint64(set));
    json.number("saturated", uint64(saturated));
    const FilterStats common{layout_name(cbf::layout_of(g)).text, g.capacity, float8out_internal(s.fpr),
                                 float8out_internal(double(set) / double(m)), psprintf("%lld", std::llround(estimate)),
                                 float8out_internal(sh::combined_fpr(rates, f.count)), s.expansion, f.count};
    PG_RETURN_DATUM(finish_stats(e, common, &json));
}

// The lookups here that the prefetching scan serves (prefetch/prefetch.hpp).
namespace sketch_pg {
void register_shared_cbf_prefetchables() {
    register_prefetchable("shared_cbf_add", PrefetchKind::shared_cbf, shared::kWrite);
    register_prefetchable("shared_cbf_contains", PrefetchKind::shared_cbf, shared::kRead);
    register_prefetchable("shared_cbf_count_of", PrefetchKind::shared_cbf, shared::kRead);
}
}  // namespace sketch_pg
