// The prefetching scan (what its planning, prefetch_plan.cpp, and its
// execution, prefetch_scan.cpp, share): a sequential heap scan that, a few rows ahead of the
// row it returns, hashes the item column of each sketchshare lookup the query
// makes on the table and starts loading the filter lines that lookup will
// touch. On a filter beyond the caches each lookup otherwise waits a memory
// latency, one row at a time: the executor calls a function per row, so
// nothing else can overlap those misses across rows. For a bloom or cbf value
// (immutable for the scan) the function answers the lookup of the row being
// returned from the scan's digest and copy of the filter (row_answer), its
// own setup of the call skipped.
//
// The planner hook puts the scan in place of every Seq Scan path of a heap
// table that such a lookup reads: a call of a function a face file registered
// (register_prefetchable) whose
// item is a plain column of the table and whose filter (or shared object
// name) is a constant or a parameter. When the filter is a column of another
// table, as in `FROM t, seen WHERE seen.f @> t.x`, it adds a scan
// parameterized by that table: a nested loop over its rows then hands each
// one's filter to the scan (a parameter again). It is a hint only: it never changes
// which rows are returned, never raises for a filter the function would
// reject, and never evaluates anything the query would not (an InitPlan not
// yet run is left for the function to run).
#pragma once

#include "prefetch/prefetch.hpp"

extern "C" {
#include "nodes/extensible.h"
}

namespace sketch_pg::prefetch_scan {

using Kind = PrefetchKind;

constexpr int kMaxProbes = 4;

// A function whose lookups the scan prefetches: (filter or name, item, ...).
struct Prefetchable {
    const char* symbol;  // prosrc: the C symbol, whatever the SQL name
    Kind kind;
    uint8 need;  // shared objects: the right the function opens it with
};
constexpr int kNotKnown = -1;
// The registered function number `known` (as the plan records it).
const Prefetchable& prefetchable(int known);

extern const CustomScanMethods kScanMethods;

// Installs the planner hook and forgets functions on pg_proc changes.
void planner_init();

}  // namespace sketch_pg::prefetch_scan
