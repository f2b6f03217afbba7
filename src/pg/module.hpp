// Settings that module.cpp's _PG_init defines (docs/operations.md, "Settings").
#pragma once

namespace sketch_pg {

// sketchshare.seed: '' (the default) seeds random sampling from a strong
// random source; any other string makes it reproducible (docs/reservoir.md).
extern char* seed_setting;

// sketchshare.node_local_objects: names of shared objects that may be used by
// the pieces of a Citus distributed query on the workers, each node's object
// serving the keys of its shards (shared_on_citus.cpp, docs/citus.md).
extern char* node_local_objects;

// sketchshare.max_shared_object_size: the largest file (header included), in
// kB, that a new shared object may have; -1 means no limit. Superusers only
// (PGC_SUSET). Checked in shared_registry.cpp, where every create and attach
// begins.
constexpr int kDefaultMaxSharedObjectSize = 1024 * 1024;  // 1GB
extern int max_shared_object_size;
// False when loading the library lost the value the server gave it: a
// connection option of a role that may not set it had taken its place
// (module.cpp). No object may be created then.
bool max_shared_object_size_known();

// sketchshare.growth_pause_for_tests: milliseconds a growing backend sleeps
// between extending an object's file and publishing its new sub-filter
// (shared_capacity.cpp), holding the object's lock: a crash test kills it
// there. 0 (the default) in any real use. Superusers only.
extern int growth_pause_for_tests_ms;

// sketchshare.partial_state_page_cost: the planner's cost of handing one 8 kB
// page of a filter aggregate's partial state from a parallel worker (or a
// partition) to the step that combines them (agg_state.cpp).
extern double partial_state_page_cost;

// sketchshare.reusable_memory: how many MB of large filters' memory a backend
// keeps for its next queries (reusable_memory.cpp, which also has the
// setting's assign hook).
extern int reusable_memory_mb;

// sketchshare.prefetch: whether the planner puts the prefetching scan
// (prefetch_scan.cpp) in place of a Seq Scan that feeds filter lookups.
extern bool prefetch_enabled;
// Installs the planner hook and the custom scan (from _PG_init).
void prefetch_scan_init();

}  // namespace sketch_pg
