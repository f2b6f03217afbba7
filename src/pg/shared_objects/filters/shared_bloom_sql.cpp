// Shared Bloom filters: the bloom core's kernels run on the object's mapped
// bit arrays (page aligned, each followed by the kernels' zero tail pad): one,
// or the sub-filters of a scaling object that has grown (shared/scaling.hpp).
//   add:      shared lock + the item's stripe + an atomic OR on 64-bit words
//             into the newest sub-filter, unless an older one has the item
//   contains: no lock (the concurrent kernels), every sub-filter; frozen
//             objects: the SIMD lookup
//   clear, merge, snapshot: exclusive lock; merge and snapshot only while
//             the object has one sub-filter (a value is one bit array)
// The operations are shared_filter_ops.hpp's; here are the kind's traits
// and its stats.
#include <cinttypes>
#include <cstring>
#include <vector>

#include "bloom/bloom.hpp"
#include "bloom/bloom_format.hpp"
#include "bloom/shared_bloom_format.hpp"
#include "shared_objects/filters/shared_filter_ops.hpp"
#include "types/bloom_value.hpp"

namespace sb = sketch::bloom;
namespace sbf = sketch::shared_bloom;
using namespace sketch_pg::shared_filter;  // sh, ss and the shared operations

namespace {

// The stored geometry validated when the file was mapped (sh::Mapping::fixed),
// parsed; its format is the core's (bloom/shared_bloom_format.hpp).
sbf::Geometry stored(const ss::Entry* e) {
    return sbf::parse(e->map.fixed.geometry, e->map.fixed.geometry_len, e->name);
}

struct BloomKind : KindBase<sh::Kind::bloom, sbf::Subfilter, sbf::Description, false, const sb::Ops*> {
    static constexpr KindWords kWords{
        "shared_bloom_add_many", "shared_bloom_contains_many",
        "A bloom value is one bit array; the object's items are spread over its sub-filters.",
        "merge a bloom filter into", "merge a bloom filter into"};

    // (the kernels of the layout every sub-filter has)
    static Params params(const ss::Entry* e) {
        const sbf::Geometry p = stored(e);
        return Params{p.seed, p.g, &sb::ops_for(p.g.layout, sb::Path::scalar)};
    }
    // Its geometry parsed when it was opened, so this does not fail (if it
    // did: capacity unknown, nothing refused).
    static sh::Series read_series(const ss::Entry* e) noexcept {
        try {
            return stored(e).series();
        } catch (...) {
            return sh::Series{};
        }
    }
    static std::vector<Sub> subfilters(const ss::Entry* e, uint32_t count) {
        const sbf::Geometry p = stored(e);
        return sbf::subfilters(p.g, p.series(), count);
    }

    // The kernels as the shared operations call them: the item by reference,
    // the frozen lookups by the best path (SIMD where the CPU has it).
    static bool contains_concurrent(const Geometry& g, const uint8_t* bits, const sketch::Hash128& h) {
        return sb::contains_concurrent(g, bits, h);
    }
    static bool contains_frozen(const Geometry& g, const uint8_t* bits, const sketch::Hash128& h) {
        return sb::contains(g, bits, h);
    }
    static constexpr auto add_atomic = sb::insert_atomic;
    static auto prefetcher(const Params& p, const Geometry& g, uint8_t* bits) {
        return [ops = p.kernels, span = sb::span_for(g, bits)](const sketch::Hash128& h) { ops->prefetch_one(span, h); };
    }
    static constexpr auto copy_shape = sh::SubfilterCopy::of_bloom;

    // NULL layout: the default for n and fpr. A scaling object's first
    // sub-filter has its share of the rate.
    static Geometry size_for(int64 n, double fpr, const char* layout, int32 expansion) {
        sb::check_n_fpr(double(n), fpr);
        const sb::Layout l = layout != nullptr ? sb::parse_layout(layout) : sb::default_layout(uint64_t(n), fpr);
        return sb::capacity_for(uint64_t(n), sh::subfilter_fpr(sh::Series{uint64_t(n), fpr, uint32_t(expansion)}, 0), l);
    }

    struct Value {
        struct varlena* v;
        Geometry g;
        uint64_t seed;
        sketch::ItemClass item;
    };
    static Value read_value(FunctionCallInfo fcinfo, int argno) {
        struct varlena* v = sketch_pg::detoast_large(PG_GETARG_DATUM(argno));
        const size_t len = VARSIZE(v);
        sb::Header h = sketch_pg::guarded([&] {
            return sb::read_header(sketch_pg::bloom_header(v), len - VARHDRSZ, sketch::Errc::corrupted);
        });
        if (len != sketch_pg::bloom_plain_size(h.geometry, h.sizing))
            ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED), errmsg("malformed bloom value")));
        return Value{v, h.geometry, h.seed, h.item};
    }

    // From a value (from): its seed and bits; the object's capacity stays
    // unknown (it never grows), since the value was sized for all of fpr.
    static bool create(const char* name, const Geometry& g, uint32_t expansion, uint64_t n, double fpr,
                       const Value* from, bool if_not_exists) {
        const sbf::StoredGeometry s = sbf::to_stored(g, from != nullptr ? from->seed : 0, n, fpr, expansion);
        const uint64_t payload = sbf::payload_bytes(g);
        uint8_t* initial = nullptr;
        if (from != nullptr) {
            initial = static_cast<uint8_t*>(sketch_pg::palloc0_large(payload));
            memcpy(initial, sketch_pg::bloom_bits(from->v), g.bytes);
        }
        return ss::create_object(name, kKind, reinterpret_cast<const uint8_t*>(&s), sizeof s, payload, initial,
                                 if_not_exists);
    }

    static void check_mergeable(const ss::Entry* e, const Value& v) {
        const sbf::Geometry p = sketch_pg::guarded([&] { return stored(e); });
        if (!(v.g != p.g) && v.seed == p.seed) return;
        const LayoutName theirs = layout_name(v.g.layout), ours = layout_name(p.g.layout);
        const double first_fpr = sh::subfilter_fpr(p.series(), 0);
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("cannot merge a bloom filter into shared object \"%s\" of another layout, size or seed",
                               e->name),
                        errdetail("The value is %s of %llu bits with seed %lld; the object is %s of %llu bits with "
                                  "seed %lld.",
                                  theirs.text, (unsigned long long)v.g.bits(), (long long)v.seed, ours.text,
                                  (unsigned long long)p.g.bits(), (long long)p.seed),
                        sbf::grows(p) ? errhint("The object scales: its first sub-filter is sized for fpr %g, half "
                                                "the %g asked for (bloom_empty(%llu, %g, ...)).",
                                                first_fpr, p.fpr, (unsigned long long)p.n, first_fpr)
                                      : 0));
    }
    static void merge_into(ss::Entry* e, const Value& v) {
        sb::union_into(e->map.payload(), sketch_pg::bloom_bits(v.v), v.g.bytes);
    }

    static void check_snapshot(const ss::Entry*) {}
    // (the object's capacity and fpr, when it has them: not one made from a value)
    static struct varlena* new_value(const ss::Entry* e, uint8_t** payload, uint64_t* bytes) {
        const sbf::Geometry p = sketch_pg::guarded([&] { return stored(e); });
        const sb::Sizing sizing = p.n != 0 ? sb::Sizing{p.n, p.fpr} : sb::Sizing{};
        struct varlena* out = sketch_pg::bloom_value_new(p.g, p.seed, ss::object_items(e), sizing);
        *payload = sketch_pg::bloom_bits(out);
        *bytes = p.g.bytes;
        return out;
    }

    static constexpr auto describe_geometry = sbf::describe;
    static constexpr auto validate = sbf::validate;
    static constexpr auto grown_payload = sbf::grown_payload;

    static void target(const Params& p, const Sub& sub, uint8_t* bits, sketch_pg::PrefetchTarget* x) {
        x->ops = p.kernels;
        x->span = sb::span_for(sub.g, bits);
        x->bytes = sub.g.bytes;
    }
};

}  // namespace

SHARED_FILTER_FUNCTIONS(shared_bloom, BloomKind)

SKETCH_FUNCTION(shared_bloom_stats) {
    ss::Entry* e = ss::open_cached(fcinfo, PG_GETARG_TEXT_PP(0), uint32(sh::Kind::bloom), ss::kRead);
    const sbf::Geometry p = sketch_pg::guarded([&] { return stored(e); });
    const Filters<BloomKind> subs = filters_of<BloomKind>(e);
    // Each sub-filter's items are estimated from its bits; the rates combine
    // (shared/scaling.hpp, combined_fpr).
    struct Figures {
        double est, fpr;
        uint64_t set, bits;
    };
    const Figures f = sketch_pg::guarded([&] {
        Figures r{};
        double rates[sh::kMaxSubfilters];
        for (uint32_t i = 0; i < subs.count; ++i) {
            const sb::Geometry& g = subs.g(i);
            const uint64_t set = sb::count_bits(subs.bits(i), g.bytes);
            const double est = sb::estimated_count(g, set);
            rates[i] = sb::fpr_for(est, double(g.bits()), g.layout);
            r.est += est;
            r.set += set;
            r.bits += g.bits();
        }
        r.fpr = sh::combined_fpr(rates, subs.count);
        return r;
    });
    sketch_pg::JsonbObject json;
    json.number("k", uint32(p.g.layout.k));
    json.number("kp", uint32(p.g.layout.kp));
    json.number("capacity_bits", uint64(f.bits));
    json.number("bits_set", uint64(f.set));
    json.number("seed", int64(p.seed));
    const FilterStats common{layout_name(p.g.layout).text, p.n, psprintf("%.15g", p.fpr), psprintf("%.6g", double(f.set) / double(f.bits)),
                                 psprintf("%.0f", f.est), psprintf("%.6g", f.fpr), p.expansion, subs.count};
    PG_RETURN_DATUM(finish_stats(e, common, &json));
}

// The lookups here that the prefetching scan serves (prefetch/prefetch.hpp).
namespace sketch_pg {
void register_shared_bloom_prefetchables() {
    register_prefetchable("shared_bloom_add", PrefetchKind::shared_bloom, shared::kWrite);
    register_prefetchable("shared_bloom_contains", PrefetchKind::shared_bloom, shared::kRead);
}
}  // namespace sketch_pg
