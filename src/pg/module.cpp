// The extension's module: the magic block PostgreSQL checks on load, and the
// settings (GUCs) defined when the library is loaded.
#include "module.hpp"

#include <climits>
#include <cstring>

#include "pg.hpp"
#include "pg_compat.hpp"
#include "memory/reusable_memory.hpp"
#include "prefetch/prefetch.hpp"
#include "shared_objects/registry/shared_registry.hpp"

extern "C" {
#include "utils/guc.h"

PG_MODULE_MAGIC;
void _PG_init(void);
}

namespace sketch_pg {
char* seed_setting = nullptr;
char* node_local_objects = nullptr;
int max_shared_object_size = kDefaultMaxSharedObjectSize;
int growth_pause_for_tests_ms = 0;
double partial_state_page_cost = 20.0;

namespace {

constexpr const char* kMaxSizeName = "sketchshare.max_shared_object_size";
// Set when loading the library lost the server's value of
// sketchshare.max_shared_object_size (define_max_shared_object_size).
bool max_size_lost = false;

// Until the library is loaded, sketchshare.max_shared_object_size is a
// placeholder that takes any role's value. A connection option (PGOPTIONS
// -c) of a role that may not set it replaces there the value that
// postgresql.conf, ALTER SYSTEM, ALTER DATABASE or ALTER ROLE gave; defining
// the setting then refuses that option (a WARNING) and falls back to the
// default, not to the value it replaced, which nothing kept. So the setting
// is defined here, and if its placeholder had a value that the definition
// refused, the server's limit is unknown in this session.
void define_max_shared_object_size() {
    const config_generic* placeholder = compat::find_setting(kMaxSizeName);
    const bool had_value = placeholder != nullptr && placeholder->reset_source != PGC_S_DEFAULT;
    DefineCustomIntVariable(kMaxSizeName, "Largest file a new shared object may have.",
                            "1GB (the default). Creating, seeding or attaching a shared object whose file would be "
                            "larger fails before the file is made. -1: no limit; 0 refuses every new object.",
                            &sketch_pg::max_shared_object_size, kDefaultMaxSharedObjectSize, -1, INT_MAX, PGC_SUSET,
                            GUC_UNIT_KB, nullptr, nullptr, nullptr);
    max_size_lost = had_value && compat::find_setting(kMaxSizeName)->reset_source == PGC_S_DEFAULT;
}

}  // namespace

// Known unless the definition lost it, or again once a role allowed to set
// it has set it in this session (SET, a function's SET clause).
bool max_shared_object_size_known() {
    return !max_size_lost || compat::find_setting(kMaxSizeName)->source >= PGC_S_SESSION;
}
}

void _PG_init(void) {
    DefineCustomStringVariable("sketchshare.seed", "Seed for random sampling (reservoir_sample and friends).",
                               "Empty (the default): seeded from a strong random source. Any other string: the "
                               "same query over the same rows in a serial plan returns the same sample.",
                               &sketch_pg::seed_setting, "", PGC_USERSET, 0, nullptr, nullptr, nullptr);
    DefineCustomStringVariable("sketchshare.node_local_objects",
                               "Shared objects that Citus may use on its workers, each node's for its own shards.",
                               "Names separated by commas. Every node has its own shared objects, so a shared object "
                               "function that a Citus distributed query runs on a worker fails unless the object "
                               "is named here: do so only when every key is added and looked up on the node of its "
                               "shard (the keys are the distribution column).",
                               &sketch_pg::node_local_objects, "", PGC_USERSET, GUC_LIST_INPUT, nullptr, nullptr,
                               nullptr);
    DefineCustomBoolVariable("sketchshare.prefetch",
                             "Lets the planner read ahead in sequential scans that feed filter lookups.",
                             "On (the default): a Seq Scan whose rows are looked up in a bloom or cbf value or a "
                             "shared object becomes a SketchPrefetch scan, which starts loading the filter lines of "
                             "the next rows early. Results are the same either way.",
                             &sketch_pg::prefetch_enabled, true, PGC_USERSET, 0, nullptr, nullptr, nullptr);
    sketch_pg::define_max_shared_object_size();
    DefineCustomRealVariable("sketchshare.partial_state_page_cost",
                             "Planner's cost of handing one 8 kB page of a bloom_agg or cbf_agg partial state to "
                             "the step that combines it.",
                             "A parallel worker's partial state reaches the leader as several copies of the whole "
                             "filter, so a parallel plan pays this per page of the filter per worker; 0 plans as "
                             "if states were free to move.",
                             &sketch_pg::partial_state_page_cost, 20.0, 0.0, 1e10, PGC_USERSET, 0, nullptr, nullptr,
                             nullptr);
    DefineCustomIntVariable("sketchshare.reusable_memory",
                            "Memory of large filters a backend keeps for its next queries once one is done with it.",
                            "Aggregate states and stored filters fetched for lookups of 32 MB or more (glibc keeps "
                            "smaller blocks itself) are kept up to this size instead of being unmapped, marked "
                            "MADV_FREE: the kernel takes their pages back whenever it needs memory. 0 unmaps them "
                            "at once.",
                            &sketch_pg::reusable_memory_mb, 256, 0, INT_MAX, PGC_USERSET, GUC_UNIT_MB, nullptr,
                            sketch_pg::reusable_memory_assign, nullptr);
    DefineCustomIntVariable("sketchshare.growth_pause_for_tests",
                            "For crash tests: a pause between extending a growing object's file and publishing "
                            "its new sub-filter.",
                            "0 (the default) does not pause; never set it outside tests.",
                            &sketch_pg::growth_pause_for_tests_ms, 0, 0, 600000, PGC_SUSET,
                            GUC_UNIT_MS | GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE, nullptr, nullptr, nullptr);
    MarkGUCPrefixReserved("sketchshare");
    sketch_pg::shared::register_shared_bloom_kind();
    sketch_pg::shared::register_shared_cbf_kind();
    sketch_pg::shared::register_shared_reservoir_kind();
    sketch_pg::register_bloom_prefetchables();
    sketch_pg::register_cbf_prefetchables();
    sketch_pg::register_shared_bloom_prefetchables();
    sketch_pg::register_shared_cbf_prefetchables();
    sketch_pg::prefetch_scan_init();
    sketch_pg::shared::watch_extension_drop();
}
