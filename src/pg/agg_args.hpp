// What an aggregate's transition function can learn about its call site.
#pragma once

#include "pg.hpp"

namespace sketch_pg {

// True when every argument of the aggregate call from `first` on (0 = the
// first aggregated argument, not the state) is a constant of the plan, as in
// bloom_agg(x, 1000000, 0.01): parameters such as n and fpr then need
// checking at the first row only. The transition function's own fn_expr
// cannot tell (nodeAgg hands it placeholders), the Aggref can.
bool aggregate_args_constant(FunctionCallInfo fcinfo, int first);

}  // namespace sketch_pg
