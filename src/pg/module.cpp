// The extension's module: the magic block PostgreSQL checks on load, and the
// settings (GUCs) defined when the library is loaded.
#include "module.hpp"

#include "pg.hpp"
#include "shared_registry.hpp"

extern "C" {
#include "utils/guc.h"

PG_MODULE_MAGIC;
void _PG_init(void);
}

namespace sketch_pg {
char* seed_setting = nullptr;
}

void _PG_init(void) {
    DefineCustomStringVariable("sketchshare.seed", "Seed for random sampling (reservoir_sample and friends).",
                               "Empty (the default): seeded from a strong random source. Any other string: the "
                               "same query over the same rows in a serial plan returns the same sample.",
                               &sketch_pg::seed_setting, "", PGC_USERSET, 0, nullptr, nullptr, nullptr);
    DefineCustomBoolVariable("sketchshare.prefetch",
                             "Lets the planner read ahead in sequential scans that feed filter lookups.",
                             "On (the default): a Seq Scan whose rows are looked up in a bloom or cbf value or a "
                             "shared object becomes a SketchPrefetch scan, which starts loading the filter lines of "
                             "the next rows early. Results are the same either way.",
                             &sketch_pg::prefetch_enabled, true, PGC_USERSET, 0, nullptr, nullptr, nullptr);
    MarkGUCPrefixReserved("sketchshare");
    sketch_pg::prefetch_scan_init();
    sketch_pg::shared::watch_extension_drop();
}
