// Shared Bloom filters: the bloom core's kernels run on the object's mapped
// bit arrays (page aligned, each followed by the kernels' zero tail pad): one,
// or the sub-filters of a scaling object that has grown (shared/scaling.hpp).
//   add:      shared lock + the item's stripe + insert_atomic (atomic OR on
//             64-bit words) into the newest sub-filter, unless an older one
//             has the item
//   contains: no lock (contains_concurrent), every sub-filter, the newest
//             first; frozen objects: the SIMD lookup
//   clear, merge, snapshot: exclusive lock; merge and snapshot only while
//             the object has one sub-filter (a value is one bit array)
// Items are hashed before any lock is taken; nothing under the lock can raise.
#include <algorithm>
#include <cinttypes>
#include <cstring>
#include <vector>

#include "bloom/bloom.hpp"
#include "bloom/bloom_format.hpp"
#include "bloom/shared_bloom_format.hpp"
#include "types/bloom_value.hpp"
#include "array_items.hpp"
#include "guard.hpp"
#include "prefetch/prefetch.hpp"
#include "shared_objects/filters/shared_capacity.hpp"
#include "shared_objects/filters/shared_items.hpp"
#include "shared_objects/registry/shared_registry.hpp"
#include "shared_objects/filters/subfilter_adds.hpp"
#include "shared_objects/transactional/transactional_adds.hpp"

extern "C" {
#include "utils/jsonb.h"
}

namespace sh = sketch::shared;
namespace ss = sketch_pg::shared;
namespace sb = sketch::bloom;
namespace sbf = sketch::shared_bloom;

namespace {

constexpr uint32 kBloom = uint32(sh::Kind::bloom);

// The stored geometry's format is the core's (bloom/shared_bloom_format.hpp).
using Parsed = sbf::Geometry;

// Layout names for the view: a small static table keeps them alive.
const char* layout_text(const std::string& layout) {
    static char names[8][64];
    static int next = 0;
    char* out = names[next++ % 8];
    strlcpy(out, layout.c_str(), 64);
    return out;
}
const char* layout_text(const sb::Layout& l) {
    try {
        return layout_text(sb::format_layout(l));
    } catch (...) {
        return layout_text(std::string("?"));
    }
}

void describe(const uint8_t* blob, uint32_t len, ss::GeometryInfo* out) {
    sbf::Description d;
    if (!sbf::describe(blob, len, &d)) return;
    out->capacity = int64(d.capacity);
    out->fpr = d.fpr;
    out->expansion = int32(d.expansion);
    strlcpy(out->layout, layout_text(d.layout), sizeof out->layout);
    out->m = int64(d.m);
    out->k = int32(d.k);
}

}  // namespace

void sketch_pg::shared::register_shared_bloom_kind() {
    ss::register_pg_kind(sh::Kind::bloom, sbf::validate, describe, nullptr, sbf::grown_payload);
}

namespace {

// The geometry validated when the file was mapped (sh::Mapping::fixed).
Parsed geometry(const ss::Entry* e) { return sbf::parse(e->map.fixed.geometry, e->map.fixed.geometry_len, e->name); }

ss::Entry* open_arg(FunctionCallInfo fcinfo, uint8 need) {
    return ss::open_cached(fcinfo, PG_GETARG_TEXT_PP(0), kBloom, need);
}

// The sub-filters the entry maps, the oldest first (one for an object that
// has not grown).
struct Filters {
    const sbf::Subfilter* subs;
    uint32_t count;
    uint8_t* payload;
    uint32_t fullest = 0;  // the sub-filter that holds the most items
    uint8_t* bits(uint32_t i) const { return payload + subs[i].offset; }
};

Filters filters_of(ss::Entry* e, const Parsed& p) {
    const sbf::Subfilter* subs = ss::subfilter_table<sbf::Subfilter>(
        e, [&](uint32_t count) { return sbf::subfilters(p.g, p.series(), count); });
    const uint32_t count = e->map.subfilters;
    return Filters{subs, count, e->map.payload(), sh::fullest_subfilter(p.series(), count, ss::held_items(e))};
}

// A lookup looks where a held item most likely is first (the fullest
// sub-filter), then in the others, the newest first (bench/README.md,
// "shared_scaling"); contains is the kernel (concurrent or SIMD).
template <typename Contains>
bool contains_any(const Filters& f, const sketch::Hash128& h, Contains contains) {
    if (contains(f.subs[f.fullest].g, f.bits(f.fullest), h)) return true;
    for (uint32_t i = f.count; i-- > 0;)
        if (i != f.fullest && contains(f.subs[i].g, f.bits(i), h)) return true;
    return false;
}
// Lookups while adds may run.
bool contains_concurrent(const Filters& f, const sketch::Hash128& h) {
    return contains_any(f, h, [](const sb::Geometry& g, const uint8_t* bits, const sketch::Hash128& x) {
        return sb::contains_concurrent(g, bits, x);
    });
}
// Lookups of a frozen object: the SIMD kernels.
bool contains_frozen(const Filters& f, const sketch::Hash128& h) {
    return contains_any(f, h, [](const sb::Geometry& g, const uint8_t* bits, const sketch::Hash128& x) {
        return sb::contains(g, bits, x);
    });
}
// An add under the item's stripe into sub-filter `into`: new only when no
// sub-filter has the item.
bool insert_atomic(const Filters& f, uint32_t into, const sketch::Hash128& h) {
    for (uint32_t i = 0; i < f.count; ++i)
        if (i != into && sb::contains_concurrent(f.subs[i].g, f.bits(i), h)) return false;
    return sb::insert_atomic(f.subs[into].g, f.bits(into), h);
}

// Adds n hashed items whose room starts at `position` in the series s: each
// new one goes into the sub-filter of its position (sh::subfilter_at; the
// newest but for a batch that filled older ones), the lines of the one the
// batch starts in loaded ahead (ops: the kernels of the layout every
// sub-filter has). Returns the new ones. view() gives the sub-filters e
// maps (ss::add_following_growth).
template <typename View>
int64 add_placed(ss::Entry* e, View view, const sb::Ops& ops, const sh::Series& s, uint64_t position,
                 const sketch::Hash128* hashes, int n) {
    return ss::add_following_growth(e, view, hashes, n, [&](const Filters& f, const sketch::Hash128* batch, int count, int* done) {
        const uint32_t first = sh::subfilter_at(s, f.count, position);
        const sb::Span span = sb::span_for(f.subs[first].g, f.bits(first));
        return ss::add_hashes_shared(
            e, batch, count,
            [&](const sketch::Hash128& x) {
                const bool added = insert_atomic(f, sh::subfilter_at(s, f.count, position), x);
                position += added;
                return added;
            },
            [&](const sketch::Hash128& x) { ops.prefetch_one(span, x); }, done);
    });
}

// Raises 0A000 for what a bloom value cannot hold: an object of several
// sub-filters. Called with the count seen under the exclusive lock.
void refuse_grown(const ss::Entry* e, uint32_t count, const char* what) {
    if (count <= 1) return;
    ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                    errmsg("cannot %s shared object \"%s\": it has grown to %u sub-filters", what, e->name, count),
                    errdetail("A bloom value is one bit array; the object's items are spread over its sub-filters."),
                    errhint("Create the object with a capacity for all its items, or with expansion => 0, to "
                            "move it to and from values.")));
}

bool create_with(const char* name, const sb::Geometry& g, uint64_t seed, uint64_t n, double fpr, uint32_t expansion,
                 const uint8_t* bits, bool if_not_exists = false) {
    const sbf::StoredGeometry s = sbf::to_stored(g, seed, n, fpr, expansion);
    const uint64_t payload = sbf::payload_bytes(g);
    uint8_t* initial = nullptr;
    if (bits != nullptr) {
        initial = static_cast<uint8_t*>(sketch_pg::palloc0_large(payload));
        memcpy(initial, bits, g.bytes);
    }
    return ss::create_object(name, sh::Kind::bloom, reinterpret_cast<const uint8_t*>(&s), sizeof s, payload, initial,
                             if_not_exists);
}

struct Value {
    struct varlena* v;
    sb::Geometry g;
    uint64_t seed;
    sketch::ItemClass item;
};

Value read_value_arg(FunctionCallInfo fcinfo, int argno) {
    struct varlena* v = sketch_pg::detoast_large(PG_GETARG_DATUM(argno));
    const size_t len = VARSIZE(v);
    sb::Header h = sketch_pg::guarded([&] {
        return sb::read_header(sketch_pg::bloom_header(v), len - VARHDRSZ, sketch::Errc::corrupted);
    });
    if (len != sketch_pg::bloom_plain_size(h.geometry, h.sizing))
        ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED), errmsg("malformed bloom value")));
    return Value{v, h.geometry, h.seed, h.item};
}

}  // namespace

bool sketch_pg::shared_bloom_target(const char* name, int len, uint8 need, PrefetchTarget* t, MoreTargets* more) {
    ss::Entry* e = ss::find_opened(name, len, kBloom, need);
    if (e == nullptr) return false;
    try {
        const Parsed p = geometry(e);
        const auto target_of = [&](const sbf::Subfilter& sub, PrefetchTarget* x) {
            x->ops = &sb::ops_for(sub.g.layout, sb::Path::scalar);
            x->span = sb::span_for(sub.g, e->map.payload() + sub.offset);
            x->bytes = sub.g.bytes;
            x->seed = p.seed;
            x->object = e;
        };
        if (e->subs != nullptr && e->subs_count == e->map.subfilters) {
            const auto* subs = static_cast<const sbf::Subfilter*>(e->subs);
            subfilter_targets(
                e->map.subfilters, sh::fullest_subfilter(p.series(), e->map.subfilters, ss::held_items(e)),
                [&](uint32_t i, PrefetchTarget* x) { target_of(subs[i], x); }, t, more);
        } else {
            target_of(sbf::Subfilter{p.g, 0}, t);
            more->n = 0;
        }
        return true;
    } catch (...) {
        return false;  // the function reports it
    }
}

// shared_bloom_create's arguments name, n, fpr, layout (at layout_arg;
// NULL: the default) and expansion (after it) make an object; false when the
// name is taken and if_not_exists.
static bool create_from_args(FunctionCallInfo fcinfo, int layout_arg, bool if_not_exists) {
    char name[64];
    ss::checked_name(PG_GETARG_TEXT_PP(0), name);
    const int64 n = PG_GETARG_INT64(1);
    const double fpr = PG_GETARG_FLOAT8(2);
    const char* layout = PG_ARGISNULL(layout_arg) ? nullptr : text_to_cstring(PG_GETARG_TEXT_PP(layout_arg));
    const int32 expansion = ss::expansion_arg(fcinfo, layout_arg + 1);
    sb::Geometry g = sketch_pg::guarded([&] {
        sh::check_expansion(expansion);
        sb::check_n_fpr(double(n), fpr);
        sb::Layout l = layout != nullptr ? sb::parse_layout(layout) : sb::default_layout(uint64_t(n), fpr);
        // a scaling object's first sub-filter has its share of the rate
        return sb::capacity_for(uint64_t(n), sh::subfilter_fpr(sh::Series{uint64_t(n), fpr, uint32_t(expansion)}, 0), l);
    });
    return create_with(name, g, 0, uint64_t(n), fpr, uint32_t(expansion), nullptr, if_not_exists);
}

SKETCH_FUNCTION(shared_bloom_create) {
    if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2) || ss::expansion_arg_is_null(fcinfo, 4)) PG_RETURN_NULL();
    create_from_args(fcinfo, 3, false);
    PG_RETURN_VOID();
}

// shared_bloom_create(name, n, fpr, if_not_exists [, layout, expansion]): whether it created.
SKETCH_FUNCTION(shared_bloom_create_if_not_exists) {
    if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(3) || ss::expansion_arg_is_null(fcinfo, 5))
        PG_RETURN_NULL();
    PG_RETURN_BOOL(create_from_args(fcinfo, 4, PG_GETARG_BOOL(3)));
}

SKETCH_FUNCTION(shared_bloom_create_from) {
    char name[64];
    ss::checked_name(PG_GETARG_TEXT_PP(0), name);
    Value v = read_value_arg(fcinfo, 1);
    // The object's capacity stays unknown (it never grows) even when the
    // value records its n and fpr: the value was sized for all of fpr, while
    // a scaling object's first sub-filter takes only its share of it
    // (subfilter_fpr), so growing from it would pass the rate asked for.
    create_with(name, v.g, v.seed, 0, 0, sh::kDefaultExpansion, sketch_pg::bloom_bits(v.v));
    ss::record_object_items(ss::open_object(name, kBloom, ss::kWrite), v.item, "create a shared object");
    PG_RETURN_VOID();
}

namespace {

// At commit, the transaction's adds (transactional_adds.hpp). The geometry
// parsed when the object was opened parses again; nothing may escape here.
// The commit adds to the newest sub-filter it can map.
uint64 apply_adds(ss::Entry* e, const sketch::Hash128* hashes, int n) {
    Parsed p;
    const sb::Ops* ops;
    try {
        p = geometry(e);
        ops = &sb::ops_for(p.g.layout, sb::Path::scalar);
    } catch (...) {
        return 0;
    }
    ss::CommitSubfilters<sbf::Subfilter> table;
    const auto view = [&] {
        table.follow(e, [&](uint32_t count) { return sbf::subfilters(p.g, p.series(), count); });
        return Filters{table.subs(), table.count(), e->map.payload()};
    };
    ss::follow_growth_quietly(e);
    if (view().count == 0) return 0;
    return uint64(add_placed(e, view, *ops, p.series(), ss::committed_batch_start(e, n), hashes, n));
}

// The object's series; its geometry parsed when it was opened, so this does
// not fail (if it did: capacity unknown, nothing refused).
sh::Series series_of(const ss::Entry* e) {
    return ss::cached_series(e, [e] {
        try {
            return geometry(e).series();
        } catch (...) {
            return sh::Series{};
        }
    });
}

void copy_of(const ss::Entry* e, uint32 sub, sh::SubfilterCopy* copy, uint64* offset) {
    const sbf::Subfilter s = sketch_pg::guarded([&] {
        const Parsed p = geometry(e);
        return sbf::subfilters(p.g, p.series(), sub + 1)[sub];
    });
    *copy = sh::SubfilterCopy::of_bloom(s.g);
    *offset = s.offset;
}

constexpr ss::AddOps kAddOps{apply_adds, series_of, false, copy_of};

// Adds n items at once (not transactionally): room for all of them is
// reserved first, what the items the filter held already did not use is
// given back after. Returns the new ones.
int64 add_now(ss::Entry* e, const Parsed& p, const sketch::Hash128* hashes, int n) {
    const uint64_t position = ss::reserve_room(e, p.series(), uint64(n));  // may grow the object
    const sb::Ops& ops = sketch_pg::guarded([&]() -> const sb::Ops& { return sb::ops_for(p.g.layout, sb::Path::scalar); });
    const int64 fresh = add_placed(e, [&] { return filters_of(e, p); }, ops, p.series(), position, hashes, n);
    ss::settle_room(e, uint64(n), uint64(fresh));
    return fresh;
}

bool add_in_transaction(ss::Entry* e, const Parsed& p, const sketch::Hash128& h) {
    // (after a wait for another adder, whose add may have grown the object)
    const auto committed = [&](const sketch::Hash128& x) {
        ss::follow_growth(e);
        return contains_concurrent(filters_of(e, p), x);
    };
    return ss::add_in_transaction(e, h, ss::lookup_of(committed), kAddOps);
}

}  // namespace

SKETCH_FUNCTION(shared_bloom_add) {
    ss::Entry* e = ss::open_unless_null(fcinfo, kBloom, ss::kWrite);
    if (e == nullptr) PG_RETURN_NULL();
    ss::check_mutable(e);
    ss::check_object_items(fcinfo, e, 1, sketch_pg::ItemUse::add, false, "shared_bloom_add_many");
    const Parsed p = sketch_pg::guarded([&] { return geometry(e); });
    const sketch::Hash128 h = ss::hash_arg(fcinfo, 1, p.seed);
    if (ss::transactional_arg(fcinfo, 2)) PG_RETURN_BOOL(add_in_transaction(e, p, h));
    PG_RETURN_BOOL(add_now(e, p, &h, 1) != 0);
}

SKETCH_FUNCTION(shared_bloom_add_many) {
    ss::Entry* e = ss::open_unless_null(fcinfo, kBloom, ss::kWrite);
    if (e == nullptr) PG_RETURN_NULL();
    ss::check_mutable(e);
    ss::check_object_items(fcinfo, e, 1, sketch_pg::ItemUse::add, true, nullptr);
    const Parsed p = sketch_pg::guarded([&] { return geometry(e); });
    int count;
    const sketch::Hash128* hashes = ss::hash_array_arg(fcinfo, 1, p.seed, &count);
    int64 fresh = 0;
    if (ss::transactional_arg(fcinfo, 2)) {
        for (int i = 0; i < count; ++i) fresh += add_in_transaction(e, p, hashes[i]);
        PG_RETURN_INT64(fresh);
    }
    // one lock acquisition for the whole batch
    PG_RETURN_INT64(add_now(e, p, hashes, count));
}

SKETCH_FUNCTION(shared_bloom_contains) {
    ss::Entry* e = ss::open_unless_null(fcinfo, kBloom, ss::kRead);
    if (e == nullptr) PG_RETURN_NULL();
    ss::check_object_items(fcinfo, e, 1, sketch_pg::ItemUse::lookup, false, "shared_bloom_contains_many");
    const Parsed p = sketch_pg::guarded([&] { return geometry(e); });
    const sketch::Hash128 h = ss::hash_arg(fcinfo, 1, p.seed);
    const Filters f = filters_of(e, p);
    if (ss::is_frozen(e)) PG_RETURN_BOOL(contains_frozen(f, h));
    PG_RETURN_BOOL(contains_concurrent(f, h) || ss::pending_in_transaction(e, h));
}

// shared_bloom_contains_many(name, items): shared_bloom_contains of each element.
SKETCH_FUNCTION(shared_bloom_contains_many) {
    ss::Entry* e = ss::open_unless_null(fcinfo, kBloom, ss::kRead);
    if (e == nullptr) PG_RETURN_NULL();
    ss::check_object_items(fcinfo, e, 1, sketch_pg::ItemUse::lookup, true, nullptr);
    const Parsed p = sketch_pg::guarded([&] { return geometry(e); });
    ArrayType* items = PG_GETARG_ARRAYTYPE_P(1);
    const sketch_pg::ItemHasher* hasher = ss::cached_hasher_for_elements(fcinfo, items);
    const bool frozen = ss::is_frozen(e);
    const Filters f = filters_of(e, p);
    PG_RETURN_ARRAYTYPE_P(sketch_pg::answers_for(items, [&](Datum item) {
        const sketch::Hash128 h = sketch_pg::hash_item(hasher, item, p.seed);
        if (frozen) return contains_frozen(f, h);
        return contains_concurrent(f, h) || ss::pending_in_transaction(e, h);
    }));
}

SKETCH_FUNCTION(shared_bloom_clear) {
    ss::Entry* e = open_arg(fcinfo, ss::kWrite);
    ss::check_mutable(e);
    // every sub-filter is cleared; the object keeps them (and their room)
    ss::with_every_subfilter<ss::Locked::to_change>(e, [&] {
        memset(e->map.payload(), 0, e->map.size - sh::kHeaderBytes);
        sh::clear_items(e->map.header());
    });
    PG_RETURN_VOID();
}

SKETCH_FUNCTION(shared_bloom_merge) {
    ss::Entry* e = ss::open_unless_null(fcinfo, kBloom, ss::kWrite);
    if (e == nullptr) PG_RETURN_NULL();
    ss::check_mutable(e);
    const Parsed p = sketch_pg::guarded([&] { return geometry(e); });
    Value v = read_value_arg(fcinfo, 1);
    refuse_grown(e, e->map.subfilters, "merge a bloom filter into");
    if (v.g != p.g || v.seed != p.seed) {
        char theirs[64], ours[64];
        strlcpy(theirs, layout_text(v.g.layout), sizeof theirs);
        strlcpy(ours, layout_text(p.g.layout), sizeof ours);
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("cannot merge a bloom filter into shared object \"%s\" of another layout, size or seed",
                               e->name),
                        errdetail("The value is %s of %llu bits with seed %lld; the object is %s of %llu bits with "
                                  "seed %lld.",
                                  theirs, (unsigned long long)v.g.bits(), (long long)v.seed, ours,
                                  (unsigned long long)p.g.bits(), (long long)p.seed),
                        sbf::grows(p) ? errhint("The object scales: its first sub-filter is sized for fpr %g, half "
                                                "the %g asked for (bloom_empty(%llu, %g, ...)).",
                                                sh::subfilter_fpr(p.series(), 0), p.fpr, (unsigned long long)p.n,
                                                sh::subfilter_fpr(p.series(), 0))
                                      : 0));
    }
    ss::record_object_items(e, v.item, psprintf("merge a bloom filter into shared object \"%s\"", e->name));
    uint32_t count = 1;
    ss::with_every_subfilter<ss::Locked::to_change>(e, [&] {
        count = e->map.subfilters;
        if (count == 1) sb::union_into(e->map.payload(), sketch_pg::bloom_bits(v.v), p.g.bytes);
    });
    refuse_grown(e, count, "merge a bloom filter into");
    PG_RETURN_VOID();
}

SKETCH_FUNCTION(shared_bloom_snapshot) {
    ss::Entry* e = open_arg(fcinfo, ss::kRead);
    const Parsed p = sketch_pg::guarded([&] { return geometry(e); });
    refuse_grown(e, e->map.subfilters, "take a snapshot of");
    // (the object's capacity and fpr, when it has them: not one made from a value)
    const sb::Sizing sizing = p.n != 0 ? sb::Sizing{p.n, p.fpr} : sb::Sizing{};
    struct varlena* out = sketch_pg::bloom_value_new(p.g, p.seed, ss::object_items(e), sizing);  // before the lock: palloc may raise
    uint32_t count = 1;
    ss::with_every_subfilter<ss::Locked::to_read>(e, [&] {
        count = e->map.subfilters;
        if (count == 1) memcpy(sketch_pg::bloom_bits(out), e->map.payload(), p.g.bytes);
    });
    refuse_grown(e, count, "take a snapshot of");
    PG_RETURN_POINTER(out);
}

SKETCH_FUNCTION(shared_bloom_stats) {
    ss::Entry* e = open_arg(fcinfo, ss::kRead);
    const Parsed p = sketch_pg::guarded([&] { return geometry(e); });
    const Filters subs = filters_of(e, p);
    // Each sub-filter's items are estimated from its bits; the rates combine
    // (shared/scaling.hpp, combined_fpr).
    struct Figures {
        double est, fpr;
        uint64_t set, bits;
        char layout[64];
    };
    Figures f = sketch_pg::guarded([&] {
        Figures r{};
        double rates[sh::kMaxSubfilters];
        for (uint32_t i = 0; i < subs.count; ++i) {
            const sb::Geometry& g = subs.subs[i].g;
            const uint64_t set = sb::count_bits(subs.bits(i), g.bytes);
            const double est = sb::estimated_count(g, set);
            rates[i] = sb::fpr_for(est, double(g.bits()), g.layout);
            r.est += est;
            r.set += set;
            r.bits += g.bits();
        }
        r.fpr = sh::combined_fpr(rates, subs.count);
        strlcpy(r.layout, sb::format_layout(p.g.layout).c_str(), sizeof r.layout);
        return r;
    });
    const uint64_t set = f.set;
    char* json = psprintf(
        "{\"layout\": \"%s\", \"k\": %u, \"kp\": %u, \"capacity\": %" PRIu64 ", \"fp_rate\": %.15g, "
        "\"capacity_bits\": %" PRIu64 ", \"bits_set\": %" PRIu64 ", \"fill_ratio\": %.6g, \"count\": %.0f, "
        "\"estimated_fpr\": %.6g, \"expansion\": %u, \"subfilters\": %u, \"items_held\": %" PRIu64 ", \"seed\": %" PRId64
        ", \"ops\": %" PRIu64 ", \"bytes\": %" PRIu64
        ", \"mmap_size\": %" PRIu64 ", \"frozen\": %s, \"readonly\": %s, \"lock_recoveries\": %u}",
        f.layout, p.g.layout.k, p.g.layout.kp, p.n, p.fpr, f.bits, set, double(set) / double(f.bits), f.est, f.fpr,
        p.expansion, subs.count, ss::held_items(e), int64_t(p.seed), sh::load_ops(e->map.header()), e->map.size, e->map.size,
        ss::is_frozen(e) ? "true" : "false", e->readonly ? "true" : "false", e->map.lock().recoveries());
    PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(json)));
}

// The lookups here that the prefetching scan serves (prefetch/prefetch.hpp).
namespace sketch_pg {
void register_shared_bloom_prefetchables() {
    register_prefetchable("shared_bloom_add", PrefetchKind::shared_bloom, shared::kWrite);
    register_prefetchable("shared_bloom_contains", PrefetchKind::shared_bloom, shared::kRead);
}
}  // namespace sketch_pg
