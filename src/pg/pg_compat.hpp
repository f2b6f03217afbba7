// Every difference between the PostgreSQL majors the extension supports
// (15 through 18), and the project's only PG_VERSION_NUM tests: a new major
// means reading this file and the release notes of the interfaces it names.
#pragma once

#include "pg.hpp"

extern "C" {
#if PG_VERSION_NUM >= 160000
#include "varatt.h"  // VARSIZE and the TOAST pointer macros, out of postgres.h from 16
#endif
#include "commands/explain.h"
#include "parser/parse_type.h"
#include "storage/proc.h"
#include "utils/guc_tables.h"
#if PG_VERSION_NUM >= 180000
#include "commands/explain_format.h"  // ExplainProperty*, out of explain.h from 18
#endif
}

#if PG_VERSION_NUM < 150000 || PG_VERSION_NUM >= 190000
#error "sketchshare supports PostgreSQL 15 through 18: read src/pg/pg_compat.hpp against this version first"
#endif

// A walker function as expression_tree_walker and query_tree_walker take it:
// 15 declares the parameter `bool (*)()`, which C++ reads as taking no
// arguments; from 16 they are macros that cast a typed walker themselves.
#if PG_VERSION_NUM >= 160000
#define SKETCH_TREE_WALKER(f) (f)
#else
#define SKETCH_TREE_WALKER(f) reinterpret_cast<bool (*)()>(reinterpret_cast<void (*)()>(f))
#endif

namespace sketch_pg {
namespace compat {

// The backend's number, from 0 (17 renamed BackendId, from 1, to ProcNumber).
inline uint32 process_number() {
#if PG_VERSION_NUM >= 170000
    return uint32(MyProcNumber);
#else
    return uint32(MyBackendId - 1);
#endif
}

// The local id of the backend's current top-level transaction (17 moved it
// into PGPROC.vxid).
inline LocalTransactionId local_xid() {
#if PG_VERSION_NUM >= 170000
    return MyProc->vxid.lxid;
#else
    return MyProc->lxid;
#endif
}

// The virtual transaction id of backend `number` (process_number's
// numbering) and local id `id`, to wait for with VirtualXactLock.
inline VirtualTransactionId vxid_of(uint32 number, LocalTransactionId id) {
    VirtualTransactionId v;
#if PG_VERSION_NUM >= 170000
    v.procNumber = ProcNumber(number);
#else
    v.backendId = BackendId(number + 1);
#endif
    v.localTransactionId = id;
    return v;
}

// Whether an aggregate's state may be read by more than this final call
// (AggStateIsShared came in 16; 15 gives no way to know, so: yes).
inline bool agg_state_may_be_shared(FunctionCallInfo fcinfo) {
#if PG_VERSION_NUM >= 160000
    return AggStateIsShared(fcinfo);
#else
    (void)fcinfo;
    return true;
#endif
}

// The setting or placeholder of that name in GUC's table, or nullptr
// (find_option is exported from 16; 15 exports the table itself).
inline config_generic* find_setting(const char* name) {
#if PG_VERSION_NUM >= 160000
    return find_option(name, false, true, ERROR);
#else
    config_generic** settings = get_guc_variables();
    for (int i = 0, n = GetNumConfigOptions(); i < n; ++i)
        if (strcmp(settings[i]->name, name) == 0) return settings[i];
    return nullptr;
#endif
}

// Whether an out-of-line value is stored compressed, from its TOAST pointer
// (the pointer's layout is PostgreSQL's: it changed in 14 and may again).
inline bool stored_compressed(const varatt_external& p) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"  // inside the macro, which compares uint32 with int32
    return VARATT_EXTERNAL_IS_COMPRESSED(p);
#pragma GCC diagnostic pop
}

// The type a type name (as format_type prints it) names; an ERROR if none
// (16 passes soft errors through an escontext node instead of a flag).
inline Oid type_by_name(const char* name) {
    Oid type;
    int32 typmod;
#if PG_VERSION_NUM >= 160000
    parseTypeString(name, &type, &typmod, nullptr);
#else
    parseTypeString(name, &type, &typmod, false);
#endif
    return type;
}

}  // namespace compat
}  // namespace sketch_pg
