// Shared objects on a Citus cluster (docs/citus.md). Every node has its own
// objects: a worker's object of a name holds only what was added on that
// worker. A shared object function that Citus runs on a worker as a piece of
// a distributed query would answer from that node's object alone, a silently
// wrong answer unless every key is added and looked up on the node of its
// shard, which only the user can promise: sketchshare.node_local_objects
// names the objects for which they do.
#include "shared_objects/registry/shared_registry.hpp"

#include <cstring>

#include "module.hpp"
#include "pg.hpp"

extern "C" {
#include "commands/extension.h"
#include "utils/guc.h"
}

namespace sketch_pg {
namespace shared {

namespace {

// Citus names the connections that carry the pieces of its distributed
// queries "citus_internal gpid=N" (not those of run_command_on_*).
bool serves_citus_query() {
    static const char kPrefix[] = "citus_internal gpid=";
    return application_name != nullptr && strncmp(application_name, kPrefix, sizeof kPrefix - 1) == 0;
}

// Whether name is one of sketchshare.node_local_objects (names separated by
// commas, spaces around them ignored).
bool declared_node_local(const char* name) {
    const char* list = node_local_objects;
    const size_t len = strlen(name);
    while (list != nullptr && *list != '\0') {
        while (*list == ' ' || *list == ',') ++list;
        const char* end = list;
        while (*end != '\0' && *end != ',') ++end;
        const char* last = end;
        while (last > list && last[-1] == ' ') --last;
        if (size_t(last - list) == len && memcmp(list, name, len) == 0) return true;
        list = end;
    }
    return false;
}

}  // namespace

// The extension's own scripts are no piece of a query: Citus runs a
// worker's part of ALTER EXTENSION UPDATE on such a connection too, and the
// update script takes each object's image there (sketchshare--0.1.0--0.2.0.sql).
void check_not_distributed(const char* name) {
    if (likely(!serves_citus_query()) || creating_extension || declared_node_local(name)) return;
    ereport(ERROR,
            (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
             errmsg("shared object \"%s\" cannot be used by a distributed query on a Citus worker", name),
             errdetail("Each node has its own shared objects: this node's \"%s\" holds only what was added on it.", name),
             errhint("Take a snapshot on the node that holds the object and ship the value: WITH s AS MATERIALIZED "
                     "(SELECT shared_cbf_snapshot('%s') AS f) SELECT ... WHERE cbf_contains((SELECT f FROM s), x). "
                     "For objects made on every node whose keys are the distribution column, see "
                     "sketchshare.node_local_objects.",
                     name)));
}

}  // namespace shared
}  // namespace sketch_pg
