#include "agg_state.hpp"

extern "C" {
#include "nodes/pg_list.h"
#include "nodes/primnodes.h"
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
    return ref != nullptr && list_length(ref->aggargtypes) > 1;  // (args are replaced in a combine step)
}

}  // namespace sketch_pg
