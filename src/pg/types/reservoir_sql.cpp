// The reservoir aggregates (reservoir_sample, reservoir_agg and their
// support functions: the expanded state, seeds) and the functions on values.
// The value's forms: reservoir_value.hpp; its I/O: reservoir_io.cpp.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#include "hash.hpp"
#include "reservoir/reservoir.hpp"
#include "reservoir/reservoir_format.hpp"
#include "item_hash.hpp"
#include "types/agg_state.hpp"
#include "types/reservoir_value.hpp"
#include "guard.hpp"
#include "module.hpp"
#include "pg.hpp"

extern "C" {
#include "access/parallel.h"
#include "access/tupmacs.h"
#include "catalog/catalog.h"
#include "catalog/pg_type.h"
#include "catalog/pg_type_d.h"
#include "libpq/pqformat.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "parser/parse_type.h"
#include "utils/array.h"
#include "utils/datum.h"
#include "utils/expandeddatum.h"
#include "utils/float.h"
#include "utils/guc.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
#include "utils/typcache.h"
}

using namespace reservoir_pg;

namespace {

// ---- seeds ----

// Per call site (fn_extra of the aggregate support function): a counter of
// the states it created, and the element type it last looked up.
struct CallCache {
    uint64 states;
    Oid type;
    Elem elem;
};

CallCache* call_cache(FunctionCallInfo fcinfo) {
    return static_cast<CallCache*>(sketch_pg::call_site(fcinfo, sizeof(CallCache)).cache);
}

uint64 backend_entropy() {
    static bool ready = false;
    static uint64 entropy = 0;
    if (!ready) {
        if (!pg_strong_random(&entropy, sizeof entropy))
            entropy = static_cast<uint64>(GetCurrentTimestamp()) ^ (static_cast<uint64>(MyProcPid) << 32);
        ready = true;
    }
    return entropy;
}

// The seed of a new state. With sketchshare.seed set: a function of the
// setting, the process (leader or parallel worker number), the role of the
// function (salt) and how many states this call site created before, so a
// serial plan over the same rows repeats itself and every state (every
// group, every worker) draws its own stream. Unset: fresh entropy.
uint64 state_seed(FunctionCallInfo fcinfo, uint64 salt) {
    const char* setting = sketch_pg::seed_setting;
    if (setting == nullptr || setting[0] == '\0') {
        static uint64 states = 0;
        return rsv::mix_seed(backend_entropy(), ++states, salt);
    }
    CallCache* cache = call_cache(fcinfo);
    const sketch::Hash128 h = sketch::hash_bytes(setting, strlen(setting));
    return rsv::mix_seed(h.lo ^ (salt * 0x9e3779b97f4a7c15ULL), static_cast<uint64>(ParallelWorkerNumber + 1),
                         ++cache->states);
}

constexpr uint64 kSaltSample = 1;
constexpr uint64 kSaltMerge = 2;

// ---- the expanded state ----

Expanded* expanded_create(MemoryContext parent, const Elem& elem, bool weighted, int32 k, uint64 seed) {
    MemoryContext cxt = AllocSetContextCreate(parent, "reservoir", ALLOCSET_START_SMALL_SIZES);
    Expanded* r = static_cast<Expanded*>(MemoryContextAllocZero(cxt, sizeof(Expanded)));
    EOH_init_header(&r->hdr, &kMethods, cxt);
    r->elem = elem;
    r->weighted = weighted;
    r->k = k;
    new (&r->rng) rsv::Rng(seed);
    new (&r->uniform) rsv::UniformSampler(k);
    new (&r->wsampler) rsv::WeightedSampler(k);
    r->capacity = k < 8 ? k : 8;
    r->items = static_cast<Datum*>(MemoryContextAlloc(cxt, sizeof(Datum) * r->capacity));
    if (weighted) {
        r->keys = static_cast<double*>(MemoryContextAlloc(cxt, sizeof(double) * r->capacity));
        r->heap = static_cast<int32*>(MemoryContextAlloc(cxt, sizeof(int32) * r->capacity));
    }
    return r;
}

void expanded_grow(Expanded* r) {
    const int32 capacity = r->capacity > r->k / 2 ? r->k : r->capacity * 2;
    r->items = static_cast<Datum*>(repalloc(r->items, sizeof(Datum) * capacity));
    if (r->weighted) {
        r->keys = static_cast<double*>(repalloc(r->keys, sizeof(double) * capacity));
        r->heap = static_cast<int32*>(repalloc(r->heap, sizeof(int32) * capacity));
    }
    r->capacity = capacity;
}

// A copy of the value in the state's context: detoasted (short headers
// kept), values of any length kept whole.
Datum copy_item(Expanded* r, Datum value) {
    const Elem& e = r->elem;
    if (e.byval) return value;
    MemoryContext old = MemoryContextSwitchTo(r->hdr.eoh_context);
    Datum result;
    if (e.len == -1) {
        struct varlena* p = reinterpret_cast<struct varlena*>(DatumGetPointer(value));
        struct varlena* d = pg_detoast_datum_packed(p);
        if (d == p) {
            const Size len = VARSIZE_ANY(p);
            d = static_cast<struct varlena*>(palloc(len));
            memcpy(d, p, len);
        }
        result = PointerGetDatum(d);
    } else {
        result = datumCopy(value, false, e.len);
    }
    MemoryContextSwitchTo(old);
    return result;
}

void free_item(Expanded* r, Datum value) {
    if (!r->elem.byval) pfree(DatumGetPointer(value));
}

inline void expanded_add(Expanded* r, Datum value) {
    const int32 before = r->count();
    if (unlikely(before == r->capacity && before < r->k)) expanded_grow(r);
    const int64 slot = r->uniform.offer(r->rng);
    if (likely(slot < 0)) return;
    if (slot < before) free_item(r, r->items[slot]);
    r->items[slot] = copy_item(r, value);
    forget_flat_texts(r);
}

inline void expanded_add_weighted(Expanded* r, Datum value, double weight) {
    const int32 before = r->count();
    if (unlikely(before == r->capacity && before < r->k)) expanded_grow(r);
    const int64 slot = r->wsampler.offer(weight, r->rng, r->keys, r->heap);
    if (likely(slot < 0)) return;
    if (slot < before) free_item(r, r->items[slot]);
    r->items[slot] = copy_item(r, value);
    forget_flat_texts(r);
}

// Merges o into r exactly (uniform: hypergeometric split; weighted: the k
// largest keys). The result keeps min(r.k, o.k) as its k.
void expanded_merge(Expanded* r, const View& o) {
    if (o.elem.type != r->elem.type) {
        // Named in a fixed order: which side arrives first depends on the plan.
        const char* a = format_type_be(r->elem.type);
        const char* b = format_type_be(o.elem.type);
        if (strcmp(a, b) > 0) std::swap(a, b);
        ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                        errmsg("cannot merge reservoirs of different item types: %s and %s", a, b)));
    }
    if (o.weighted != r->weighted)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("cannot merge a weighted reservoir with a uniform one")));
    if (o.count == 0) return;
    forget_flat_texts(r);
    const int32 k = r->k < o.k ? r->k : o.k;
    const int32 count_a = r->count();
    const int64 seen_a = r->seen();
    if (o.seen > PG_INT64_MAX - seen_a)
        ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED), errmsg("reservoir has seen more than 2^63 items")));
    int32* take_a = static_cast<int32*>(palloc(sizeof(int32) * (count_a + 1)));
    int32* take_b = static_cast<int32*>(palloc(sizeof(int32) * (o.count + 1)));
    const Expanded* cr = r;
    rsv::MergeSplit split = sketch_pg::guarded([&] {
        if (cr->weighted) return rsv::weighted_merge(cr->keys, count_a, o.keys, o.count, k, take_a, take_b);
        return rsv::uniform_merge(seen_a, count_a, o.seen, o.count, k, r->rng, take_a, take_b);
    });
    const int32 merged = split.from_a + split.from_b;
    int32 capacity = merged > (k < 8 ? k : 8) ? merged : (k < 8 ? k : 8);
    MemoryContext cxt = r->hdr.eoh_context;
    Datum* items = static_cast<Datum*>(MemoryContextAlloc(cxt, sizeof(Datum) * capacity));
    double* keys = nullptr;
    int32* heap = nullptr;
    if (r->weighted) {
        keys = static_cast<double*>(MemoryContextAlloc(cxt, sizeof(double) * capacity));
        heap = static_cast<int32*>(MemoryContextAlloc(cxt, sizeof(int32) * capacity));
    }
    // Keep the chosen items of r (take_a is sorted), free the others.
    int32 n = 0;
    for (int32 slot = 0, t = 0; slot < count_a; ++slot) {
        if (t < split.from_a && take_a[t] == slot) {
            if (keys) keys[n] = r->keys[slot];
            items[n++] = r->items[slot];
            ++t;
        } else {
            free_item(r, r->items[slot]);
        }
    }
    for (int32 t = 0; t < split.from_b; ++t) {
        if (keys) keys[n] = o.keys[take_b[t]];
        items[n++] = copy_item(r, o.items[take_b[t]]);
    }
    pfree(r->items);
    if (r->weighted) {
        pfree(r->keys);
        pfree(r->heap);
    }
    r->items = items;
    r->keys = keys;
    r->heap = heap;
    r->capacity = capacity;
    r->k = k;
    const int64 seen = seen_a + o.seen;
    if (r->weighted) {
        for (int32 i = 0; i < n; ++i) heap[i] = i;
        rsv::build_heap(keys, heap, n);
        r->wsampler.reset_after_merge(k, seen, r->rng, keys, heap);
    } else {
        r->uniform.reset_after_merge(k, seen);
    }
    pfree(take_a);
    pfree(take_b);
}

// A new expanded state holding the reservoir v.
Expanded* expanded_from_view(MemoryContext parent, const View& v, uint64 seed) {
    Expanded* r = expanded_create(parent, v.elem, v.weighted, v.k, seed);
    expanded_merge(r, v);
    return r;
}

// The state argument ready to be modified in place: ours if it is a
// read/write expanded reservoir, else an expanded copy.
Expanded* writable_state(FunctionCallInfo fcinfo, MemoryContext aggcontext, uint64 salt) {
    Datum d = PG_GETARG_DATUM(0);
    if (DatumIsReadWriteExpandedObject(d, false, -1)) {
        ExpandedObjectHeader* eoh = DatumGetEOHP(d);
        if (eoh->eoh_methods == &kMethods) return reinterpret_cast<Expanded*>(eoh);
    }
    View v;
    view_of(d, &v);
    return expanded_from_view(aggcontext, v, state_seed(fcinfo, salt));
}

int32 checked_k(FunctionCallInfo fcinfo, int argno) {
    if (PG_ARGISNULL(argno))
        ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("reservoir size k must not be NULL")));
    const int32 k = PG_GETARG_INT32(argno);
    sketch_pg::guarded([&] { rsv::check_k(k); });
    return k;
}

Elem item_elem(FunctionCallInfo fcinfo, int argno) {
    Oid type = sketch_pg::call_arg_type(fcinfo->flinfo, argno);
    if (!OidIsValid(type))
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("could not determine the item type")));
    CallCache* cache = call_cache(fcinfo);
    if (cache->type != type) {
        // Anonymous records carry a backend-local type number: they could
        // not be read back anywhere else.
        if (get_typtype(type) == TYPTYPE_PSEUDO)
            ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                            errmsg("a reservoir cannot hold values of type %s", format_type_be(type)),
                            errhint("Cast the rows to a named composite type: ROW(a, b)::my_type.")));
        cache->elem = elem_for(type);
        cache->type = type;
    }
    return cache->elem;
}

Datum finish_state(Expanded* r) { return EOHPGetRWDatum(&r->hdr); }

}  // namespace


// ---- aggregate support functions ----

[[noreturn]] static void k_varies_error() {
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("reservoir size k must be the same for every row of a group")));
    pg_unreachable();
}

// reservoir_sample_trans(state, value, k [, weight]): also reservoir_agg's.
SKETCH_FUNCTION(reservoir_trans) {
    const bool weighted = PG_NARGS() >= 4;
    Expanded* r;
    if (likely(!PG_ARGISNULL(0))) {
        if (PG_ARGISNULL(1) || (weighted && PG_ARGISNULL(3))) PG_RETURN_DATUM(PG_GETARG_DATUM(0));
        MemoryContext aggcontext = sketch_pg::aggregate_context(fcinfo, "reservoir_sample_trans");
        r = writable_state(fcinfo, aggcontext, kSaltSample);
        if (unlikely(PG_ARGISNULL(2) || PG_GETARG_INT32(2) != r->k)) k_varies_error();
    } else {
        MemoryContext aggcontext = sketch_pg::aggregate_context(fcinfo, "reservoir_sample_trans");
        if (PG_ARGISNULL(1) || (weighted && PG_ARGISNULL(3))) PG_RETURN_NULL();
        const int32 k = checked_k(fcinfo, 2);
        r = expanded_create(aggcontext, item_elem(fcinfo, 1), weighted, k, state_seed(fcinfo, kSaltSample));
    }
    if (weighted) {
        const double weight = PG_GETARG_FLOAT8(3);
        if (unlikely(!rsv::weight_ok(weight))) sketch_pg::guarded([&] { rsv::check_weight(weight); });
        expanded_add_weighted(r, PG_GETARG_DATUM(1), weight);
    } else {
        expanded_add(r, PG_GETARG_DATUM(1));
    }
    PG_RETURN_DATUM(finish_state(r));
}

// reservoir_combine(state, state): the combine function of every aggregate
// here, and reservoir_union_agg's transition function. A union merges
// samples of any k (into the smaller); a sampling aggregate's partial states
// of different k mean that k varied between rows of the group that different
// workers or partitions saw, the transition's error.
SKETCH_FUNCTION(reservoir_combine) {
    MemoryContext aggcontext = sketch_pg::aggregate_context(fcinfo, "reservoir_combine");
    if (PG_ARGISNULL(1)) {
        if (PG_ARGISNULL(0)) PG_RETURN_NULL();
        PG_RETURN_DATUM(PG_GETARG_DATUM(0));
    }
    View other;
    view_of(PG_GETARG_DATUM(1), &other);
    Expanded* r;
    if (PG_ARGISNULL(0)) {
        r = expanded_from_view(aggcontext, other, state_seed(fcinfo, kSaltMerge));
    } else {
        r = writable_state(fcinfo, aggcontext, kSaltMerge);
        if (r->k != other.k && sketch_pg::combining_built_states(fcinfo)) k_varies_error();
        expanded_merge(r, other);
    }
    PG_RETURN_DATUM(finish_state(r));
}

// The items of v as an array, when they are of the type of argument
// `type_arg` (what the caller's array result type was resolved from); else
// 42804, with a hint showing `call` with the right type.
static ArrayType* items_as(FunctionCallInfo fcinfo, int type_arg, const View& v, const char* call) {
    const Oid wanted = sketch_pg::call_arg_type(fcinfo->flinfo, type_arg);
    if (wanted != v.elem.type)
        ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                        errmsg("the reservoir holds items of type %s, not %s", format_type_be(v.elem.type),
                               OidIsValid(wanted) ? format_type_be(wanted) : "unknown"),
                        errhint("Pass a NULL of the item type: %s.", psprintf(call, format_type_be(v.elem.type)))));
    return construct_array(v.items, v.count, v.elem.type, v.elem.len, v.elem.byval, v.elem.align);
}

// reservoir_sample's final function: the items as an array. Its result type
// is resolved from its second argument (the aggregate's value argument), so
// a direct call must name the type the reservoir holds, as reservoir_items.
SKETCH_FUNCTION(reservoir_sample_final) {
    if (PG_ARGISNULL(0)) PG_RETURN_NULL();
    View v;
    view_of(PG_GETARG_DATUM(0), &v);
    PG_RETURN_ARRAYTYPE_P(items_as(fcinfo, 1, v, "reservoir_sample_final(r, NULL::%s, k)"));
}

// reservoir_agg's and reservoir_union_agg's final function: the flat value.
SKETCH_FUNCTION(reservoir_agg_final) {
    if (PG_ARGISNULL(0)) PG_RETURN_NULL();
    Datum d = PG_GETARG_DATUM(0);
    if (is_expanded(d)) PG_RETURN_DATUM(datumCopy(d, false, -1));  // flattens
    View v;
    view_of(d, &v, false);  // validates
    PG_RETURN_DATUM(datumCopy(PointerGetDatum(PG_DETOAST_DATUM(d)), false, -1));
}

// ---- functions on values ----

SKETCH_FUNCTION(reservoir_items) {
    if (PG_ARGISNULL(0)) PG_RETURN_NULL();
    View v;
    view_of(PG_GETARG_DATUM(0), &v);
    PG_RETURN_ARRAYTYPE_P(items_as(fcinfo, 1, v, "reservoir_items(r, NULL::%s)"));
}

SKETCH_FUNCTION(reservoir_seen) {
    View v;
    view_of(PG_GETARG_DATUM(0), &v, false);
    PG_RETURN_INT64(v.seen);
}

SKETCH_FUNCTION(reservoir_count) {
    View v;
    view_of(PG_GETARG_DATUM(0), &v, false);
    PG_RETURN_INT32(v.count);
}

SKETCH_FUNCTION(reservoir_stats) {
    const Datum d = PG_GETARG_DATUM(0);
    View v;
    view_of(d, &v, false);
    const Size bytes = is_expanded(d) ? EOH_get_flat_size(DatumGetEOHP(d)) : VARSIZE_ANY(PG_DETOAST_DATUM(d));
    StringInfoData buf;
    initStringInfo(&buf);
    appendStringInfo(&buf, "{\"k\": %d, \"seen\": " INT64_FORMAT ", \"count\": %d, \"weighted\": %s, \"type\": ", v.k,
                     v.seen, v.count, v.weighted ? "true" : "false");
    escape_json(&buf, type_name_of(v.elem.type));
    appendStringInfo(&buf, ", \"bytes\": %zu", bytes);
    if (v.weighted && v.count > 0) {
        double lo = v.keys[0], hi = v.keys[0];
        for (int32 i = 1; i < v.count; ++i) {
            if (v.keys[i] < lo) lo = v.keys[i];
            if (v.keys[i] > hi) hi = v.keys[i];
        }
        appendStringInfoString(&buf, ", \"min_log_key\": ");
        append_log_key(&buf, lo);
        appendStringInfoString(&buf, ", \"max_log_key\": ");
        append_log_key(&buf, hi);
    }
    appendStringInfoChar(&buf, '}');
    PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(buf.data)));
}

