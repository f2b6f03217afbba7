// The Bloom filter's aggregates: bloom_agg (transition, final and combine
// functions, planner support) and the transition functions of bloom_union_agg
// and bloom_intersect_agg. The helpers they share with the value's functions
// are bloom_sql.cpp's (bloom_sql_internal.hpp).
//
// Aggregates keep `bloom` itself as the transition state (a real type, so
// parallel query and Citus can combine states and ship them through the
// type's I/O). The state is mutated in place in the aggregate context. A small
// filter is a plain value: nodeAgg copies a by-reference state into aggcontext
// only when the transition function returns a different pointer
// (ExecAggTransReparent), so the first call builds the filter in the per-tuple
// context and nodeAgg copies it once; every later call scribbles on that copy.
// A filter of 128 kB or more is the buffered expanded object of agg_state.hpp:
// item hashes are inserted 256 at a time with prefetching, and it becomes a
// plain value, hashes applied, whenever it leaves the aggregate.
#include <cstdio>
#include <cstring>

#include "bloom/bloom_fill.hpp"
#include "types/bloom_value.hpp"
#include "types/bloom_sql_internal.hpp"
#include "types/agg_state.hpp"
#include "capacity_warning.hpp"
#include "guard.hpp"
#include "memory/detoast_into.hpp"
#include "item_hash.hpp"
#include "item_types.hpp"

extern "C" {
#include "access/detoast.h"
}

namespace sb = sketch::bloom;
using sketch::Hash128;
using namespace sketch_pg;
using namespace sketch_pg::bloom_sql;

namespace {

struct AggCache {
    ItemHasher hasher;
    bool args_constant;  // n, fpr and layout are constants: resolved at the first row only
    bool resolved;
    int64_t n;
    double fpr;
    bool has_layout;
    char layout[128];
    sb::Geometry g;
    const sb::Ops* ops;
    // What a state of these arguments starts with. Rows of a group may ask
    // for the same geometry in other words (n 1000 and 1001): the states
    // compare its first kHeaderBytes, and record the first row's n and fpr.
    uint8_t header[sb::kSizedHeaderBytes];
};

// ---- bloom_agg's transition state for a large filter (agg_state.hpp) ----

struct BloomFilter {
    sb::Geometry g;
    const sb::Ops* ops;
    void apply(struct varlena* flat, const Hash128* hashes, size_t n) const {
        ops->insert_many(sb::span_for(g, bloom_bits(flat)), hashes, n);
    }
    void settle(struct varlena*) const {}  // apply leaves nothing pending
};
using BloomAggState = BufferedState<BloomFilter>;

sb::Sizing sizing_of(const AggCache* c) { return sb::Sizing{uint64_t(c->n), c->fpr}; }

[[noreturn]] void mixed_args_error() {
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("bloom_agg: n, fpr and layout must be the same for every row of a group")));
    pg_unreachable();
}

// The geometry of bloom_agg's n, fpr and layout arguments in this row,
// through the call site's cache.
void resolve_agg_args(FunctionCallInfo fcinfo, AggCache* c) {
    if (PG_ARGISNULL(2) || PG_ARGISNULL(3))
        ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("bloom_agg: n and fpr must not be null")));
    const int64_t n = PG_GETARG_INT64(2);
    const double fpr = PG_GETARG_FLOAT8(3);
    const bool has_layout = PG_NARGS() > 4 && !PG_ARGISNULL(4);
    bool same = c->resolved && c->n == n && c->fpr == fpr && c->has_layout == has_layout;
    const char* layout = nullptr;
    if (has_layout) {
        text* t = PG_GETARG_TEXT_PP(4);
        const size_t len = VARSIZE_ANY_EXHDR(t);
        same = same && len < sizeof c->layout && std::memcmp(c->layout, VARDATA_ANY(t), len) == 0 && c->layout[len] == '\0';
        if (!same) layout = text_to_cstring(t);
    }
    if (same) return;
    c->resolved = false;
    c->g = resolve_geometry(n, fpr, layout);
    c->ops = &guarded([&]() -> const sb::Ops& { return sb::ops_for(c->g.layout); });
    c->n = n;
    c->fpr = fpr;
    c->has_layout = has_layout;
    c->layout[0] = '\0';
    if (layout != nullptr) snprintf(c->layout, sizeof c->layout, "%s", layout);
    sb::write_header(c->header, c->g, 0, c->hasher.item, sb::Sizing{uint64_t(n), fpr});
    c->resolved = true;
}

// The cache of the call site when fn_extra has none (its first row; every
// row under Citus, which call_site covers), set up at its first row (a call
// site is an aggregate's or not for good: checked then).
AggCache* agg_cache(FunctionCallInfo fcinfo) {
    const CallSite site = call_site(fcinfo, sizeof(AggCache));
    auto* c = static_cast<AggCache*>(site.cache);
    if (unlikely(c->hasher.typid == InvalidOid)) {
        aggregate_context(fcinfo, "bloom_agg_trans");
        c->args_constant = aggregate_args_constant(fcinfo, 1);
        item_hasher_init(&c->hasher, call_arg_type(fcinfo->flinfo, 1), site.mcxt);
    }
    return c;
}

}  // namespace

struct varlena* sketch_pg::bloom_sql::agg_state_value(Datum d) {
    if (!BloomAggState::is_one(d)) return nullptr;
    BloomAggState* st = BloomAggState::of(d);
    st->settle();
    return st->flat;
}

// bloom_agg(item, n, fpr [, layout]) transition.
SKETCH_FUNCTION(bloom_agg_trans) {
    auto* c = static_cast<AggCache*>(fcinfo->flinfo->fn_extra);
    if (unlikely(c == nullptr)) c = agg_cache(fcinfo);
    if (!c->args_constant || unlikely(!c->resolved)) resolve_agg_args(fcinfo, c);
    const Datum state_datum = PG_GETARG_DATUM(0);
    if (!PG_ARGISNULL(0) && BloomAggState::is_one(state_datum)) {
        // Large filter: buffer the hash.
        BloomAggState* st = BloomAggState::of(state_datum);
        if (!c->args_constant && std::memcmp(bloom_header(st->flat), c->header, sb::kHeaderBytes) != 0) mixed_args_error();
        if (!PG_ARGISNULL(1)) st->push(hash_item(&c->hasher, PG_GETARG_DATUM(1), 0));
        PG_RETURN_DATUM(state_datum);
    }
    struct varlena* state;
    if (PG_ARGISNULL(0)) {
        if (c->g.bytes >= kBufferFromBytes) {
            BloomAggState* st =
                BloomAggState::create(aggregate_context(fcinfo, "bloom_agg_trans"), "bloom_agg state", bloom_plain_size(c->g, sizing_of(c)));
            st->filter = BloomFilter{c->g, c->ops};
            std::memcpy(bloom_header(st->flat), c->header, sb::kSizedHeaderBytes);
            if (!PG_ARGISNULL(1)) st->push(hash_item(&c->hasher, PG_GETARG_DATUM(1), 0));
            PG_RETURN_DATUM(st->datum());
        }
        // Built in the per-tuple context; nodeAgg copies it into aggcontext once.
        state = bloom_value_new(c->g, 0, c->hasher.item, sizing_of(c));
    } else {
        // A small filter: the executor's own copy in the aggregate context, updated in place.
        state = reinterpret_cast<struct varlena*>(DatumGetPointer(state_datum));
        if (VARATT_IS_EXTENDED(state)) state = detoast_large(state_datum);
        // Every state of a call site with constant arguments was made by it.
        if (!c->args_constant && std::memcmp(bloom_header(state), c->header, sb::kHeaderBytes) != 0) mixed_args_error();
    }
    if (!PG_ARGISNULL(1)) c->ops->add_one(sb::span_for(c->g, bloom_bits(state)), hash_item(&c->hasher, PG_GETARG_DATUM(1), 0));
    PG_RETURN_POINTER(state);
}

// Warns when the filter bloom_agg built is past the n and fpr it was given,
// which it records (capacity_warning.hpp), read from all its bits (one pass).
static void warn_past_capacity(struct varlena* v) {
    const Opened o = inspect(v);
    if (!o.sizing.known()) return;  // (a state of another build)
    const sketch::FillEstimate fill = sb::fill(o.g, sb::count_bits(bloom_bits(o.v), o.g.bytes));
    warn_past_capacity(nullptr, {"bloom_agg", "a Bloom filter", kPastCapacityHint, fill, false, o.sizing.n, o.sizing.fpr});
}

// A large filter's state as a plain bloom (agg_state.hpp: BufferedState::finish);
// a small one is already plain.
SKETCH_FUNCTION(bloom_agg_final) {
    if (PG_ARGISNULL(0)) PG_RETURN_NULL();
    struct varlena* out = BloomAggState::is_one(PG_GETARG_DATUM(0)) ? BloomAggState::of(PG_GETARG_DATUM(0))->finish(fcinfo)
                                                                     : detoast_large(PG_GETARG_DATUM(0));
    warn_past_capacity(out);
    PG_RETURN_POINTER(out);
}

// The bytes of bloom_agg's state for the aggregate's arguments (item, n, fpr
// [, layout]) when they are constants the state can be made of, else 0.
static size_t bloom_agg_state_bytes(List* args) {
    const Const* n = aggregate_const_arg(args, 1);
    const Const* fpr = aggregate_const_arg(args, 2);
    const Const* layout = aggregate_const_arg(args, 3);
    if (n == nullptr || fpr == nullptr || (list_length(args) > 3 && layout == nullptr)) return 0;
    const char* spec = layout != nullptr ? TextDatumGetCString(layout->constvalue) : nullptr;
    try {
        const int64_t items = DatumGetInt64(n->constvalue);
        const double rate = DatumGetFloat8(fpr->constvalue);
        return bloom_plain_size(geometry_of(items, rate, spec), sb::Sizing{uint64_t(items), rate});
    } catch (...) {
        return 0;  // the aggregate reports it when it runs
    }
}

// Planner support of bloom_agg_combine: what a parallel plan pays to move the
// partial states (agg_state.hpp).
SKETCH_FUNCTION(bloom_agg_combine_support) { return partial_state_cost(fcinfo, bloom_agg_state_bytes); }

// bloom_agg's combine function, and bloom_union_agg's and
// bloom_intersect_agg's transition and combine functions: the second argument
// OR-ed (AND-ed) into the state. The state starts as the first input (a
// partial state, a stored filter: copied into aggcontext by nodeAgg) and is
// then modified in place; a large one goes on as an expanded state
// (agg_state.hpp), which the executor keeps where it is: a plain one it would
// copy into its own memory after this call, and again as the result (for 13
// MB, 3,200 fresh 4 KiB pages each time).
static Datum combine_into_state(FunctionCallInfo fcinfo, void (*into)(uint8_t*, const uint8_t*, uint64_t),
                                const char* fn, const char* what) {
    MemoryContext aggcontext = aggregate_context(fcinfo, fn);
    const Datum state = PG_GETARG_DATUM(0);
    Datum result = state;
    BloomAggState* made = nullptr;  // the expanded state made of a large plain one
    struct varlena* v;
    if (BloomAggState::is_one(state)) {
        v = BloomAggState::of(state)->flat;
    } else if (toast_raw_datum_size(state) >= kSizedBloomBitsOffset + kBufferFromBytes + sb::kTailPad) {
        made = BloomAggState::create_copy(aggcontext, "bloom combined state", state);  // detoasted straight in
        v = made->flat;
        result = made->datum();
    } else {
        v = detoast_large(state);
        result = PointerGetDatum(v);
    }
    Opened a = inspect(v);
    Opened b = open_value(PG_GETARG_DATUM(1));
    check_compatible(a, b, what);
    if (!a.item.known() && b.item.known()) sb::write_header(bloom_header(a.v), a.g, a.seed, b.item, a.sizing);
    if (made != nullptr)
        made->filter = BloomFilter{a.g, &guarded([&]() -> const sb::Ops& { return sb::ops_for(a.g.layout); })};
    into(bloom_bits(a.v), bloom_bits(b.v), a.g.bytes);
    PG_RETURN_DATUM(result);
}

SKETCH_FUNCTION(bloom_agg_combine) { return combine_into_state(fcinfo, sb::union_into, "bloom_agg_combine", "combine"); }

SKETCH_FUNCTION(bloom_union_trans) { return combine_into_state(fcinfo, sb::union_into, "bloom_union_trans", "union"); }
SKETCH_FUNCTION(bloom_intersect_trans) {
    return combine_into_state(fcinfo, sb::intersect_into, "bloom_intersect_trans", "intersect");
}
