// Shared counting Bloom filters: the cbf core's raw-span operations run on
// the object's mapped counters, of either layout (cbf_layout.hpp).
//   add:                shared lock + the item's stripe + add_atomic (classic:
//                       CAS per counter byte; block: CAS per word of the line)
//   contains, count_of: no lock (atomic loads); frozen objects: plain reads
//   remove, clear, merge, snapshot: exclusive lock
// Items are hashed (which may raise an ERROR) before any lock is taken, and
// nothing between lock and unlock can raise one.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "cbf/cbf.hpp"
#include "cbf/cbf_layout.hpp"
#include "cbf/cbf_format.hpp"
#include "cbf/shared_cbf_format.hpp"
#include "array_items.hpp"
#include "guard.hpp"
#include "prefetch/prefetch.hpp"
#include "shared_objects/filters/shared_capacity.hpp"
#include "shared_objects/filters/shared_items.hpp"
#include "shared_objects/registry/shared_registry.hpp"
#include "shared_objects/filters/subfilter_adds.hpp"
#include "shared_objects/transactional/transactional_adds.hpp"

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

// The layout's name, as cbf_stats shows it: into a buffer, so that no C++
// string is alive when an error is raised after.
void layout_name(const cbf::Layout& l, char (&out)[64]) noexcept {
    try {
        strlcpy(out, cbf::format_layout(l).c_str(), sizeof out);
    } catch (...) {
        strlcpy(out, "?", sizeof out);
    }
}

void describe(const uint8_t* blob, uint32_t len, ss::GeometryInfo* out) {
    scf::Description d;
    if (!scf::describe(blob, len, &d)) return;
    out->capacity = int64(d.capacity);
    out->fpr = d.fpr;
    out->expansion = int32(d.expansion);
    layout_name(d.layout, out->layout);
    out->m = int64(d.m);
    out->k = int32(d.k);
}

}  // namespace

void sketch_pg::shared::register_shared_cbf_kind() {
    ss::register_pg_kind(sh::Kind::cbf, scf::validate, describe, nullptr, scf::grown_payload);
}

namespace {

// The geometry validated when the file was mapped (sh::Mapping::fixed).
cbf::Geometry geometry(const ss::Entry* e) { return from_blob(e->map.fixed.geometry); }
sh::Series series_of(const ss::Entry* e) {
    return ss::cached_series(e, [e] { return scf::series_of(e->map.fixed.geometry, e->map.fixed.geometry_len); });
}

ss::Entry* open_arg(FunctionCallInfo fcinfo, uint8 need) {
    return ss::open_cached(fcinfo, PG_GETARG_TEXT_PP(0), kCbf, need);
}

// The sub-filters the entry maps, the oldest first (one for an object that
// has not grown). Every one hashes with the first's seed.
struct Filters {
    const scf::Subfilter* subs;
    uint32_t count;
    uint8_t* payload;
    uint32_t fullest = 0;  // the sub-filter that holds the most items
    const cbf::Geometry& g(uint32_t i) const { return subs[i].g; }
    uint8_t* counters(uint32_t i) const { return payload + subs[i].offset; }
    uint32_t newest() const { return count - 1; }
};

Filters filters_of(ss::Entry* e) {
    const scf::Subfilter* subs = ss::subfilter_table<scf::Subfilter>(
        e, [&](uint32_t count) { return scf::subfilters(geometry(e), series_of(e), count); });
    const uint32_t count = e->map.subfilters;
    return Filters{subs, count, e->map.payload(), sh::fullest_subfilter(series_of(e), count, ss::held_items(e))};
}

// Reads while adds may run: the fullest sub-filter first, then the others,
// the newest first (as shared Bloom filters do).
bool contains_atomic(const Filters& f, const sketch::Hash128& h) {
    if (cbf::contains_atomic(f.g(f.fullest), f.counters(f.fullest), h)) return true;
    for (uint32_t i = f.count; i-- > 0;)
        if (i != f.fullest && cbf::contains_atomic(f.g(i), f.counters(i), h)) return true;
    return false;
}
// The item's count: the sum over the sub-filters (each add went to one).
int32 count_of_atomic(const Filters& f, const sketch::Hash128& h) {
    int64 n = 0;
    for (uint32_t i = 0; i < f.count; ++i) n += cbf::count_of_atomic(f.g(i), f.counters(i), h);
    return int32(std::min<int64>(n, PG_INT32_MAX));
}
// The same on a frozen object, or under the exclusive lock.
bool contains(const Filters& f, const sketch::Hash128& h) {
    for (uint32_t i = f.count; i-- > 0;)
        if (cbf::contains(f.g(i), f.counters(i), h)) return true;
    return false;
}
int32 count_of(const Filters& f, const sketch::Hash128& h) {
    int64 n = 0;
    for (uint32_t i = 0; i < f.count; ++i) n += cbf::count_of(f.g(i), f.counters(i), h);
    return int32(std::min<int64>(n, PG_INT32_MAX));
}
// An add (under the item's stripe): into the oldest sub-filter that has the
// item already, else into sub-filter `into`; new when none had it. So every
// add of an item goes where its first add went (or where it was a false
// positive then), and a remove knows where to take it from (remove, below).
bool add_atomic(const Filters& f, uint32_t into, const sketch::Hash128& h) {
    for (uint32_t i = 0; i < f.count; ++i)
        if (i != into && cbf::contains_atomic(f.g(i), f.counters(i), h)) {
            cbf::add_atomic(f.g(i), f.counters(i), h);
            return false;
        }
    return cbf::add_atomic(f.g(into), f.counters(into), h);
}

// Adds n hashed items whose room starts at `position` in the series s: add
// j goes into the sub-filter of position + j (sh::subfilter_at; the newest
// but for a batch that filled older ones: every add takes room), the
// counters of the sub-filter the batch starts in loaded ahead. Returns the
// new ones. view() gives the sub-filters e maps (ss::add_following_growth).
template <typename View>
int64 add_placed(ss::Entry* e, View view, const sh::Series& s, uint64_t position, const sketch::Hash128* hashes,
                 int n) {
    return ss::add_following_growth(e, view, hashes, n, [&](const Filters& f, const sketch::Hash128* batch, int count, int* done) {
        const uint32_t first = sh::subfilter_at(s, f.count, position);
        return ss::add_hashes_shared(
            e, batch, count,
            [&](const sketch::Hash128& x) { return add_atomic(f, sh::subfilter_at(s, f.count, position++), x); },
            [&](const sketch::Hash128& x) { cbf::prefetch(f.g(first), f.counters(first), x); }, done);
    });
}

// A remove (under the exclusive lock): from the oldest sub-filter that has
// the item, where its adds went (add_atomic). Taking it from another one
// would take counters of the items added there, which would then be missed.
bool remove(const Filters& f, const sketch::Hash128& h) {
    for (uint32_t i = 0; i < f.count; ++i)
        if (cbf::contains(f.g(i), f.counters(i), h)) return cbf::remove(f.g(i), f.counters(i), h);
    return false;
}

// Raises 0A000 for what a cbf value cannot hold: an object of several
// sub-filters. Called with the count seen under the exclusive lock.
void refuse_grown(const ss::Entry* e, uint32_t count, const char* what) {
    if (count <= 1) return;
    ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                    errmsg("cannot %s shared object \"%s\": it has grown to %u sub-filters", what, e->name, count),
                    errdetail("A cbf value is one array of counters; the object's items are spread over its "
                              "sub-filters."),
                    errhint("Create the object with a capacity for all its items, or with expansion => 0, to "
                            "move it to and from values.")));
}

bool create_with(const char* name, const cbf::Geometry& g, uint32_t expansion, const uint8_t* counters,
                 bool if_not_exists = false) {
    const scf::StoredGeometry s = scf::to_stored(g, expansion);
    return ss::create_object(name, sh::Kind::cbf, reinterpret_cast<const uint8_t*>(&s), sizeof s, g.counter_bytes(),
                             counters, if_not_exists);
}

// At commit, the transaction's adds (transactional_adds.hpp); each one took
// room. The commit adds to the newest sub-filter it can map.
uint64 apply_adds(ss::Entry* e, const sketch::Hash128* hashes, int n) {
    ss::CommitSubfilters<scf::Subfilter> table;
    const auto view = [&] {
        table.follow(e, [&](uint32_t count) { return scf::subfilters(geometry(e), series_of(e), count); });
        return Filters{table.subs(), table.count(), e->map.payload()};
    };
    ss::follow_growth_quietly(e);
    if (view().count == 0) return 0;
    add_placed(e, view, series_of(e), ss::committed_batch_start(e, n), hashes, n);
    return uint64(n);
}

void copy_of(const ss::Entry* e, uint32 sub, sh::SubfilterCopy* copy, uint64* offset) {
    const scf::Subfilter s = sketch_pg::guarded([&] { return scf::subfilters(geometry(e), series_of(e), sub + 1)[sub]; });
    *copy = sh::SubfilterCopy::of_cbf(s.g);
    *offset = s.offset;
}

constexpr ss::AddOps kAddOps{apply_adds, series_of, true, copy_of};

// Adds n items at once (not transactionally), room for each reserved first.
// Returns the ones that were new.
int64 add_now(ss::Entry* e, const sketch::Hash128* hashes, int n) {
    const uint64_t position = ss::reserve_room(e, series_of(e), uint64(n));  // may grow the object
    return add_placed(e, [e] { return filters_of(e); }, series_of(e), position, hashes, n);
}

bool add_in_transaction(ss::Entry* e, const sketch::Hash128& h) {
    // (after a wait for another adder, whose add may have grown the object)
    const auto committed = [&](const sketch::Hash128& x) {
        ss::follow_growth(e);
        return contains_atomic(filters_of(e), x);
    };
    return ss::add_in_transaction(e, h, ss::lookup_of(committed), kAddOps);
}

}  // namespace

bool sketch_pg::shared_cbf_target(const char* name, int len, uint8 need, PrefetchTarget* t, MoreTargets* more) {
    ss::Entry* e = ss::find_opened(name, len, kCbf, need);
    if (e == nullptr) return false;
    const auto target_of = [&](const scf::Subfilter& sub, PrefetchTarget* x) {
        x->ops = nullptr;
        x->cbf = sub.g;
        x->span.bits = e->map.payload() + sub.offset;
        x->bytes = x->cbf.counter_bytes();
        x->seed = x->cbf.seed;
        x->object = e;
    };
    if (e->subs != nullptr && e->subs_count == e->map.subfilters) {
        const auto* subs = static_cast<const scf::Subfilter*>(e->subs);
        subfilter_targets(
            e->map.subfilters, sh::fullest_subfilter(series_of(e), e->map.subfilters, ss::held_items(e)),
            [&](uint32_t i, PrefetchTarget* x) { target_of(subs[i], x); }, t, more);
    } else {
        target_of(scf::Subfilter{geometry(e), 0}, t);
        more->n = 0;
    }
    return true;
}

// shared_cbf_create's arguments name, capacity, fpr, layout (at
// layout_arg; NULL or absent: classic, the sizing of every filter made
// before layouts) and expansion (after it) make an object; false when the
// name is taken and if_not_exists. 0.1.0's definitions, until the update,
// pass neither layout nor expansion: an argument not passed is never read.
static bool create_from_args(FunctionCallInfo fcinfo, int layout_arg, bool if_not_exists) {
    char name[64];
    ss::checked_name(PG_GETARG_TEXT_PP(0), name);
    const int64 capacity = PG_GETARG_INT64(1);
    const double fpr = PG_GETARG_FLOAT8(2);
    const char* layout = PG_NARGS() > layout_arg && !PG_ARGISNULL(layout_arg)
                             ? text_to_cstring(PG_GETARG_TEXT_PP(layout_arg))
                             : nullptr;
    const int32 expansion = ss::expansion_arg(fcinfo, layout_arg + 1);
    cbf::Geometry g = sketch_pg::guarded([&] {
        sh::check_expansion(expansion);
        const cbf::Layout l = layout != nullptr ? cbf::parse_layout(layout) : cbf::Layout{};
        const cbf::Geometry asked = cbf::geometry_for(capacity, fpr, l);  // checks the arguments
        if (expansion == 0) return asked;
        // a scaling object's first sub-filter has its share of the rate
        const sh::Series s{uint64_t(capacity), fpr, uint32_t(expansion)};
        return cbf::geometry_for(capacity, scf::first_fpr(s), l);
    });
    return create_with(name, g, uint32_t(expansion), nullptr, if_not_exists);
}

SKETCH_FUNCTION(shared_cbf_create) {
    if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2) || ss::expansion_arg_is_null(fcinfo, 4)) PG_RETURN_NULL();
    create_from_args(fcinfo, 3, false);
    PG_RETURN_VOID();
}

// shared_cbf_create(name, capacity, fpr, if_not_exists [, layout, expansion]): whether it created.
SKETCH_FUNCTION(shared_cbf_create_if_not_exists) {
    if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(3) || ss::expansion_arg_is_null(fcinfo, 5))
        PG_RETURN_NULL();
    PG_RETURN_BOOL(create_from_args(fcinfo, 4, PG_GETARG_BOOL(3)));
}

SKETCH_FUNCTION(shared_cbf_create_from) {
    char name[64];
    ss::checked_name(PG_GETARG_TEXT_PP(0), name);
    varlena* v = sketch_pg::detoast_large(PG_GETARG_DATUM(1));
    cbf::View view = sketch_pg::guarded([&] {
        return cbf::read_value(reinterpret_cast<uint8_t*>(VARDATA(v)), VARSIZE(v) - VARHDRSZ, kValueMaxCounters,
                               sketch::Errc::corrupted);
    });
    create_with(name, view.g, sh::kDefaultExpansion, view.counters);
    ss::record_object_items(ss::open_object(name, kCbf, ss::kWrite), view.item, "create a shared object");
    PG_RETURN_VOID();
}

SKETCH_FUNCTION(shared_cbf_add) {
    ss::Entry* e = ss::open_unless_null(fcinfo, kCbf, ss::kWrite);
    if (e == nullptr) PG_RETURN_NULL();
    ss::check_mutable(e);
    ss::check_object_items(fcinfo, e, 1, sketch_pg::ItemUse::add, false, "shared_cbf_add_many");
    const Filters f = filters_of(e);
    const sketch::Hash128 h = ss::hash_arg(fcinfo, 1, f.g(0).seed);
    cbf::prefetch(f.g(f.newest()), f.counters(f.newest()), h);  // the misses overlap the lock acquisition
    if (ss::transactional_arg(fcinfo, 2)) PG_RETURN_BOOL(add_in_transaction(e, h));
    PG_RETURN_BOOL(add_now(e, &h, 1) != 0);
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
        for (int i = 0; i < count; ++i) fresh += add_in_transaction(e, hashes[i]);
        PG_RETURN_INT64(fresh);
    }
    // one lock acquisition for the whole batch
    PG_RETURN_INT64(add_now(e, hashes, count));
}

SKETCH_FUNCTION(shared_cbf_contains) {
    ss::Entry* e = ss::open_unless_null(fcinfo, kCbf, ss::kRead);
    if (e == nullptr) PG_RETURN_NULL();
    ss::check_object_items(fcinfo, e, 1, sketch_pg::ItemUse::lookup, false, "shared_cbf_contains_many");
    const Filters f = filters_of(e);
    const sketch::Hash128 h = ss::hash_arg(fcinfo, 1, f.g(0).seed);
    if (ss::is_frozen(e)) PG_RETURN_BOOL(contains(f, h));
    PG_RETURN_BOOL(contains_atomic(f, h) || ss::pending_in_transaction(e, h));
}

// shared_cbf_contains_many(name, items): shared_cbf_contains of each element.
SKETCH_FUNCTION(shared_cbf_contains_many) {
    ss::Entry* e = ss::open_unless_null(fcinfo, kCbf, ss::kRead);
    if (e == nullptr) PG_RETURN_NULL();
    ss::check_object_items(fcinfo, e, 1, sketch_pg::ItemUse::lookup, true, nullptr);
    const Filters f = filters_of(e);
    ArrayType* items = PG_GETARG_ARRAYTYPE_P(1);
    const sketch_pg::ItemHasher* hasher = ss::cached_hasher_for_elements(fcinfo, items);
    const bool frozen = ss::is_frozen(e);
    PG_RETURN_ARRAYTYPE_P(sketch_pg::answers_for(items, [&](Datum item) {
        const sketch::Hash128 h = sketch_pg::hash_item(hasher, item, f.g(0).seed);
        if (frozen) return contains(f, h);
        return contains_atomic(f, h) || ss::pending_in_transaction(e, h);
    }));
}

SKETCH_FUNCTION(shared_cbf_count_of) {
    ss::Entry* e = ss::open_unless_null(fcinfo, kCbf, ss::kRead);
    if (e == nullptr) PG_RETURN_NULL();
    ss::check_object_items(fcinfo, e, 1, sketch_pg::ItemUse::lookup, false, nullptr);
    const Filters f = filters_of(e);
    const sketch::Hash128 h = ss::hash_arg(fcinfo, 1, f.g(0).seed);
    if (ss::is_frozen(e)) PG_RETURN_INT32(count_of(f, h));
    PG_RETURN_INT32(count_of_atomic(f, h));
}

SKETCH_FUNCTION(shared_cbf_remove) {
    ss::Entry* e = ss::open_unless_null(fcinfo, kCbf, ss::kWrite);
    if (e == nullptr) PG_RETURN_NULL();
    ss::check_mutable(e);
    ss::check_object_items(fcinfo, e, 1, sketch_pg::ItemUse::lookup, false, nullptr);
    const sketch::Hash128 h = ss::hash_arg(fcinfo, 1, geometry(e).seed);
    bool removed = false;
    for (;;) {  // the table of every sub-filter mapped when the lock is held
        const Filters f = filters_of(e);
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

SKETCH_FUNCTION(shared_cbf_clear) {
    ss::Entry* e = open_arg(fcinfo, ss::kWrite);
    ss::check_mutable(e);
    // every sub-filter is cleared; the object keeps them (and their room)
    ss::with_every_subfilter<ss::Locked::to_change>(e, [&] {
        memset(e->map.payload(), 0, e->map.size - sh::kHeaderBytes);
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
    refuse_grown(e, e->map.subfilters, "merge a cbf into");
    char ours[64], theirs[64];
    layout_name(cbf::layout_of(g), ours);
    layout_name(cbf::layout_of(other.g), theirs);
    if (g.scheme != other.g.scheme)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("cannot merge a cbf of layout %s into shared object \"%s\" (layout %s)", theirs, e->name,
                               ours),
                        errhint("Both must have the same layout, capacity and fpr.")));
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
                        series_of(e).scaling()
                            ? errhint("The object scales: its first sub-filter is sized for fpr %g, half the %g asked "
                                      "for. Build the value with cbf_empty(%llu, %g%s%s%s).",
                                      g.fpr, series_of(e).fpr, (unsigned long long)g.capacity, g.fpr,
                                      g.blocked() ? ", '" : "", g.blocked() ? ours : "", g.blocked() ? "'" : "")
                            : errhint("Both must be created with the same capacity and fpr.")));
    ss::record_object_items(e, other.item, psprintf("merge a counting Bloom filter into shared object \"%s\"", e->name));
    uint32_t subs = 1;
    ss::with_every_subfilter<ss::Locked::to_change>(e, [&] {
        subs = e->map.subfilters;
        if (subs == 1) cbf::merge(g, e->map.payload(), other.counters);
    });
    refuse_grown(e, subs, "merge a cbf into");
    PG_RETURN_VOID();
}

SKETCH_FUNCTION(shared_cbf_count) {
    ss::Entry* e = open_arg(fcinfo, ss::kRead);
    const Filters f = filters_of(e);
    double estimate = 0;
    for (uint32_t i = 0; i < f.count; ++i) estimate += cbf::estimate_count(f.g(i), cbf::counters_set(f.g(i), f.counters(i)));
    PG_RETURN_INT64(int64(std::llround(estimate)));
}

SKETCH_FUNCTION(shared_cbf_snapshot) {
    ss::Entry* e = open_arg(fcinfo, ss::kRead);
    const cbf::Geometry g = geometry(e);
    if (g.m > kValueMaxCounters)
        ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                        errmsg("shared object \"%s\" has %llu counters; a cbf value holds at most %llu", e->name,
                               (unsigned long long)g.m, (unsigned long long)kValueMaxCounters)));
    refuse_grown(e, e->map.subfilters, "take a snapshot of");
    const size_t len = VARHDRSZ + cbf::value_bytes(g);
    auto* out = static_cast<varlena*>(sketch_pg::palloc_large(len));  // before the lock: palloc may raise
    SET_VARSIZE(out, len);
    auto* bytes = reinterpret_cast<uint8_t*>(VARDATA(out));
    cbf::write_header(bytes, g, ss::object_items(e));
    uint32_t subs = 1;
    ss::with_every_subfilter<ss::Locked::to_read>(e, [&] {
        subs = e->map.subfilters;
        if (subs == 1) memcpy(bytes + cbf::kHeaderBytes, e->map.payload(), g.counter_bytes());
    });
    refuse_grown(e, subs, "take a snapshot of");
    PG_RETURN_POINTER(out);
}

SKETCH_FUNCTION(shared_cbf_stats) {
    ss::Entry* e = open_arg(fcinfo, ss::kRead);
    const cbf::Geometry g = geometry(e);
    const sh::Series series = series_of(e);
    const Filters f = filters_of(e);
    // Sums over the sub-filters; their rates combine (shared/scaling.hpp).
    uint64_t set = 0, saturated = 0, m = 0;
    double estimate = 0, rates[sh::kMaxSubfilters];
    for (uint32_t i = 0; i < f.count; ++i) {
        const uint64_t set_i = cbf::counters_set(f.g(i), f.counters(i));
        set += set_i;
        saturated += cbf::counters_saturated(f.g(i), f.counters(i));
        m += f.g(i).m;
        estimate += cbf::estimate_count(f.g(i), set_i);
        rates[i] = cbf::fill_fpr(f.g(i), f.counters(i), set_i);
    }
    char layout[64];
    layout_name(cbf::layout_of(g), layout);
    char* fpr = float8out_internal(series.fpr);
    char* fill = float8out_internal(double(set) / double(m));
    char* estimated_fpr = float8out_internal(sh::combined_fpr(rates, f.count));
    char* json = psprintf(
        "{\"layout\": \"%s\", \"capacity\": %llu, \"fp_rate\": %s, \"counters\": %llu, \"hashes\": %u, \"counters_set\": %llu, "
        "\"count\": %lld, \"fill_ratio\": %s, \"saturated\": %llu, \"ops\": %llu, \"bytes\": %llu, "
        "\"mmap_size\": %llu, \"frozen\": %s, \"readonly\": %s, \"lock_recoveries\": %u, \"expansion\": %u, "
        "\"subfilters\": %u, \"items_held\": %llu, \"estimated_fpr\": %s}",
        layout, (unsigned long long)g.capacity, fpr, (unsigned long long)m, g.k, (unsigned long long)set,
        (long long)std::llround(estimate), fill, (unsigned long long)saturated,
        (unsigned long long)sh::load_ops(e->map.header()), (unsigned long long)e->map.size,
        (unsigned long long)e->map.size, ss::is_frozen(e) ? "true" : "false", e->readonly ? "true" : "false",
        e->map.lock().recoveries(), series.expansion, f.count, (unsigned long long)ss::held_items(e),
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
