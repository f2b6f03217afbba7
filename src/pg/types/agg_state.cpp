#include "types/agg_state.hpp"

#include <cmath>
#include <cstring>

#include "module.hpp"

extern "C" {
#include "catalog/pg_type_d.h"
#include "nodes/pathnodes.h"
#include "nodes/pg_list.h"
#include "nodes/primnodes.h"
#include "nodes/supportnodes.h"
#include "optimizer/optimizer.h"
#include "utils/lsyscache.h"
}

namespace sketch_pg {

MemoryContext aggregate_context(FunctionCallInfo fcinfo, const char* name) {
    MemoryContext aggcontext;
    if (!AggCheckCallContext(fcinfo, &aggcontext))
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("%s called in non-aggregate context", name)));
    return aggcontext;
}

namespace {

// A call site's cache kept for calls without fn_extra (call_site), on a
// doubly linked list (PostgreSQL's ilist macros are C only).
struct KeptSite {
    KeptSite* prev;
    KeptSite* next;
    MemoryContext aggcontext;
    const Aggref* aggref;
    Oid fn_oid;
    MemoryContext mcxt;
    MemoryContextCallback forget;  // on mcxt
};

KeptSite* kept_sites = nullptr;

void forget_site(void* arg) {
    auto* k = static_cast<KeptSite*>(arg);
    (k->prev != nullptr ? k->prev->next : kept_sites) = k->next;
    if (k->next != nullptr) k->next->prev = k->prev;
}

void* cache_of(KeptSite* k) { return reinterpret_cast<char*>(k) + MAXALIGN(sizeof(KeptSite)); }

}  // namespace

CallSite call_site(FunctionCallInfo fcinfo, size_t size) {
    FmgrInfo* fl = fcinfo->flinfo;
    if (fl->fn_extra != nullptr) return {fl->fn_extra, fl->fn_mcxt};
    MemoryContext aggcontext;
    if (fl->fn_expr != nullptr || !AggCheckCallContext(fcinfo, &aggcontext)) {
        fl->fn_extra = MemoryContextAllocZero(fl->fn_mcxt, size);
        return {fl->fn_extra, fl->fn_mcxt};
    }
    const Aggref* ref = AggGetAggref(fcinfo);
    for (KeptSite* k = kept_sites; k != nullptr; k = k->next)
        if (k->aggcontext == aggcontext && k->aggref == ref && k->fn_oid == fl->fn_oid) return {cache_of(k), k->mcxt};
    MemoryContext mcxt = MemoryContextGetParent(aggcontext);
    if (mcxt == nullptr) mcxt = aggcontext;
    auto* k = static_cast<KeptSite*>(MemoryContextAllocZero(mcxt, MAXALIGN(sizeof(KeptSite)) + size));
    k->aggcontext = aggcontext;
    k->aggref = ref;
    k->fn_oid = fl->fn_oid;
    k->mcxt = mcxt;
    k->forget.func = forget_site;
    k->forget.arg = k;
    MemoryContextRegisterResetCallback(mcxt, &k->forget);
    k->next = kept_sites;
    if (kept_sites != nullptr) kept_sites->prev = k;
    kept_sites = k;
    return {cache_of(k), mcxt};
}

// The aggregate a Citus call names: Citus runs an aggregate through
// worker_partial_agg(aggregate oid, argument or ROW(arguments)) on its workers
// and coord_combine_agg(aggregate oid, state, ...) on its coordinator, so the
// aggregate is the constant they start with; nullptr for any other call.
static const Const* citus_named_aggregate(const Aggref* ref) {
    const Const* agg = aggregate_const_arg(ref->args, 0);
    if (agg == nullptr || (agg->consttype != OIDOID && agg->consttype != REGPROCEDUREOID)) return nullptr;
    const char* name = get_func_name(ref->aggfnoid);
    if (name == nullptr || (strcmp(name, "coord_combine_agg") != 0 && strcmp(name, "worker_partial_agg") != 0))
        return nullptr;
    return agg;
}

bool aggregate_args_constant(FunctionCallInfo fcinfo, int first) {
    const Aggref* ref = AggGetAggref(fcinfo);
    if (ref == nullptr) return false;
    List* exprs = NIL;  // the aggregated arguments
    ListCell* lc;
    if (citus_named_aggregate(ref) != nullptr && list_length(ref->args) == 2) {
        // worker_partial_agg(aggregate, ROW(arguments)), or the one argument bare
        const Expr* wrapped = static_cast<const TargetEntry*>(lsecond(ref->args))->expr;
        if (!IsA(wrapped, RowExpr)) return first >= 1 || IsA(wrapped, Const);
        exprs = reinterpret_cast<const RowExpr*>(wrapped)->args;
    } else {
        foreach (lc, ref->args) exprs = lappend(exprs, static_cast<const TargetEntry*>(lfirst(lc))->expr);
    }
    int i = 0;
    foreach (lc, exprs) {
        if (i++ >= first && !IsA(lfirst(lc), Const)) return false;
    }
    return true;
}

bool combining_built_states(FunctionCallInfo fcinfo) {
    const Aggref* ref = AggGetAggref(fcinfo);
    if (ref == nullptr) return false;
    const Const* agg = citus_named_aggregate(ref);
    if (agg != nullptr) return get_func_nargs(DatumGetObjectId(agg->constvalue)) > 1;
    return list_length(ref->aggargtypes) > 1;  // (args are replaced in a combine step)
}

const Const* aggregate_const_arg(List* args, int i) {
    if (i >= list_length(args)) return nullptr;
    const auto* te = static_cast<const TargetEntry*>(list_nth(args, i));
    if (!IsA(te->expr, Const)) return nullptr;
    const auto* c = reinterpret_cast<const Const*>(te->expr);
    return c->constisnull ? nullptr : c;
}

Datum partial_state_cost(FunctionCallInfo fcinfo, size_t (*state_bytes)(List* args)) {
    Node* raw = reinterpret_cast<Node*>(PG_GETARG_POINTER(0));
    if (!IsA(raw, SupportRequestCost)) PG_RETURN_POINTER(nullptr);
    auto* req = reinterpret_cast<SupportRequestCost*>(raw);
    // An aggregate's support function is costed without a node; with one, it
    // is a direct call of the function, which costs its procost.
    if (req->root == nullptr || req->node != nullptr) PG_RETURN_POINTER(nullptr);
    // The request does not say which of the query's calls it costs: each call
    // asks once, so the average over them charges the query their sum.
    double pages = 0;
    int calls = 0;
    ListCell* lc;
    foreach (lc, req->root->aggtransinfos) {
        const auto* t = static_cast<const AggTransInfo*>(lfirst(lc));
        if (t->combinefn_oid != req->funcid) continue;
        pages += std::ceil(double(state_bytes(t->args)) / BLCKSZ);
        ++calls;
    }
    if (calls == 0) PG_RETURN_POINTER(nullptr);  // not in an aggregate: its procost
    req->startup = 0;
    req->per_tuple = cpu_operator_cost + pages / calls * partial_state_page_cost;
    PG_RETURN_POINTER(req);
}

}  // namespace sketch_pg
