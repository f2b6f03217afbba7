// The kind-independent SQL face of shared objects: freeze, sync, drop,
// grant/revoke, export/attach, and the file facts behind the shared_objects view.
#include <cstring>

#include "guard.hpp"
#include "shared_objects/registry/registry_internal.hpp"
#include "shared_objects/transactional/transactional_adds.hpp"

extern "C" {
#include "access/htup_details.h"
#include "catalog/pg_authid.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/syscache.h"
}

namespace sh = sketch::shared;
namespace ss = sketch_pg::shared;
using sketch_pg::capture;
using sketch_pg::guarded;
using sketch_pg::PendingError;

namespace {

// Paths given by users: absolute, and only for superusers or members of the
// role that COPY TO/FROM a file would need.
const char* checked_path(text* path, Oid role, const char* what) {
    if (!superuser() && !has_privs_of_role(GetUserId(), role))
        ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                        errmsg("permission denied to %s a shared object file", what),
                        errdetail("Only superusers and members of %s may read or write server files.",
                                  role == ROLE_PG_READ_SERVER_FILES ? "pg_read_server_files"
                                                                    : "pg_write_server_files")));
    char* p = text_to_cstring(path);
    if (p[0] != '/')
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("path \"%s\" is not absolute", p)));
    return p;
}

// A regrole given as a number (12345::regrole) is not checked by its input:
// a grant to an oid no role has would go to whichever role takes it later.
// (Revoke takes any oid, so that the grants of a dropped role can go.)
void refuse_unknown_role(Oid role) {
    if (!SearchSysCacheExists1(AUTHOID, ObjectIdGetDatum(role)))
        ereport(ERROR, (errcode(ERRCODE_UNDEFINED_OBJECT), errmsg("role with OID %u does not exist", role)));
}

}  // namespace

// sketchshare_shared.library_loaded(): the extension's event trigger calls it
// before a DROP that can reach the extension; being called loads the library.
SKETCH_FUNCTION(sketchshare_library_loaded) { PG_RETURN_VOID(); }

SKETCH_FUNCTION(shared_freeze) {
    char name[64];
    ss::checked_name(PG_GETARG_TEXT_PP(0), name);
    ss::Entry* e = ss::open_object(name, 0, ss::kOwn);
    if (XactReadOnly) ss::refuse_change(e);
    if (e->readonly || ss::is_frozen(e))
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("shared object \"%s\" is already frozen", name)));
    ss::refuse_after_own_adds(e, "freeze");
    ss::wait_for_pending_adds(e->name, e->file_id);
    ss::lock_exclusive(e);
    sh::set_flags(e->map.header(), sh::kFrozen);
    ss::unlock_exclusive(e);
    ss::follow_growth(e);  // a growth that took the lock before the freeze
    guarded([&] { sh::sync_mapping(e->map, name); });
    ss::take_image(e);
    PG_RETURN_VOID();
}

SKETCH_FUNCTION(shared_sync) {
    char name[64];
    ss::checked_name(PG_GETARG_TEXT_PP(0), name);
    ss::Entry* e = ss::open_object(name, 0, ss::kRead);
    ss::refuse_after_own_adds(e, "sync");
    guarded([&] { sh::sync_mapping(e->map, name); });
    ss::take_image(e);
    PG_RETURN_VOID();
}

SKETCH_FUNCTION(shared_drop) {
    char name[64];
    ss::checked_name(PG_GETARG_TEXT_PP(0), name);
    ss::check_not_distributed(name);  // it opens no entry, which checks the others
    PG_RETURN_BOOL(ss::drop_object(name, PG_GETARG_BOOL(1)));
}

SKETCH_FUNCTION(shared_grant) {
    char name[64];
    ss::checked_name(PG_GETARG_TEXT_PP(0), name);
    refuse_unknown_role(PG_GETARG_OID(1));
    ss::change_grant(name, PG_GETARG_OID(1), text_to_cstring(PG_GETARG_TEXT_PP(2)), true);
    PG_RETURN_VOID();
}

SKETCH_FUNCTION(shared_revoke) {
    char name[64];
    ss::checked_name(PG_GETARG_TEXT_PP(0), name);
    ss::change_grant(name, PG_GETARG_OID(1), text_to_cstring(PG_GETARG_TEXT_PP(2)), false);
    PG_RETURN_VOID();
}

SKETCH_FUNCTION(shared_export) {
    char name[64];
    ss::checked_name(PG_GETARG_TEXT_PP(0), name);
    const char* to = checked_path(PG_GETARG_TEXT_PP(1), ROLE_PG_WRITE_SERVER_FILES, "export");
    ss::Entry* e = ss::open_object(name, 0, ss::kRead);
    if (!ss::is_frozen(e))
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("shared object \"%s\" is not frozen", name),
                        errhint("Only a frozen object can be exported: shared_freeze('%s') seals it.", name)));
    char from[MAXPGPATH];
    ss::object_path(name, from, sizeof from);
    const uint64 id = ss::new_file_id();
    // run 0: the copy is no object folder's file (an attach of it writes its own)
    ss::write_interruptibly("copy", name,
                            [&](bool (*stop)()) { sh::copy_file(from, to, name, true, id, 0, UINT64_MAX, stop); });
    PG_RETURN_VOID();
}

SKETCH_FUNCTION(shared_attach) {
    char name[64];
    ss::checked_name(PG_GETARG_TEXT_PP(0), name);
    ss::check_not_distributed(name);  // as shared_drop
    const char* from = checked_path(PG_GETARG_TEXT_PP(1), ROLE_PG_READ_SERVER_FILES, "attach");
    ss::attach_object(name, from);
    PG_RETURN_VOID();
}

// (bytes, frozen, ops, capacity, fpr, layout, m, k, status, expansion,
// items_held, subfilters) read from the file's header, for the shared_objects view. A file that fails validation
// gives NULLs and the reason in status; nothing is mapped or locked.
SKETCH_FUNCTION(shared_file_info) {
    char name[64];
    ss::checked_name(PG_GETARG_TEXT_PP(0), name);
    TupleDesc desc;
    if (get_call_result_type(fcinfo, nullptr, &desc) != TYPEFUNC_COMPOSITE) elog(ERROR, "return type must be a row");
    desc = BlessTupleDesc(desc);
    Datum values[12];
    bool nulls[12];
    for (int i = 0; i < 12; ++i) {
        values[i] = 0;
        nulls[i] = true;
    }
    char path[MAXPGPATH];
    ss::object_path(name, path, sizeof path);
    sh::FileHeader h;
    PendingError failure;
    bool ok = true;
    try {
        h = sh::read_header(path, name, 0);
    } catch (const sketch::Error& err) {
        capture(failure, err);
        ok = false;
    } catch (...) {
        capture(failure, ERRCODE_INTERNAL_ERROR, "unexpected error");
        ok = false;
    }
    if (ok) {
        values[0] = Int64GetDatum(int64(sh::used_bytes(h)));  // every published sub-filter's
        values[1] = BoolGetDatum((h.flags & sh::kFrozen) != 0);
        values[2] = Int64GetDatum(int64(h.ops));
        nulls[0] = nulls[1] = nulls[2] = false;
        if (ss::Describer d = ss::describer_for(h.kind)) {
            ss::GeometryInfo g{};
            d(h.geometry, h.geometry_len, &g);
            values[3] = Int64GetDatum(g.capacity);  // 0: seeded from a value, unknown
            values[4] = Float8GetDatum(g.fpr);
            if (g.layout[0] != '\0') {
                values[5] = CStringGetTextDatum(g.layout);
                nulls[5] = false;
            }
            values[6] = Int64GetDatum(g.m);
            values[7] = Int32GetDatum(g.k);
            nulls[3] = nulls[4] = g.capacity <= 0;
            nulls[4] = nulls[4] || g.fpr != g.fpr;  // NaN: no false-positive rate (reservoirs)
            nulls[6] = nulls[7] = false;
            if (g.expansion >= 0) {
                values[9] = Int32GetDatum(g.expansion);
                values[10] = Int64GetDatum(int64(h.held));
                values[11] = Int32GetDatum(int32(h.subfilters == 0 ? 1 : h.subfilters));
                nulls[9] = nulls[10] = nulls[11] = false;
            }
        }
        values[8] = CStringGetTextDatum("ok");
    } else {
        values[8] = CStringGetTextDatum(failure.message);
    }
    nulls[8] = false;
    PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}
