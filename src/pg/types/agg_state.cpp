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

bool aggregate_args_constant(FunctionCallInfo fcinfo, int first) {
    const Aggref* ref = AggGetAggref(fcinfo);
    if (ref == nullptr) return false;
    int i = 0;
    ListCell* lc;
    foreach (lc, ref->args) {
        const auto* te = static_cast<const TargetEntry*>(lfirst(lc));
        if (i++ >= first && !IsA(te->expr, Const)) return false;
    }
    return true;
}

bool combining_built_states(FunctionCallInfo fcinfo) {
    const Aggref* ref = AggGetAggref(fcinfo);
    if (ref == nullptr) return false;
    // Citus runs an aggregate through worker_partial_agg(aggregate oid, arguments) on
    // its workers and coord_combine_agg(aggregate oid, state, ...) on its coordinator:
    // the aggregate is the constant they name.
    const Const* agg = aggregate_const_arg(ref->args, 0);
    if (agg != nullptr && (agg->consttype == OIDOID || agg->consttype == REGPROCEDUREOID)) {
        const char* name = get_func_name(ref->aggfnoid);
        if (name != nullptr && (strcmp(name, "coord_combine_agg") == 0 || strcmp(name, "worker_partial_agg") == 0))
            return get_func_nargs(DatumGetObjectId(agg->constvalue)) > 1;
    }
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
