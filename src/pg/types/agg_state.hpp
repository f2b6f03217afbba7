// What the aggregates share: their memory context and call site, and (the
// filter aggregates, bloom_agg and cbf_agg) the transition state of a large
// filter.
//
// A large filter's state is a read/write expanded object (utils/expandeddatum.h)
// in a child of the aggregate context: the executor keeps it without copying,
// the filter sits in memory of its own (reusable_memory.hpp: huge pages, kept
// for the backend's next query), and item hashes are buffered and applied
// kBatch at a time by the structure's prefetching insert. Whenever the state
// leaves the aggregate (a parallel worker's partial result, any output) the
// executor flattens it: the buffer is applied, then the value copied. The
// final function returns a copy on huge pages (on PostgreSQL 16 and later, the
// value itself when no one else can see the state).
#pragma once

#include <cstring>

#include "hash.hpp"
#include "memory/detoast_into.hpp"
#include "memory/huge_pages.hpp"
#include "pg.hpp"
#include "pg_compat.hpp"
#include "memory/reusable_memory.hpp"

extern "C" {
#include "nodes/primnodes.h"
#include "utils/expandeddatum.h"
#include "utils/memutils.h"
}

namespace sketch_pg {

// The aggregate context of an aggregate support function; raises 0A000
// naming the function when it is called as a plain function.
MemoryContext aggregate_context(FunctionCallInfo fcinfo, const char* name);

// The cache of a call site of an aggregate's support function (or of any
// function): `size` bytes, zeroed when new, and the memory context that lives
// as long as it (for what the cache points to). It is fn_extra's, made in
// fn_mcxt at the first call. Citus calls an aggregate's support functions
// through worker_partial_agg and coord_combine_agg with a fresh FmgrInfo for
// every row and no call expression, so there fn_extra is empty at every row:
// such a call (no expression, in an aggregate) finds its cache in a
// backend-local list keyed by the aggregate context, the aggregate call and
// the function, in the memory of the aggregate context's parent (the query's,
// as fn_mcxt is), which takes the entry off the list when it goes.
struct CallSite {
    void* cache;
    MemoryContext mcxt;
};
CallSite call_site(FunctionCallInfo fcinfo, size_t size);

// True when every argument of the aggregate call from `first` on (0 = the
// first aggregated argument, not the state) is a constant of the plan, as in
// bloom_agg(x, 1000000, 0.01): parameters such as n and fpr then need
// checking at the first row only. The transition function's own fn_expr
// cannot tell (nodeAgg hands it placeholders), the Aggref can; under Citus,
// the fields of the row worker_partial_agg wraps the arguments into.
bool aggregate_args_constant(FunctionCallInfo fcinfo, int first);

// True when a combine function runs for an aggregate that builds from items
// and parameters (cbf_agg, reservoir_agg: more than one argument), false for
// one that merges stored values (cbf_union_agg, reservoir_union_agg), also when
// Citus runs the aggregate (worker_partial_agg, coord_combine_agg). Partial
// states of a building aggregate whose parameters differ mean the parameters
// varied between rows of the group, which the transition refuses.
bool combining_built_states(FunctionCallInfo fcinfo);

// The argument i (0 = the first aggregated argument) of an aggregate call as
// the planner holds it (a list of TargetEntry), when it is a non-null
// constant; else nullptr.
const Const* aggregate_const_arg(List* args, int i);

// The planner support function (SupportRequestCost) of the combine function
// of an aggregate that builds a filter sized by constant arguments (bloom_agg,
// cbf_agg). A parallel worker's partial state reaches the leader as about six
// copies of the whole filter made by PostgreSQL (the worker's tuple, the
// queue, the leader's tuple and slot, the first state), into fresh memory,
// which for a large filter costs more than the workers save. So a
// combine call costs sketchshare.partial_state_page_cost per 8 kB page of the
// state that state_bytes (0: unknown) computes from the aggregate's arguments,
// averaged over the query's calls of the aggregate, besides its cpu_operator_cost.
Datum partial_state_cost(FunctionCallInfo fcinfo, size_t (*state_bytes)(List* args));

constexpr uint32_t kBatch = 256;  // item hashes buffered before they are applied

// Filter provides `void apply(varlena* flat, const sketch::Hash128* hashes, size_t n)`,
// which may leave some of those items pending in the filter, `void
// settle(varlena* flat)`, which applies whatever apply left pending (neither
// may raise), and whatever the structure needs to know (its geometry).
template <typename Filter>
struct BufferedState {
    ExpandedObjectHeader hdr;
    varlena* flat;  // the filter as a value of its SQL type
    Filter filter;
    uint32_t buffered;
    sketch::Hash128 batch[kBatch];

    void apply_batch() {
        if (buffered == 0) return;
        filter.apply(flat, batch, buffered);
        buffered = 0;
    }

    // The value complete, every item applied: before anyone reads it.
    void settle() {
        apply_batch();
        filter.settle(flat);
    }

    // Buffers a hash, applying a full batch first. As two scalar stores: GCC
    // otherwise copies the pair through the stack as two 8-byte stores and a
    // 16-byte load, which store forwarding cannot serve (a stall per row).
    void push(const sketch::Hash128& h) {
        if (buffered == kBatch) apply_batch();
        uint64_t lo = h.lo, hi = h.hi;
        __asm__("" : "+r"(lo), "+r"(hi));
        sketch::Hash128& slot = batch[buffered++];
        slot.lo = lo;
        slot.hi = hi;
    }

    static Size flat_size(ExpandedObjectHeader* eohptr) { return VARSIZE(reinterpret_cast<BufferedState*>(eohptr)->flat); }
    // result is memory PostgreSQL has just allocated (datumCopy of a parallel
    // worker's partial state, heap_form_tuple), not yet touched: advised into
    // huge pages first, as alloc_large does.
    static void flatten(ExpandedObjectHeader* eohptr, void* result, Size allocated_size) {
        auto* st = reinterpret_cast<BufferedState*>(eohptr);
        st->settle();  // changes nothing the value means, only where the items are
        advise_huge(result, allocated_size);
        memcpy(result, st->flat, allocated_size);
    }
    static inline const ExpandedObjectMethods methods = {flat_size, flatten};

    // A new state whose value (`size` bytes, zeroed, varlena header set) the
    // caller fills in; in a child of aggcontext, which is what lets the
    // executor keep it without a copy.
    // `name` must be a string constant (the context keeps the pointer).
    static BufferedState* create(MemoryContext aggcontext, const char* name, size_t size) {
        BufferedState* st = allocate(aggcontext, name, size);
        memset(st->flat, 0, size);
        SET_VARSIZE(st->flat, size);
        return st;
    }
    // A new state holding the value of `value` (any datum of the structure's
    // type: stored, compressed or plain), detoasted straight into the state's
    // memory; the caller validates it and sets the filter up as for create.
    static BufferedState* create_copy(MemoryContext aggcontext, const char* name, Datum value) {
        struct Target {
            MemoryContext aggcontext;
            const char* name;
            BufferedState* st;
        } target{aggcontext, name, nullptr};
        detoast_copy_into(
            value,
            [](size_t len, void* arg) -> void* {
                auto* t = static_cast<Target*>(arg);
                t->st = allocate(t->aggcontext, t->name, len);
                return t->st->flat;
            },
            &target);
        return target.st;
    }

    // A state whose value (size bytes) is not written yet.
    static BufferedState* allocate(MemoryContext aggcontext, const char* name, size_t size) {
        MemoryContext objcxt = AllocSetContextCreateInternal(aggcontext, name, ALLOCSET_SMALL_SIZES);
        auto* st = static_cast<BufferedState*>(MemoryContextAllocZero(objcxt, sizeof(BufferedState)));
        EOH_init_header(&st->hdr, &methods, objcxt);
        st->flat = static_cast<varlena*>(alloc_reusable(objcxt, size, 0));
        return st;
    }

    // What DatumGetEOHP does, inline (it runs once per row).
    static bool is_one(Datum d) {
        if (!VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(d))) return false;
        return of(d)->hdr.eoh_methods == &methods;
    }
    static BufferedState* of(Datum d) {
        varatt_expanded ptr;
        memcpy(&ptr, VARDATA_EXTERNAL(DatumGetPointer(d)), sizeof(ptr));
        return reinterpret_cast<BufferedState*>(ptr.eohptr);
    }
    Datum datum() { return EOHPGetRWDatum(&hdr); }

    // The final value, every item applied: a copy in the current memory
    // context, the state staying usable (a window aggregate may keep advancing
    // it), or, from PostgreSQL 16, the state's own memory when only this call
    // will ever read the state. PostgreSQL 15 copies a final function's result
    // into its own memory unless it is there already (datumCopy: for a 64 MiB
    // filter, 16K page faults of 4 KiB); the copy made here is on huge pages.
    varlena* finish(FunctionCallInfo fcinfo) {
        settle();
        if (!compat::agg_state_may_be_shared(fcinfo)) return flat;
        auto* copy = static_cast<varlena*>(palloc_large(VARSIZE(flat)));
        memcpy(copy, flat, VARSIZE(flat));
        return copy;
    }
};

}  // namespace sketch_pg
