// The catalog of shared objects (tables in schema sketchshare_shared),
// through SPI as the owner of its schema.
#include "shared_objects/registry/shared_registry.hpp"
#include "shared_objects/registry/registry_internal.hpp"

#include <cstring>

#include "guard.hpp"
#include "module.hpp"

extern "C" {
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "port.h"
#include "storage/fd.h"
#include "storage/pg_shmem.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
}

namespace sh = sketch::shared;

namespace sketch_pg {
namespace shared {

// ---- the catalog, through SPI as the owner of its schema ----

// The catalog's rows are known to describe this database (see home_is_here).
bool catalog_ours = false;

namespace {

// The catalog table, as last opened. DROP EXTENSION drops it (and a later
// CREATE EXTENSION makes another) without marking any file dropped: its
// relcache invalidation, which every backend receives, is what makes the
// entries read from it be read again.
Oid catalog_relid = InvalidOid;

}  // namespace

void catalog_invalidated(Datum, Oid relid) {
    if (relid == InvalidOid || relid == catalog_relid) {
        local_epoch++;
        catalog_ours = false;
    }
}

namespace {

bool home_is_here();

}  // namespace

void begin_catalog(AsCatalogOwner* s) {
    Oid nsp = get_namespace_oid("sketchshare_shared", true);
    if (!OidIsValid(nsp))
        ereport(ERROR, (errcode(ERRCODE_UNDEFINED_SCHEMA),
                        errmsg("schema sketchshare_shared is missing: is the sketchshare extension installed?")));
    HeapTuple tup = SearchSysCache1(NAMESPACEOID, ObjectIdGetDatum(nsp));
    if (!HeapTupleIsValid(tup)) elog(ERROR, "cache lookup failed for namespace %u", nsp);
    Oid owner = ((Form_pg_namespace)GETSTRUCT(tup))->nspowner;
    ReleaseSysCache(tup);
    catalog_relid = get_relname_relid("objects", nsp);
    GetUserIdAndSecContext(&s->saved_user, &s->saved_context);
    SetUserIdAndSecContext(owner, s->saved_context | SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION);
    s->guc_level = NewGUCNestLevel();
    (void)set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true,
                            0, false);
    if (SPI_connect() != SPI_OK_CONNECT) elog(ERROR, "SPI_connect failed");
    if (!catalog_ours) catalog_ours = home_is_here();
}

void end_catalog(AsCatalogOwner* s) {
    SPI_finish();
    AtEOXact_GUC(true, s->guc_level);
    SetUserIdAndSecContext(s->saved_user, s->saved_context);
}

int run(const char* sql, int nargs, Oid* types, Datum* values, bool read_only) {
    int rc = SPI_execute_with_args(sql, nargs, types, values, nullptr, read_only, 0);
    if (rc < 0) elog(ERROR, "SPI_execute_with_args failed: %s", SPI_result_code_string(rc));
    return rc;
}

namespace {

// CREATE DATABASE ... TEMPLATE copies the catalog's tables but not the object
// files, which live outside the database's storage (and are in use by the
// template's sessions meanwhile): the copy starts with no objects. The
// catalog records the database its rows describe (sketchshare_shared.home,
// which the shared_objects view checks too). In a copy it names another
// database: every name is looked up as missing, and the first create or drop
// removes the rows and records the copy (claim_catalog).
bool home_is_here() {
    run("SELECT db FROM sketchshare_shared.home", 0, nullptr, nullptr, true);
    bool isnull = true;
    return SPI_processed == 1 &&
           DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull)) == MyDatabaseId;
}

// catalog_ours, asked again after a query of the catalog (between
// begin_catalog and end_catalog). The query's lock on the catalog table takes
// in pending invalidations, and any change to that table's pg_class row sends
// one (autovacuum's statistics, a GRANT on it): catalog_invalidated then
// clears catalog_ours while the query runs, though the home row still names
// this database. Taken as the answer, that made an existing object "not
// exist" (seen as a rare pg_regress failure right after a create).
bool catalog_still_ours() {
    if (!catalog_ours) catalog_ours = home_is_here();
    return catalog_ours;
}

}  // namespace

// Before a create or drop changes the catalog (between begin_catalog and
// end_catalog): the rows of another database (or of none: a home row someone
// removed) go, in the same transaction. The home row is locked by the first
// claim: a session claiming at the same time waits for it and then finds the
// claim made.
void claim_catalog() {
    if (catalog_ours) return;
    Oid types[1] = {OIDOID};
    Datum values[1] = {ObjectIdGetDatum(MyDatabaseId)};
    run("INSERT INTO sketchshare_shared.home AS h (db) VALUES ($1) ON CONFLICT (one) DO UPDATE SET db = $1 "
        "WHERE h.db OPERATOR(pg_catalog.<>) $1 RETURNING 1",
        1, types, values, false);
    if (SPI_processed == 1) {
        run("DELETE FROM sketchshare_shared.grants", 0, nullptr, nullptr, false);
        run("DELETE FROM sketchshare_shared.objects", 0, nullptr, nullptr, false);
        if (SPI_processed > 0)
            ereport(NOTICE,
                    (errmsg("removed %llu shared objects that came with a copy of another database",
                            (unsigned long long)SPI_processed),
                     errdetail("CREATE DATABASE copies the catalog of shared objects but not their files: a copy "
                               "starts with none.")));
    }
    catalog_ours = true;
}

namespace {

uint32 kind_from_text(const char* kind) {
    if (strcmp(kind, "cbf") == 0) return uint32(sh::Kind::cbf);
    if (strcmp(kind, "bloom") == 0) return uint32(sh::Kind::bloom);
    if (strcmp(kind, "reservoir") == 0) return uint32(sh::Kind::reservoir);
    return 0;
}

}  // namespace

// The catalog of a 0.1.0 installation, before ALTER EXTENSION UPDATE, has no
// images (the library is updated first).
bool catalog_has_images() {
    const Oid nsp = get_namespace_oid("sketchshare_shared", true);
    const Oid rel = OidIsValid(nsp) ? get_relname_relid("objects", nsp) : InvalidOid;
    return OidIsValid(rel) && get_attnum(rel, "image") != InvalidAttrNumber;
}

bool read_catalog(const char* name, CatalogRow* row) {
    AsCatalogOwner s;
    begin_catalog(&s);
    Oid types[1] = {TEXTOID};
    Datum values[1] = {CStringGetTextDatum(name)};
    run(catalog_has_images() ? "SELECT kind, owner, file_id, readonly, image IS NOT NULL FROM sketchshare_shared.objects "
                               "WHERE name OPERATOR(pg_catalog.=) $1"
                             : "SELECT kind, owner, file_id, readonly, false FROM sketchshare_shared.objects "
                               "WHERE name OPERATOR(pg_catalog.=) $1",
        1, types, values, false);
    const SPITupleTable* objects = SPI_tuptable;  // kept until end_catalog
    const bool found = SPI_processed == 1 && catalog_still_ours();
    if (found) {
        HeapTuple t = objects->vals[0];
        TupleDesc d = objects->tupdesc;
        bool isnull;
        char* kind = SPI_getvalue(t, d, 1);
        row->kind = kind_from_text(kind);
        row->owner = DatumGetObjectId(SPI_getbinval(t, d, 2, &isnull));
        row->file_id = uint64(DatumGetInt64(SPI_getbinval(t, d, 3, &isnull)));
        row->readonly = DatumGetBool(SPI_getbinval(t, d, 4, &isnull));
        row->has_image = DatumGetBool(SPI_getbinval(t, d, 5, &isnull));
        run("SELECT grantee, privilege OPERATOR(pg_catalog.=) 'write' FROM sketchshare_shared.grants "
            "WHERE name OPERATOR(pg_catalog.=) $1",
            1, types, values, false);
        row->ngrants = int(SPI_processed);
        row->grants = static_cast<GrantRow*>(SPI_palloc(sizeof(GrantRow) * (row->ngrants > 0 ? row->ngrants : 1)));
        for (int i = 0; i < row->ngrants; ++i) {
            HeapTuple g = SPI_tuptable->vals[i];
            row->grants[i].grantee = DatumGetObjectId(SPI_getbinval(g, SPI_tuptable->tupdesc, 1, &isnull));
            row->grants[i].write = DatumGetBool(SPI_getbinval(g, SPI_tuptable->tupdesc, 2, &isnull));
        }
    }
    end_catalog(&s);
    return found;
}

// The file_id of the committed object named `name`, read by a snapshot taken
// now (a repeatable-read transaction's own may predate a drop; a parallel
// query, which cannot take one, reads by its own); false if no committed
// object has the name.
bool committed_file_id(const char* name, uint64* file_id) {
    AsCatalogOwner s;
    begin_catalog(&s);
    Oid types[1] = {TEXTOID};
    Datum values[1] = {CStringGetTextDatum(name)};
    SPIPlanPtr plan = SPI_prepare(
        "SELECT file_id FROM sketchshare_shared.objects WHERE name OPERATOR(pg_catalog.=) $1", 1, types);
    if (plan == nullptr) elog(ERROR, "SPI_prepare failed: %s", SPI_result_code_string(SPI_result));
    const Snapshot now = IsInParallelMode() ? InvalidSnapshot : GetLatestSnapshot();
    const int rc = SPI_execute_snapshot(plan, values, nullptr, now, InvalidSnapshot, true, false, 1);
    if (rc < 0) elog(ERROR, "SPI_execute_snapshot failed: %s", SPI_result_code_string(rc));
    const SPITupleTable* objects = SPI_tuptable;  // kept until end_catalog
    const bool found = SPI_processed == 1 && catalog_still_ours();
    if (found) {
        bool isnull;
        *file_id = uint64(DatumGetInt64(SPI_getbinval(objects->vals[0], objects->tupdesc, 1, &isnull)));
    }
    end_catalog(&s);
    return found;
}

bool insert_catalog(const char* name, sh::Kind kind, uint64 file_id, bool readonly, bool if_not_exists) {
    refuse_if_dropped_here(name);
    const Oid owner = GetUserId();  // before switching to the catalog's owner
    AsCatalogOwner s;
    begin_catalog(&s);
    claim_catalog();
    Oid types[5] = {TEXTOID, TEXTOID, OIDOID, INT8OID, BOOLOID};
    Datum values[5] = {CStringGetTextDatum(name), CStringGetTextDatum(sh::kind_name(uint32(kind))),
                       ObjectIdGetDatum(owner), Int64GetDatum(int64(file_id)), BoolGetDatum(readonly)};
    run("INSERT INTO sketchshare_shared.objects (name, kind, owner, file_id, readonly) VALUES ($1, $2, $3, $4, $5) "
        "ON CONFLICT (name) DO NOTHING",
        5, types, values, false);
    bool inserted = SPI_processed == 1;
    end_catalog(&s);
    if (!inserted && if_not_exists) {
        ereport(NOTICE, (errcode(ERRCODE_DUPLICATE_OBJECT), errmsg("shared object \"%s\" already exists, skipping", name)));
        return false;
    }
    if (!inserted)
        ereport(ERROR, (errcode(ERRCODE_DUPLICATE_OBJECT), errmsg("shared object \"%s\" already exists", name)));
    return true;
}

// Adds or removes a grant row; the owner (or a superuser) only.
void change_grant(const char* name, Oid role, const char* privilege, bool grant) {
    if (strcmp(privilege, "read") != 0 && strcmp(privilege, "write") != 0)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("unknown privilege \"%s\"", privilege),
                        errhint("The privileges of a shared object are 'read' and 'write'.")));
    refuse_in_read_only(grant ? "grant privileges on" : "revoke privileges on", name);
    Entry* e = open_object(name, 0, kOwn);
    const uint64 file_id = e->file_id;
    AsCatalogOwner s;
    begin_catalog(&s);
    Oid types[3] = {TEXTOID, OIDOID, TEXTOID};
    Datum values[3] = {CStringGetTextDatum(name), ObjectIdGetDatum(role), CStringGetTextDatum(privilege)};
    // The object's row, locked against a drop until this transaction ends: a
    // drop of another session that commits while this call waits for it
    // leaves no row (else the grant's foreign key reported the race as a
    // violation of sketchshare_shared.grants), and one that re-created the
    // name, a row of another incarnation than the one checked above.
    run("SELECT file_id FROM sketchshare_shared.objects WHERE name OPERATOR(pg_catalog.=) $1 FOR KEY SHARE", 1,
        types, values, false);
    bool isnull = true;
    const bool same =
        SPI_processed == 1 &&
        uint64(DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull))) == file_id;
    if (!same) {
        end_catalog(&s);
        report_dropped_meanwhile(name);
    }
    if (grant) {
        run("INSERT INTO sketchshare_shared.grants (name, grantee, privilege) VALUES ($1, $2, $3) "
            "ON CONFLICT DO NOTHING",
            3, types, values, false);
    } else if (strcmp(privilege, "read") == 0) {  // no write without read
        run("DELETE FROM sketchshare_shared.grants WHERE name OPERATOR(pg_catalog.=) $1 "
            "AND grantee OPERATOR(pg_catalog.=) $2",
            2, types, values, false);
    } else {  // write includes read: revoking it leaves read
        run("WITH writer AS (DELETE FROM sketchshare_shared.grants WHERE name OPERATOR(pg_catalog.=) $1 "
            "AND grantee OPERATOR(pg_catalog.=) $2 AND privilege OPERATOR(pg_catalog.=) 'write' "
            "RETURNING name, grantee) "
            "INSERT INTO sketchshare_shared.grants (name, grantee, privilege) SELECT name, grantee, 'read' "
            "FROM writer ON CONFLICT DO NOTHING",
            2, types, values, false);
    }
    end_catalog(&s);
    push_pending(Pending::acl_changed, name, file_id);
    local_epoch++;
}

}  // namespace shared
}  // namespace sketch_pg
