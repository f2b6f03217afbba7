// The operations that shared Bloom filters and shared counting Bloom filters
// share, written once and parameterized by the kind: create, add, add_many,
// contains, contains_many, clear, merge, snapshot, the commit of
// transactional adds, the prefetching scan's targets and the description
// for the shared_objects view. A kind's file (shared_bloom_sql.cpp,
// shared_cbf_sql.cpp) gives its traits K and what only it has (stats; a
// counting filter's count_of and remove); SHARED_FILTER_FUNCTIONS defines
// its SQL functions from these templates.
//
// The traits K start from KindBase (the kind, its types, whether every add
// counts) and give:
//   kWords                   the words of its hints and errors (KindWords)
//   Value                    a value argument, read (its .item class among others)
//   params(e)                K::Params (Params): what a call reads of the
//                            object's geometry once; may throw
//   read_series(e)           the object's series (of the geometry validated
//                            when the file was mapped: it does not fail)
//   subfilters(e, count)     e's first count sub-filters; may throw
//   contains_concurrent, contains_frozen, add_atomic (g, bits, h)
//   prefetcher(params, g, bits)   a callable that starts loading an item's
//                            lines of that sub-filter; never throws
//   copy_shape(g)            the shape of a private copy of a sub-filter
//   size_for(n, fpr, layout, expansion)   the first sub-filter's geometry
//   create(name, g, expansion, n, fpr, from, if_not_exists)
//   read_value(fcinfo, argno), check_mergeable(e, v), merge_into(e, v)
//   check_snapshot(e), new_value(e, &payload, &bytes)
//   describe_geometry(blob, len, &d)   for the view
//   validate, grown_payload  the core's functions for the kind's files
//   target(params, sub, bits, target)   a prefetching scan's target
//
// Items are hashed before any lock is taken; nothing under a lock raises.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "guard.hpp"
#include "prefetch/prefetch.hpp"
#include "shared_objects/filters/shared_capacity.hpp"
#include "shared_objects/filters/shared_items.hpp"
#include "shared_objects/filters/subfilter_adds.hpp"
#include "shared_objects/registry/shared_registry.hpp"
#include "shared_objects/transactional/transactional_adds.hpp"
#include "array_items.hpp"
#include "jsonb_object.hpp"
#include "layout_name.hpp"

namespace sketch_pg {
namespace shared_filter {

namespace sh = sketch::shared;
namespace ss = sketch_pg::shared;
using sketch_pg::layout_name;
using sketch_pg::LayoutName;

// The start of a kind's traits: the kind; its sub-filters (.g, .offset)
// and the description of its geometry; whether every add counts (a counting
// filter: each add raises counters and takes room, and goes where the
// item's first add went) or only a new item's (a Bloom filter); and the
// kernels a call looks up once (Kernels, or nothing).
struct NoKernels {};
template <sh::Kind kind, typename SubT, typename DescriptionT, bool counts_every_add, typename Kernels = NoKernels>
struct KindBase {
    static constexpr sh::Kind kKind = kind;
    static constexpr bool kCountsEveryAdd = counts_every_add;
    using Sub = SubT;
    using Geometry = decltype(SubT::g);
    using Description = DescriptionT;
    // What a call reads of the object's geometry once: the seed its items
    // hash with, the first sub-filter's geometry, the kernels.
    struct Params {
        uint64_t seed = 0;
        Geometry first;
        Kernels kernels{};
    };
};

// The words of a kind's hints and errors.
struct KindWords {
    const char* add_many;       // the array forms of add and contains, named in hints
    const char* contains_many;
    const char* value_shape;    // why a grown object is no value
    const char* merge_what;     // "merge ... into" shared object "name": refused
    const char* merge_items;    // "merge ... into" shared object "name": its items' class
};

template <typename K>
constexpr uint32 kind_of() {
    return uint32(K::kKind);
}

// The sub-filters the entry maps, the oldest first (one for an object that
// has not grown). Every one hashes with the first's seed.
template <typename K>
struct Filters {
    const typename K::Sub* subs;
    uint32_t count;
    uint8_t* payload;
    uint32_t fullest = 0;  // the sub-filter that holds the most items
    const typename K::Geometry& g(uint32_t i) const { return subs[i].g; }
    uint8_t* bits(uint32_t i) const { return payload + subs[i].offset; }
    uint32_t newest() const { return count - 1; }
};

// The object's series, read once per mapping.
template <typename K>
sh::Series series(const ss::Entry* e) {
    return ss::cached_series(e, [e] { return K::read_series(e); });
}

template <typename K>
Filters<K> filters_of(ss::Entry* e) {
    const auto* subs =
        ss::subfilter_table<typename K::Sub>(e, [&](uint32_t count) { return K::subfilters(e, count); });
    const uint32_t count = e->map.subfilters;
    return Filters<K>{subs, count, e->map.payload(), sh::fullest_subfilter(series<K>(e), count, ss::held_items(e))};
}

// A lookup looks where a held item most likely is first (the fullest
// sub-filter), then in the others, the newest first. Concurrent: while adds
// may run; else on a frozen object (the plain kernels).
template <typename K, bool frozen>
bool contains(const Filters<K>& f, const sketch::Hash128& h) {
    const auto in = [&](uint32_t i) {
        return frozen ? K::contains_frozen(f.g(i), f.bits(i), h) : K::contains_concurrent(f.g(i), f.bits(i), h);
    };
    if (in(f.fullest)) return true;
    for (uint32_t i = f.count; i-- > 0;)
        if (i != f.fullest && in(i)) return true;
    return false;
}

// An add under the item's stripe into sub-filter `into`, new only when no
// sub-filter has the item. A kind that counts every add puts an item that
// another sub-filter has into the oldest such one, where its first add went
// (or where it was a false positive then), so that a remove knows where to
// take it from.
template <typename K>
bool add_atomic(const Filters<K>& f, uint32_t into, const sketch::Hash128& h) {
    for (uint32_t i = 0; i < f.count; ++i)
        if (i != into && K::contains_concurrent(f.g(i), f.bits(i), h)) {
            if (K::kCountsEveryAdd) K::add_atomic(f.g(i), f.bits(i), h);
            return false;
        }
    return K::add_atomic(f.g(into), f.bits(into), h);
}

// Adds n hashed items whose room starts at `position` in the series s: each
// one that takes room goes into the sub-filter of its position
// (sh::subfilter_at; the newest but for a batch that filled older ones), the
// lines of the one the batch starts in loaded ahead. Returns the new ones.
// view() gives the sub-filters e maps (ss::add_following_growth).
template <typename K, typename View>
int64 add_placed(ss::Entry* e, View view, const typename K::Params& p, const sh::Series& s, uint64_t position,
                 const sketch::Hash128* hashes, int n) {
    const auto add_batch = [&](const Filters<K>& f, const sketch::Hash128* batch, int count, int* done) {
        const uint32_t first = sh::subfilter_at(s, f.count, position);
        const auto prefetch = K::prefetcher(p, f.g(first), f.bits(first));
        const auto insert = [&](const sketch::Hash128& x) {
            const bool added = add_atomic(f, sh::subfilter_at(s, f.count, position), x);
            position += K::kCountsEveryAdd ? 1 : uint64_t(added);
            return added;
        };
        return ss::add_hashes_shared(e, batch, count, insert, prefetch, done);
    };
    return ss::add_following_growth(e, view, hashes, n, add_batch);
}

// At commit, the transaction's adds (transactional_adds.hpp), into the
// newest sub-filter the commit can map. The geometry parsed when the object
// was opened parses again; nothing may escape here. Returns the adds that
// took room.
template <typename K>
uint64 apply_adds(ss::Entry* e, const sketch::Hash128* hashes, int n) {
    typename K::Params p;
    try {
        p = K::params(e);
    } catch (...) {
        return 0;
    }
    ss::CommitSubfilters<typename K::Sub> table;
    const auto view = [&] {
        table.follow(e, [&](uint32_t count) { return K::subfilters(e, count); });
        return Filters<K>{table.subs(), table.count(), e->map.payload()};
    };
    ss::follow_growth_quietly(e);
    if (view().count == 0) return 0;
    const int64 fresh = add_placed<K>(e, view, p, series<K>(e), ss::committed_batch_start(e, n), hashes, n);
    return K::kCountsEveryAdd ? uint64(n) : uint64(fresh);
}

template <typename K>
void copy_of(const ss::Entry* e, uint32 sub, sh::SubfilterCopy* copy, uint64* offset) {
    const typename K::Sub s = guarded([&] { return K::subfilters(e, sub + 1)[sub]; });
    *copy = K::copy_shape(s.g);
    *offset = s.offset;
}

template <typename K>
inline constexpr ss::AddOps kAddOps{apply_adds<K>, series<K>, K::kCountsEveryAdd, copy_of<K>};

// Adds n items at once (not transactionally): room for all of them is
// reserved first, what the adds did not use is given back after. Returns
// the new ones.
template <typename K>
int64 add_now(ss::Entry* e, const typename K::Params& p, const sketch::Hash128* hashes, int n) {
    const sh::Series s = series<K>(e);
    const uint64_t position = ss::reserve_room(e, s, uint64(n));  // may grow the object
    const int64 fresh = add_placed<K>(e, [e] { return filters_of<K>(e); }, p, s, position, hashes, n);
    if (!K::kCountsEveryAdd) ss::settle_room(e, uint64(n), uint64(fresh));
    return fresh;
}

template <typename K>
bool add_in_transaction(ss::Entry* e, const sketch::Hash128& h) {
    // (after a wait for another adder, whose add may have grown the object)
    const auto committed = [&](const sketch::Hash128& x) {
        ss::follow_growth(e);
        return contains<K, false>(filters_of<K>(e), x);
    };
    return ss::add_in_transaction(e, h, ss::lookup_of(committed), kAddOps<K>);
}

// Raises 0A000 for what a value cannot hold: an object of several
// sub-filters. Called with the count seen under the exclusive lock.
template <typename K>
void refuse_grown(const ss::Entry* e, uint32_t count, const char* what) {
    if (count <= 1) return;
    ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                    errmsg("cannot %s shared object \"%s\": it has grown to %u sub-filters", what, e->name, count),
                    errdetail("%s", K::kWords.value_shape),
                    errhint("Create the object with a capacity for all its items, or with expansion => 0, to "
                            "move it to and from values.")));
}

// The create's arguments name, capacity, fpr, layout (at layout_arg; NULL
// or absent: the kind's default) and expansion (after it) make an object;
// false when the name is taken and if_not_exists. Definitions of a version
// before layouts pass neither layout nor expansion: an argument not passed
// is never read.
template <typename K>
bool create_from_args(FunctionCallInfo fcinfo, int layout_arg, bool if_not_exists) {
    char name[64];
    ss::checked_name(PG_GETARG_TEXT_PP(0), name);
    const int64 n = PG_GETARG_INT64(1);
    const double fpr = PG_GETARG_FLOAT8(2);
    const char* layout = PG_NARGS() > layout_arg && !PG_ARGISNULL(layout_arg)
                             ? text_to_cstring(PG_GETARG_TEXT_PP(layout_arg))
                             : nullptr;
    const int32 expansion = ss::expansion_arg(fcinfo, layout_arg + 1);
    const typename K::Geometry g = guarded([&] {
        sh::check_expansion(expansion);
        return K::size_for(n, fpr, layout, expansion);
    });
    return K::create(name, g, uint32_t(expansion), uint64_t(n), fpr, nullptr, if_not_exists);
}

// ---- the SQL functions ----

// The object of argument 0 for a change by an item or value (ss::
// open_unless_null: nullptr when an argument is NULL), refused if it is
// frozen or read-only, or the transaction is read-only.
template <typename K>
ss::Entry* open_to_change(FunctionCallInfo fcinfo) {
    ss::Entry* e = ss::open_unless_null(fcinfo, kind_of<K>(), ss::kWrite);
    if (e != nullptr) ss::check_mutable(e);
    return e;
}

// create(name, capacity, fpr [, layout, expansion])
template <typename K>
Datum create(FunctionCallInfo fcinfo) {
    if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2) || ss::expansion_arg_is_null(fcinfo, 4)) PG_RETURN_NULL();
    create_from_args<K>(fcinfo, 3, false);
    PG_RETURN_VOID();
}

// create(name, capacity, fpr, if_not_exists [, layout, expansion]): whether it created.
template <typename K>
Datum create_if_not_exists(FunctionCallInfo fcinfo) {
    if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(3) || ss::expansion_arg_is_null(fcinfo, 5))
        PG_RETURN_NULL();
    PG_RETURN_BOOL(create_from_args<K>(fcinfo, 4, PG_GETARG_BOOL(3)));
}

// create_from(name, value): an object seeded from a value. Its capacity
// stays unknown when the value records none; a scaling object's first
// sub-filter takes only its share of the rate (subfilter_fpr), so growing
// from a value sized for all of it would pass the rate asked for.
template <typename K>
Datum create_from(FunctionCallInfo fcinfo) {
    char name[64];
    ss::checked_name(PG_GETARG_TEXT_PP(0), name);
    const typename K::Value v = K::read_value(fcinfo, 1);
    K::create(name, v.g, sh::kDefaultExpansion, 0, 0, &v, false);
    ss::record_object_items(ss::open_object(name, kind_of<K>(), ss::kWrite), v.item, "create a shared object");
    PG_RETURN_VOID();
}

// add(name, item [, transactional])
template <typename K>
Datum add(FunctionCallInfo fcinfo) {
    ss::Entry* e = open_to_change<K>(fcinfo);
    if (e == nullptr) PG_RETURN_NULL();
    ss::check_object_items(fcinfo, e, 1, ItemUse::add, false, K::kWords.add_many);
    const typename K::Params p = guarded([&] { return K::params(e); });
    const sketch::Hash128 h = ss::hash_arg(fcinfo, 1, p.seed);
    const Filters<K> f = filters_of<K>(e);
    K::prefetcher(p, f.g(f.newest()), f.bits(f.newest()))(h);  // the misses overlap the lock acquisition
    if (ss::transactional_arg(fcinfo, 2)) PG_RETURN_BOOL(add_in_transaction<K>(e, h));
    PG_RETURN_BOOL(add_now<K>(e, p, &h, 1) != 0);
}

// add_many(name, items [, transactional]): how many were probably new.
template <typename K>
Datum add_many(FunctionCallInfo fcinfo) {
    ss::Entry* e = open_to_change<K>(fcinfo);
    if (e == nullptr) PG_RETURN_NULL();
    ss::check_object_items(fcinfo, e, 1, ItemUse::add, true, nullptr);
    const typename K::Params p = guarded([&] { return K::params(e); });
    int count;
    const sketch::Hash128* hashes = ss::hash_array_arg(fcinfo, 1, p.seed, &count);
    int64 fresh = 0;
    if (ss::transactional_arg(fcinfo, 2)) {
        for (int i = 0; i < count; ++i) fresh += add_in_transaction<K>(e, hashes[i]);
        PG_RETURN_INT64(fresh);
    }
    // one lock acquisition for the whole batch
    PG_RETURN_INT64(add_now<K>(e, p, hashes, count));
}

// Whether the object, or this transaction's pending adds, probably hold h.
template <typename K>
bool holds(const ss::Entry* e, const Filters<K>& f, bool frozen, const sketch::Hash128& h) {
    if (frozen) return contains<K, true>(f, h);
    return contains<K, false>(f, h) || ss::pending_in_transaction(e, h);
}

// contains(name, item)
template <typename K>
Datum contains(FunctionCallInfo fcinfo) {
    ss::Entry* e = ss::open_unless_null(fcinfo, kind_of<K>(), ss::kRead);
    if (e == nullptr) PG_RETURN_NULL();
    ss::check_object_items(fcinfo, e, 1, ItemUse::lookup, false, K::kWords.contains_many);
    const typename K::Params p = guarded([&] { return K::params(e); });
    const sketch::Hash128 h = ss::hash_arg(fcinfo, 1, p.seed);
    PG_RETURN_BOOL(holds<K>(e, filters_of<K>(e), ss::is_frozen(e), h));
}

// contains_many(name, items): contains of each element.
template <typename K>
Datum contains_many(FunctionCallInfo fcinfo) {
    ss::Entry* e = ss::open_unless_null(fcinfo, kind_of<K>(), ss::kRead);
    if (e == nullptr) PG_RETURN_NULL();
    ss::check_object_items(fcinfo, e, 1, ItemUse::lookup, true, nullptr);
    const typename K::Params p = guarded([&] { return K::params(e); });
    ArrayType* items = PG_GETARG_ARRAYTYPE_P(1);
    const ItemHasher* hasher = ss::cached_hasher_for_elements(fcinfo, items);
    const bool frozen = ss::is_frozen(e);
    const Filters<K> f = filters_of<K>(e);
    PG_RETURN_ARRAYTYPE_P(
        answers_for(items, [&](Datum item) { return holds<K>(e, f, frozen, hash_item(hasher, item, p.seed)); }));
}

// clear(name): every sub-filter is cleared; the object keeps them (and their room).
template <typename K>
Datum clear(FunctionCallInfo fcinfo) {
    ss::Entry* e = ss::open_cached(fcinfo, PG_GETARG_TEXT_PP(0), kind_of<K>(), ss::kWrite);
    ss::check_mutable(e);
    ss::with_every_subfilter<ss::Locked::to_change>(e, [&] {
        memset(e->map.payload(), 0, e->map.size - sh::kHeaderBytes);
        sh::clear_items(e->map.header());
    });
    PG_RETURN_VOID();
}

// merge(name, value): the value's items into an object of one sub-filter
// and the same geometry.
template <typename K>
Datum merge(FunctionCallInfo fcinfo) {
    ss::Entry* e = open_to_change<K>(fcinfo);
    if (e == nullptr) PG_RETURN_NULL();
    const typename K::Value v = K::read_value(fcinfo, 1);
    refuse_grown<K>(e, e->map.subfilters, K::kWords.merge_what);
    K::check_mergeable(e, v);
    ss::record_object_items(e, v.item, psprintf("%s shared object \"%s\"", K::kWords.merge_items, e->name));
    uint32_t count = 1;
    ss::with_every_subfilter<ss::Locked::to_change>(e, [&] {
        count = e->map.subfilters;
        if (count == 1) K::merge_into(e, v);
    });
    refuse_grown<K>(e, count, K::kWords.merge_what);
    PG_RETURN_VOID();
}

// snapshot(name): the object as a value, while it has one sub-filter.
template <typename K>
Datum snapshot(FunctionCallInfo fcinfo) {
    ss::Entry* e = ss::open_cached(fcinfo, PG_GETARG_TEXT_PP(0), kind_of<K>(), ss::kRead);
    K::check_snapshot(e);
    refuse_grown<K>(e, e->map.subfilters, "take a snapshot of");
    uint8_t* payload;
    uint64_t bytes;
    struct varlena* out = K::new_value(e, &payload, &bytes);  // before the lock: palloc may raise
    uint32_t count = 1;
    ss::with_every_subfilter<ss::Locked::to_read>(e, [&] {
        count = e->map.subfilters;
        if (count == 1) memcpy(payload, e->map.payload(), bytes);
    });
    refuse_grown<K>(e, count, "take a snapshot of");
    PG_RETURN_POINTER(out);
}

// ---- for the registry and the prefetching scan ----

// The geometry as the shared_objects view shows it.
template <typename K>
void describe(const uint8_t* blob, uint32_t len, ss::GeometryInfo* out) {
    typename K::Description d;
    if (!K::describe_geometry(blob, len, &d)) return;
    out->capacity = int64(d.capacity);
    out->fpr = d.fpr;
    out->expansion = int32(d.expansion);
    strlcpy(out->layout, layout_name(d.layout).text, sizeof out->layout);
    out->m = int64(d.m);
    out->k = int32(d.k);
}

// What the stats of both kinds show, besides a kind's own figures: the
// numbers a kind prints in its own precision come as text.
struct FilterStats {
    const char* layout;
    uint64 capacity;
    const char* fp_rate;
    const char* fill_ratio;
    const char* count;
    const char* estimated_fpr;
    uint32 expansion;
    uint32 subfilters;
};

// Adds s and the figures of the object's file (add_file_stats) to json, a
// kind's stats with its own figures, and makes the jsonb.
inline Datum finish_stats(const ss::Entry* e, const FilterStats& s, JsonbObject* json) {
    json->string("layout", s.layout);
    json->number("capacity", s.capacity);
    json->number("fp_rate", s.fp_rate);
    json->number("fill_ratio", s.fill_ratio);
    json->number("count", s.count);
    json->number("estimated_fpr", s.estimated_fpr);
    json->number("expansion", s.expansion);
    json->number("subfilters", s.subfilters);
    json->number("items_held", uint64(ss::held_items(e)));
    ss::add_file_stats(e, json);
    return json->finish();
}

template <typename K>
void register_kind() {
    ss::register_pg_kind(K::kKind, K::validate, describe<K>, nullptr, K::grown_payload);
}

// The prefetching scan's targets in the object, if this backend has opened
// it (prefetch/prefetch.hpp): its sub-filters as subfilter_targets orders
// them, a grown object's only when the entry has its table of them.
template <typename K>
bool prefetch_target(const char* name, int len, uint8 need, PrefetchTarget* t, MoreTargets* more) {
    ss::Entry* e = ss::find_opened(name, len, kind_of<K>(), need);
    if (e == nullptr) return false;
    typename K::Params p;
    try {
        p = K::params(e);
    } catch (...) {
        return false;  // the function reports it
    }
    const auto target_of = [&](const typename K::Sub& sub, PrefetchTarget* x) {
        K::target(p, sub, e->map.payload() + sub.offset, x);
        x->seed = p.seed;
        x->object = e;
    };
    if (e->subs != nullptr && e->subs_count == e->map.subfilters) {
        const auto* subs = static_cast<const typename K::Sub*>(e->subs);
        subfilter_targets(
            e->map.subfilters, sh::fullest_subfilter(series<K>(e), e->map.subfilters, ss::held_items(e)),
            [&](uint32_t i, PrefetchTarget* x) { target_of(subs[i], x); }, t, more);
    } else {
        target_of(typename K::Sub{p.first, 0}, t);
        more->n = 0;
    }
    return true;
}

}  // namespace shared_filter
}  // namespace sketch_pg

// Defines what both filter kinds have, for the kind of traits K: the SQL
// functions prefix_create, _create_if_not_exists, _create_from, _add,
// _add_many, _contains, _contains_many, _clear, _merge and _snapshot; the
// kind's registration (shared::register_prefix_kind) and its prefetching
// scan's targets (prefix_target).
#define SHARED_FILTER_FUNCTIONS(prefix, K)                                                                        \
    void sketch_pg::shared::register_##prefix##_kind() { sketch_pg::shared_filter::register_kind<K>(); }         \
    bool sketch_pg::prefix##_target(const char* name, int len, uint8 need, PrefetchTarget* t, MoreTargets* more) { \
        return sketch_pg::shared_filter::prefetch_target<K>(name, len, need, t, more);                            \
    }                                                                                                             \
    SKETCH_FUNCTION(prefix##_create) { return sketch_pg::shared_filter::create<K>(fcinfo); }                        \
    SKETCH_FUNCTION(prefix##_create_if_not_exists) {                                                              \
        return sketch_pg::shared_filter::create_if_not_exists<K>(fcinfo);                                         \
    }                                                                                                             \
    SKETCH_FUNCTION(prefix##_create_from) { return sketch_pg::shared_filter::create_from<K>(fcinfo); }              \
    SKETCH_FUNCTION(prefix##_add) { return sketch_pg::shared_filter::add<K>(fcinfo); }                              \
    SKETCH_FUNCTION(prefix##_add_many) { return sketch_pg::shared_filter::add_many<K>(fcinfo); }                    \
    SKETCH_FUNCTION(prefix##_contains) { return sketch_pg::shared_filter::contains<K>(fcinfo); }                    \
    SKETCH_FUNCTION(prefix##_contains_many) { return sketch_pg::shared_filter::contains_many<K>(fcinfo); }          \
    SKETCH_FUNCTION(prefix##_clear) { return sketch_pg::shared_filter::clear<K>(fcinfo); }                          \
    SKETCH_FUNCTION(prefix##_merge) { return sketch_pg::shared_filter::merge<K>(fcinfo); }                          \
    SKETCH_FUNCTION(prefix##_snapshot) { return sketch_pg::shared_filter::snapshot<K>(fcinfo); }
