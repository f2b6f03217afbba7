// The counting Bloom filter's aggregates: cbf_agg (its transition state,
// final and combine functions, planner support) and cbf_union_agg's
// transition function. What they share with the value's functions is
// cbf_sql.cpp's (cbf_sql_internal.hpp).
//
// Aggregates keep a `cbf` (a real type, so Citus can split them) as their
// transition value and update it in place. For a filter of 256 KiB of
// counters or more, cbf_agg's state is the buffered expanded object of
// agg_state.hpp (item hashes applied 256 at a time with prefetching, or, from
// 16 MiB of counters, gathered by region and applied a region at a time;
// flattened into an ordinary cbf value, every item applied, whenever it
// leaves the aggregate; the final function returns a copy on huge pages, see
// BufferedState::finish). Smaller filters, the state of cbf_union_agg, and
// cbf_agg's in the combine step are flat cbf values that AggCheckCallContext
// lets us modify in place.
#include <cmath>
#include <cstdio>

#include "cbf/cbf.hpp"
#include "cbf/cbf_format.hpp"
#include "cbf/cbf_regions.hpp"
#include "types/agg_state.hpp"
#include "types/cbf_sql_internal.hpp"
#include "guard.hpp"
#include "memory/detoast_into.hpp"
#include "memory/huge_pages.hpp"
#include "memory/reusable_memory.hpp"
#include "item_hash.hpp"
#include "item_types.hpp"

extern "C" {
#include "access/detoast.h"
#include "utils/expandeddatum.h"
#include "utils/float.h"
#include "utils/memutils.h"
}

using namespace sketch_pg::cbf_sql;

namespace {

// ---- cbf_agg's transition state for a large filter (agg_state.hpp) ----

inline uint8_t* counters_of(varlena* flat) { return payload(flat) + cbf::kHeaderBytes; }

// Counters of this many bytes or more are far beyond the caches: there
// cbf_agg gathers its adds by region (cbf_regions.hpp), which turns the
// random memory accesses of each item (k lines classic, one line block) into
// sequential passes; below it, where the last-level cache holds much of the
// filter, the random accesses cost no more (bench/core/cbf_regions_bench
// compares the two).
constexpr size_t kRegionsMinBytes = size_t(16) << 20;

struct CbfFilter {
    cbf::Geometry g;
    MemoryContext cxt;         // the state's own: holds the region batch
    uint64_t items;            // items added before the region batch started
    cbf::RegionBatch regions;  // ready() once started

    void apply(varlena* flat, const sketch::Hash128* hashes, size_t n) {
        if (regions.ready()) {
            regions.add(counters_of(flat), hashes, n);
            return;
        }
        cbf::add_many(g, counters_of(flat), hashes, n);
        const uint64_t before = items;
        items += n;
        if (g.counter_bytes() >= kRegionsMinBytes && before < g.m / 1024 && items >= g.m / 1024)
            start_regions();
    }

    void settle(varlena* flat) {
        if (regions.ready()) regions.apply(counters_of(flat));
    }

    // The region batch, once the state has taken m / 1024 items: below
    // that, add_many's random accesses cost less than the batch's pass over
    // all the counters, and small groups need no batch memory. A batch's
    // entries take a quarter of the counter bytes (16 MiB for 64 MiB).
    // Without the memory, add_many goes on.
    void start_regions() {
        const size_t items_per_batch = cbf::RegionBatch::items_for(g, g.counter_bytes() / 4);
        const size_t bytes = cbf::RegionBatch::memory_bytes(g, items_per_batch);
        void* memory = sketch_pg::alloc_reusable(cxt, bytes, 0, true);
        if (memory != nullptr) regions.init(g, memory, items_per_batch);
    }
};
using CbfAggState = sketch_pg::BufferedState<CbfFilter>;

inline uint8_t* counters_of(CbfAggState* st) { return counters_of(st->flat); }

CbfAggState* set_up(CbfAggState* st, const cbf::Geometry& g) {
    st->filter.g = g;
    st->filter.cxt = st->hdr.eoh_context;
    return st;
}

// A new, empty cbf_agg state of geometry g for items of class item.
CbfAggState* new_agg_state(MemoryContext aggcontext, const cbf::Geometry& g, sketch::ItemClass item) {
    CbfAggState* st = CbfAggState::create(aggcontext, "cbf_agg state", VARHDRSZ + cbf::value_bytes(g));
    cbf::write_header(payload(st->flat), g, item);
    return set_up(st, g);
}

// A cbf_agg state holding the cbf d, detoasted straight into it and validated.
CbfAggState* agg_state_of(MemoryContext aggcontext, Datum d) {
    CbfAggState* st = CbfAggState::create_copy(aggcontext, "cbf_agg state", d);
    return set_up(st, view_of(st->flat).g);
}

// The transition value, writable in place: the executor's own 4-byte-header
// copy when it is one; otherwise (the first input of cbf_union_agg may be a
// TOAST pointer or short-header value) a plain copy the executor then adopts.
varlena* own_state(Datum d) {
    auto* v = reinterpret_cast<varlena*>(DatumGetPointer(d));
    if (VARATT_IS_4B_U(v)) return v;
    return sketch_pg::detoast_large_copy(d);
}

}  // namespace

namespace {

// Filters with fewer counter bytes than this stay flat in the aggregate: they
// fit the caches, so batching gains nothing, and a flat state costs no more
// memory than the value (many small groups stay small).
constexpr size_t kExpandedMinBytes = size_t(256) << 10;

// The per-row checks of a flat state: the header is validated once per state,
// then only compared.
cbf::View flat_state_view(CallCache* cache, varlena* state) {
    const uint8_t* header = payload(state);
    if (state == cache->state && VARSIZE(state) == cache->state_size &&
        memcmp(header, cache->state_header, cbf::kHeaderBytes) == 0)
        return cache->state_view;
    const cbf::View view = view_of(state);
    cache->state = state;
    cache->state_size = VARSIZE(state);
    memcpy(cache->state_header, header, cbf::kHeaderBytes);
    cache->state_view = view;
    return view;
}

[[noreturn]] void args_vary_error() {
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("cbf_agg capacity, fpr and layout must be the same for every row of a group")));
    pg_unreachable();
}

// The row's layout argument names the state's layout: parsed again only when
// its text differs from the last row's (a constant's never does).
inline bool same_layout(FunctionCallInfo fcinfo, CallCache* cache, const cbf::Geometry& g) {
    if (PG_NARGS() < 5) return true;  // no layout argument: the state was made without one
    const text* arg = PG_ARGISNULL(4) ? nullptr : PG_GETARG_TEXT_PP(4);
    const size_t len = arg != nullptr ? VARSIZE_ANY_EXHDR(arg) : 0;
    if (unlikely(!cache->layout_kept || arg == nullptr || len != cache->layout_len ||
                 memcmp(VARDATA_ANY(arg), cache->layout_text, len) != 0)) {
        cache->layout = layout_arg(fcinfo, 4);  // NULL: classic
        // A longer text is parsed every row; the first row's layout made the
        // state without passing here, so nothing is kept before a row has been.
        cache->layout_kept = arg != nullptr && len < sizeof cache->layout_text;
        cache->layout_len = len;
        if (cache->layout_kept) memcpy(cache->layout_text, VARDATA_ANY(arg), len);
    }
    const cbf::Layout& l = cache->layout;
    return (l.kind == cbf::LayoutKind::block) == g.blocked() && (l.k == 0 || l.k == g.k);
}

inline void check_same_geometry(FunctionCallInfo fcinfo, CallCache* cache, const cbf::Geometry& g) {
    if (unlikely(PG_ARGISNULL(2) || (PG_NARGS() >= 4 && PG_ARGISNULL(3)))) require_capacity_and_fpr(fcinfo, 2, 3);
    const bool same_capacity = static_cast<uint64_t>(PG_GETARG_INT64(2)) == g.capacity;
    const bool same_fpr = PG_NARGS() < 4 ? g.fpr == kDefaultFpr : PG_GETARG_FLOAT8(3) == g.fpr;
    if (!same_capacity || !same_fpr || !same_layout(fcinfo, cache, g)) args_vary_error();
}

// Partial states merge when their counters mean the same (compatible); those
// of one cbf_agg call must also agree on capacity and fpr, as its rows must
// (cbf_union_agg merges filters sized differently into the same counters).
void check_combinable(FunctionCallInfo fcinfo, const cbf::Geometry& into, const cbf::Geometry& other) {
    if (!into.compatible(other)) geometry_mismatch(into, other);
    if ((into.capacity != other.capacity || into.fpr != other.fpr) && sketch_pg::combining_built_states(fcinfo))
        args_vary_error();
}

}  // namespace

// cbf_agg(item, capacity [, fpr [, layout]]): not strict, so that the first row can
// create the state from capacity and fpr. NULL items are skipped.
SKETCH_FUNCTION(cbf_agg_trans) {
    // A call site is an aggregate's or not for good: checked at its first call.
    if (unlikely(fcinfo->flinfo->fn_extra == nullptr)) sketch_pg::aggregate_context(fcinfo, "cbf_agg_trans");
    CallCache* cache = call_cache(fcinfo, 1);
    const Datum state_datum = PG_GETARG_DATUM(0);
    if (!PG_ARGISNULL(0) && CbfAggState::is_one(state_datum)) {
        // Large filter: buffer the hash.
        CbfAggState* st = CbfAggState::of(state_datum);
        check_same_geometry(fcinfo, cache, st->filter.g);
        if (!PG_ARGISNULL(1)) st->push(item_hash(fcinfo, cache, 1, st->filter.g));
        PG_RETURN_DATUM(state_datum);
    }
    varlena* state;
    cbf::View view;
    if (PG_ARGISNULL(0)) {
        const cbf::Geometry g = geometry_from_args(fcinfo, 2, 3, 4);
        if (g.counter_bytes() >= kExpandedMinBytes) {
            CbfAggState* st = new_agg_state(sketch_pg::aggregate_context(fcinfo, "cbf_agg_trans"), g, cache->hasher.item);
            if (!PG_ARGISNULL(1)) st->push(item_hash(fcinfo, cache, 1, g));
            PG_RETURN_DATUM(st->datum());
        }
        // In the per-row context: the executor copies a new state into the
        // aggregate context itself (it does for any changed pointer).
        state = new_value(g, cache->hasher.item);
        view = view_of(state);
    } else {
        // Small filter: the executor's own copy in the aggregate context, updated in place.
        state = own_state(state_datum);
        view = flat_state_view(cache, state);
        check_same_geometry(fcinfo, cache, view.g);
    }
    if (!PG_ARGISNULL(1)) cbf::add(view.g, view.counters, item_hash(fcinfo, cache, 1, view.g));
    PG_RETURN_POINTER(state);
}

// Warns when a filter built by the aggregate is past its capacity
// (capacity_warning.hpp), read from all its counters (one pass; m is a power
// of two, so a filter often holds more than its capacity before that). Once
// per value: the aggregate's rows add to it silently.
static void warn_past_capacity(varlena* v) {
    const cbf::View view = view_of(v);
    sketch_pg::warn_past_capacity(nullptr, {"cbf_agg", "a counting Bloom filter", kPastCapacityHint,
                                            cbf::fill(view.g, view.counters), false, view.g.capacity, view.g.fpr});
}

// The state as a plain cbf (agg_state.hpp: BufferedState::finish).
SKETCH_FUNCTION(cbf_agg_final) {
    sketch_pg::aggregate_context(fcinfo, "cbf_agg_final");
    varlena* out = CbfAggState::is_one(PG_GETARG_DATUM(0))
                       ? CbfAggState::of(PG_GETARG_DATUM(0))->finish(fcinfo)
                       : PG_DETOAST_DATUM(PG_GETARG_DATUM(0));  // already flat (after combine), maybe short-headed
    warn_past_capacity(out);
    PG_RETURN_POINTER(out);
}

// Counter-wise saturating merge of the second argument into the first (the
// state): cbf_agg's combine function, and cbf_union_agg's transition and
// combine function. `name` is the one the SQL function has.
static Datum merge_into_state(FunctionCallInfo fcinfo, const char* name) {
    MemoryContext aggcontext = sketch_pg::aggregate_context(fcinfo, name);
    uint8_t* into_counters;
    cbf::Geometry into_g;
    varlena* into_flat;  // holds the header
    Datum result;
    if (CbfAggState::is_one(PG_GETARG_DATUM(0))) {
        CbfAggState* st = CbfAggState::of(PG_GETARG_DATUM(0));
        into_g = st->filter.g;
        into_counters = counters_of(st);
        into_flat = st->flat;
        result = PG_GETARG_DATUM(0);
    } else if (toast_raw_datum_size(PG_GETARG_DATUM(0)) >= VARHDRSZ + cbf::kHeaderBytes + kExpandedMinBytes) {
        // A large state goes on as an expanded one, which the executor keeps
        // where it is; a plain one it would copy into its own memory after
        // this call, and again as the result (for 64 MiB, 16,384 fresh 4 KiB
        // pages each time).
        CbfAggState* st = agg_state_of(aggcontext, PG_GETARG_DATUM(0));
        into_g = st->filter.g;
        into_counters = counters_of(st);
        into_flat = st->flat;
        result = st->datum();
    } else {
        varlena* state = own_state(PG_GETARG_DATUM(0));
        const cbf::View into = view_of(state);
        into_g = into.g;
        into_counters = into.counters;
        into_flat = state;
        result = PointerGetDatum(state);
    }
    const Datum other_datum = PG_GETARG_DATUM(1);
    const bool other_expanded = CbfAggState::is_one(other_datum);
    varlena* other = other_expanded ? CbfAggState::of(other_datum)->flat : sketch_pg::detoast_large(other_datum);
    const cbf::View from = view_of(other);
    const sketch::ItemClass into_item = view_of(into_flat).item;
    sketch_pg::check_classes_meet(into_item, from.item, "merge counting Bloom filters");
    check_combinable(fcinfo, into_g, from.g);
    if (other_expanded) CbfAggState::of(other_datum)->settle();
    if (!into_item.known() && from.item.known()) cbf::write_header(payload(into_flat), into_g, from.item);
    cbf::merge(into_g, into_counters, from.counters);
    PG_RETURN_DATUM(result);
}

SKETCH_FUNCTION(cbf_agg_combine) { return merge_into_state(fcinfo, "cbf_agg_combine"); }
SKETCH_FUNCTION(cbf_union_trans) { return merge_into_state(fcinfo, "cbf_union_trans"); }

// The bytes of cbf_agg's state for the aggregate's arguments (item, capacity
// [, fpr [, layout]]) when they are constants the state can be made of, else 0.
static size_t cbf_agg_state_bytes(List* args) {
    const Const* capacity = sketch_pg::aggregate_const_arg(args, 1);
    const Const* fpr = sketch_pg::aggregate_const_arg(args, 2);
    const Const* layout = sketch_pg::aggregate_const_arg(args, 3);
    if (capacity == nullptr || (list_length(args) > 2 && fpr == nullptr) || (list_length(args) > 3 && layout == nullptr))
        return 0;
    const char* spec = layout != nullptr ? text_to_cstring(DatumGetTextPP(layout->constvalue)) : "classic";
    try {
        const cbf::Geometry g = cbf::geometry_for(DatumGetInt64(capacity->constvalue),
                                                  fpr != nullptr ? DatumGetFloat8(fpr->constvalue) : kDefaultFpr,
                                                  cbf::parse_layout(spec), kValueMaxCounters);
        return VARHDRSZ + cbf::value_bytes(g);
    } catch (...) {
        return 0;  // the aggregate reports it when it runs
    }
}

// Planner support of cbf_agg_combine: what a parallel plan pays to move the
// partial states (agg_state.hpp).
SKETCH_FUNCTION(cbf_agg_combine_support) { return sketch_pg::partial_state_cost(fcinfo, cbf_agg_state_bytes); }
