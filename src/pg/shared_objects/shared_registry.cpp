#include "shared_objects/shared_registry.hpp"

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

namespace {

HTAB* cache = nullptr;
uint64 local_epoch = 1;  // bumped by this backend's catalog changes
// The catalog's rows are known to describe this database (see home_is_here).
bool catalog_ours = false;
uint64 role_epoch = 1;   // bumped by role and membership invalidations
uint64 check_round = 1;  // see check_file
TimestampTz round_statement = 0;  // the statement in which the round began
bool callbacks_registered = false;

// The id the kernel gave the server's System V shared memory segment, read
// from this process's mappings (/proc/self/maps names it /SYSV<key> and
// shows the id as its inode), where every backend has it from the
// postmaster; 0 if it is not found. The postmaster creates the segment anew,
// under the same key, at its start and at the restart after a backend crash,
// and the kernel gives it a new id. Read from the mapping, the id is the
// same for every process of a run even if the segment has been removed
// meanwhile (ipcrm, or systemd's RemoveIPC), when asking the kernel for the
// key's segment (shmget) would fail in backends started since.
uint64 shmem_segment_id() {
    char want[32];
    snprintf(want, sizeof want, "/SYSV%08lx", (unsigned long)UsedShmemSegID);
    FILE* maps = AllocateFile("/proc/self/maps", "r");
    if (maps == nullptr) return 0;
    uint64 id = 0;
    char line[512];
    while (id == 0 && fgets(line, sizeof line, maps) != nullptr) {
        unsigned long inode = 0;
        int path = 0;  // address, perms, offset, device, inode, then the path
        if (sscanf(line, "%*s %*s %*s %*s %lu %n", &inode, &path) == 1 && path > 0 &&
            strncmp(line + path, want, strlen(want)) == 0)
            id = inode;
    }
    FreeFile(maps);
    return id;
}

// The server run a file's lock words must belong to (sh::attach_file clears
// words of another), and that writes the files of new objects: new at every
// start of the postmaster (its start time) and at every restart after a
// backend crash (a new shared memory segment). No process of an earlier run
// is alive then, so the ids its words hold are stale, even one the kernel
// has since given to a new process. Computed once per process.
uint64 server_run() {
    static const uint64 run = uint64(PgStartTime) * 0x9E3779B97F4A7C15ULL ^ shmem_segment_id();
    return run;
}

Describer describers[4];

int kind_slot(uint32 kind) {
    switch (kind) {
        case uint32(sh::Kind::bloom): return 1;
        case uint32(sh::Kind::cbf): return 2;
        case uint32(sh::Kind::reservoir): return 3;
        default: return -1;
    }
}

void sweep_dropped();

// The folder of every database's objects, relative to the data directory,
// and in it one folder per database, named by its oid.
constexpr const char* kObjectsFolder = "sketchshare";
std::string db_folder(Oid db) { return std::string(kObjectsFolder) + "/" + std::to_string(db); }

// ---- pending file actions, resolved at (sub)transaction end ----

enum class Pending : uint8 { created, dropped, acl_changed, folder_emptied };

struct PendingAction {
    Pending what;
    int nest_level;
    uint64 file_id;
    char name[64];
    PendingAction* next;
};

PendingAction* pending = nullptr;

void push_pending(Pending what, const char* name, uint64 file_id) {
    // A dropped object's file is removed once the commit is done, and that
    // cannot be undone: the commit record must reach the WAL first, as
    // PostgreSQL makes sure for the files of dropped relations. Under
    // synchronous_commit = off it might not yet have, and a crash then would
    // bring the catalog row back without its file.
    if (what == Pending::dropped) ForceSyncCommit();
    auto* a = static_cast<PendingAction*>(MemoryContextAllocZero(TopMemoryContext, sizeof(PendingAction)));
    a->what = what;
    a->nest_level = GetCurrentTransactionNestLevel();
    a->file_id = file_id;
    strlcpy(a->name, name, sizeof a->name);
    a->next = pending;
    pending = a;
}

// Bumps acl_generation in the file so other backends re-read the grants.
void bump_acl(const char* name, uint64 file_id) {
    char path[MAXPGPATH];
    object_path(name, path, sizeof path);
    bool found = false;
    auto* e = static_cast<Entry*>(hash_search(cache, name, HASH_FIND, &found));
    if (found && e->loaded && e->file_id == file_id && e->map.writable && !sh::file_changed(e->map, path)) {
        __atomic_fetch_add(&e->map.header()->acl_generation, 1, __ATOMIC_SEQ_CST);
        return;
    }
    try {
        sh::Mapping m = sh::attach_file(path, name, 0, true, server_run());
        if (m.header()->file_id == file_id) __atomic_fetch_add(&m.header()->acl_generation, 1, __ATOMIC_SEQ_CST);
        sh::unmap(m);
    } catch (...) {
        // read-only copies and damaged files: their readers re-check at the next epoch
    }
}

// Runs (at top-level commit or abort) or discards the actions of the
// levels being closed. Never raises an ERROR: the commit is already done.
void resolve(bool commit, int level) {
    PendingAction** link = &pending;
    while (*link != nullptr) {
        PendingAction* a = *link;
        if (a->nest_level < level) {
            link = &a->next;
            continue;
        }
        char path[MAXPGPATH];
        object_path(a->name, path, sizeof path);
        if (commit) {
            // The dropped object's file, or what damage left of it.
            if (a->what == Pending::dropped) sh::remove_file(path, a->file_id, true);
            if (a->what == Pending::acl_changed) bump_acl(a->name, a->file_id);
            if (a->what == Pending::folder_emptied) rmdir(path);  // fails, harmlessly, if a file stayed
        } else if (a->what == Pending::created) {
            sh::remove_file(path, a->file_id);
        }
        *link = a->next;
        pfree(a);
    }
    local_epoch++;
    if (cache != nullptr) sweep_dropped();
}

void xact_callback(XactEvent event, void*) {
    switch (event) {
        case XACT_EVENT_PRE_PREPARE:
        case XACT_EVENT_PARALLEL_PRE_COMMIT:
            if (pending != nullptr && event == XACT_EVENT_PRE_PREPARE)
                ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                                errmsg("cannot PREPARE a transaction that created, dropped or changed the "
                                       "privileges of shared objects")));
            break;
        case XACT_EVENT_COMMIT:
        case XACT_EVENT_PARALLEL_COMMIT:
            if (pending != nullptr) resolve(true, 0);
            break;
        case XACT_EVENT_ABORT:
        case XACT_EVENT_PARALLEL_ABORT:
            catalog_ours = false;  // a claim (claim_catalog) may have been this transaction's
            if (pending != nullptr) resolve(false, 0);
            break;
        default: break;
    }
}

void subxact_callback(SubXactEvent event, SubTransactionId, SubTransactionId, void*) {
    if (event == SUBXACT_EVENT_ABORT_SUB) catalog_ours = false;  // as at a top-level abort
    if (pending == nullptr) return;
    const int level = GetCurrentTransactionNestLevel();
    if (event == SUBXACT_EVENT_ABORT_SUB) {
        resolve(false, level);
    } else if (event == SUBXACT_EVENT_COMMIT_SUB) {
        for (PendingAction* a = pending; a != nullptr; a = a->next)
            if (a->nest_level >= level) a->nest_level = level - 1;
    }
}

void role_invalidated(Datum, int, uint32) { role_epoch++; }

// The catalog table, as last opened. DROP EXTENSION drops it (and a later
// CREATE EXTENSION makes another) without marking any file dropped: its
// relcache invalidation, which every backend receives, is what makes the
// entries read from it be read again.
Oid catalog_relid = InvalidOid;
void catalog_invalidated(Datum, Oid relid) {
    if (relid == InvalidOid || relid == catalog_relid) {
        local_epoch++;
        catalog_ours = false;
    }
}

void ensure_setup() {
    if (cache == nullptr) {
        HASHCTL ctl;
        memset(&ctl, 0, sizeof ctl);
        ctl.keysize = 64;
        ctl.entrysize = sizeof(Entry);
        ctl.hcxt = TopMemoryContext;
        cache = hash_create("sketchshare shared objects", 16, &ctl, HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);
    }
    if (!callbacks_registered) {
        RegisterXactCallback(xact_callback, nullptr);
        RegisterSubXactCallback(subxact_callback, nullptr);
        CacheRegisterSyscacheCallback(AUTHMEMROLEMEM, role_invalidated, 0);
        CacheRegisterSyscacheCallback(AUTHOID, role_invalidated, 0);
        CacheRegisterRelcacheCallback(catalog_invalidated, 0);
        callbacks_registered = true;
    }
}

// A drop that takes the extension along (DROP EXTENSION, or a DROP SCHEMA
// ... CASCADE or DROP OWNED that reaches it) ends every object of this
// database with the catalog. Their files go at its commit, as a
// shared_drop's do (a rollback keeps them), and the folder after them: the
// actions run newest first. Each file is removed only if it still holds the
// incarnation listed now.
void drop_all_at_commit() {
    ensure_setup();
    push_pending(Pending::folder_emptied, "", 0);
    for (const sh::ObjectFile& f : guarded([] { return sh::object_files(db_folder(MyDatabaseId)); }))
        push_pending(Pending::dropped, f.name.c_str(), f.file_id);
    local_epoch++;
}

object_access_hook_type previous_object_access = nullptr;

void on_object_access(ObjectAccessType access, Oid class_id, Oid object_id, int sub_id, void* arg) {
    if (previous_object_access != nullptr) previous_object_access(access, class_id, object_id, sub_id, arg);
    if (access == OAT_DROP && class_id == ExtensionRelationId && object_id == get_extension_oid("sketchshare", true))
        drop_all_at_commit();
}

// ---- the catalog, through SPI as the owner of its schema ----

// The queries name every table, function and operator with its schema, and
// run with search_path pinned as well, so that nothing another role created
// (in public, or a temporary schema) can stand in for what they mean.
struct AsCatalogOwner {
    Oid saved_user;
    int saved_context;
    int guc_level;
};

bool home_is_here();

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

struct CatalogRow {
    uint32 kind;
    Oid owner;
    uint64 file_id;
    bool readonly;
    int ngrants;
    GrantRow* grants;  // in the caller's memory context
};

uint32 kind_from_text(const char* kind) {
    if (strcmp(kind, "cbf") == 0) return uint32(sh::Kind::cbf);
    if (strcmp(kind, "bloom") == 0) return uint32(sh::Kind::bloom);
    if (strcmp(kind, "reservoir") == 0) return uint32(sh::Kind::reservoir);
    return 0;
}

bool read_catalog(const char* name, CatalogRow* row) {
    AsCatalogOwner s;
    begin_catalog(&s);
    Oid types[1] = {TEXTOID};
    Datum values[1] = {CStringGetTextDatum(name)};
    run("SELECT kind, owner, file_id, readonly FROM sketchshare_shared.objects WHERE name OPERATOR(pg_catalog.=) $1",
        1, types, values, false);
    bool found = SPI_processed == 1 && catalog_ours;
    if (found) {
        HeapTuple t = SPI_tuptable->vals[0];
        TupleDesc d = SPI_tuptable->tupdesc;
        bool isnull;
        char* kind = SPI_getvalue(t, d, 1);
        row->kind = kind_from_text(kind);
        row->owner = DatumGetObjectId(SPI_getbinval(t, d, 2, &isnull));
        row->file_id = uint64(DatumGetInt64(SPI_getbinval(t, d, 3, &isnull)));
        row->readonly = DatumGetBool(SPI_getbinval(t, d, 4, &isnull));
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

void release(Entry* e) {
    if (e->loaded && e->map.fd >= 0) ReleaseExternalFD();
    if (e->loaded) sh::unmap(e->map);
    if (e->grants != nullptr) pfree(e->grants);
    e->grants = nullptr;
    e->ngrants = 0;
    e->loaded = false;
}

// A cached entry's file, checked before its mapping is read in a new check
// round (and by open_object always): sh::file_changed, an fstat of the
// descriptor the mapping keeps (else an lstat of its path) and a look at the
// mapped header. A file truncated, extended, replaced or edited since it was
// mapped is let go of (false): the next open maps and validates it again and
// reports what is wrong, XX001 naming the object. A stat is a system call,
// here as costly as many lookups (page-table isolation), so the per-row calls
// never make one: an entry is checked once per round. A round begins with each
// statement the client sends (a FETCH from an open cursor too), at each call
// site's first call (each statement of a function; a PL/pgSQL expression's,
// once per transaction) and at each prefetching scan. A file truncated between
// the check and a later access of the same statement can still fault
// (docs/operations.md, "Limits").
bool check_file(Entry* e, bool always) {
    if (!e->loaded) return false;
    const uint64 round = current_round();
    if (!always && e->file_checked == round) return true;
    char path[MAXPGPATH];
    object_path(e->name, path, sizeof path);
    if (sh::file_changed(e->map, path)) {
        release(e);
        return false;
    }
    e->file_checked = round;
    return true;
}

// Lets go of the mappings of dropped objects (their files are unlinked and
// their disk space comes back only when the last mapping goes), and of
// changed files (check_file), before reading their headers.
void sweep_dropped() {
    HASH_SEQ_STATUS seq;
    hash_seq_init(&seq, cache);
    while (auto* e = static_cast<Entry*>(hash_seq_search(&seq)))
        if (check_file(e, false) && (sh::load_flags(e->map.header()) & sh::kDropped)) release(e);
}

[[noreturn]] void report_dropped_meanwhile(const char* name) {
    ereport(ERROR, (errcode(ERRCODE_OBJECT_IN_USE),
                    errmsg("shared object \"%s\" was dropped or re-created meanwhile; try again", name)));
    pg_unreachable();
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
    const bool found = SPI_processed == 1 && catalog_ours;
    if (found) {
        bool isnull;
        *file_id = uint64(DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull)));
    }
    end_catalog(&s);
    return found;
}

// The file of a catalog row read a moment ago failed to attach, or holds
// another incarnation: if the object has been dropped since (its file
// removed), or its name created again (a new file, perhaps still being
// written), that race is what the caller meets, not damage. Raises 42704 or
// 55006 then; returns if the row still stands.
void refuse_if_raced(const char* name, uint64 file_id) {
    uint64 now = 0;
    if (!committed_file_id(name, &now))
        ereport(ERROR, (errcode(ERRCODE_UNDEFINED_OBJECT), errmsg("shared object \"%s\" does not exist", name),
                        errdetail("It was dropped while this call opened it.")));
    if (now != file_id) report_dropped_meanwhile(name);
}

// Maps the file of a catalog row into the entry. Errors are raised after
// the C++ frames are gone.
void load(Entry* e, CatalogRow row) {
    char path[MAXPGPATH];
    object_path(e->name, path, sizeof path);
    const bool writable = !row.readonly;
    sh::Mapping m;
    PendingError failure;
    if (!captured([&] { m = sh::attach_file(path, e->name, row.kind, writable, server_run()); }, failure)) {
        refuse_if_raced(e->name, row.file_id);
        raise(failure);
    }
    // The grants are read again after acl_generation: a grant that commits
    // in between either is in them or bumps the generation after this read.
    const uint32 acl = __atomic_load_n(&m.header()->acl_generation, __ATOMIC_ACQUIRE);
    CatalogRow again;
    if (!read_catalog(e->name, &again) || again.file_id != row.file_id) {
        sh::unmap(m);
        report_dropped_meanwhile(e->name);
    }
    row.ngrants = again.ngrants;
    row.grants = again.grants;
    if (m.fixed.file_id != row.file_id) {
        sh::unmap(m);
        refuse_if_raced(e->name, row.file_id);
        ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
                        errmsg("file \"%s\" does not belong to shared object \"%s\" (another incarnation)", path,
                               e->name),
                        errhint("Drop the object with shared_drop('%s') and create it again.", e->name)));
    }
    // The mapping keeps its file's descriptor for check_file, out of fd.c's
    // budget; beyond fd.c's share for such descriptors, the path serves.
    if (!AcquireExternalFD()) sh::drop_descriptor(m);
    e->map = m;
    e->loaded = true;
    e->kind = row.kind;
    e->owner = row.owner;
    e->readonly = row.readonly;
    e->file_id = row.file_id;
    e->epoch = local_epoch;
    e->acl_loaded = acl;
    e->payload_checked = false;
    e->file_checked = current_round();
    e->ngrants = row.ngrants;
    e->grants = static_cast<GrantRow*>(MemoryContextAlloc(TopMemoryContext, sizeof(GrantRow) * (row.ngrants + 1)));
    memcpy(e->grants, row.grants, sizeof(GrantRow) * row.ngrants);
    e->rights_user = InvalidOid;
}

// Still valid: not dropped, and neither this backend's catalog changes nor
// another backend's grants (acl_generation) have happened since it was read.
bool usable(const Entry* e) {
    return e->loaded && e->epoch == local_epoch && !(sh::load_flags(e->map.header()) & sh::kDropped) &&
           e->acl_loaded == __atomic_load_n(&e->map.header()->acl_generation, __ATOMIC_ACQUIRE);
}

uint8 compute_rights(const Entry* e, Oid user) {
    if (superuser_arg(user) || has_privs_of_role(user, e->owner)) return kRead | kWrite | kOwn;
    uint8 r = 0;
    for (int i = 0; i < e->ngrants; ++i)
        if (has_privs_of_role(user, e->grants[i].grantee)) r |= e->grants[i].write ? (kRead | kWrite) : kRead;
    return r;
}

const char* right_name(uint8 need) {
    if (need & kOwn) return "ownership of";
    if (need & kWrite) return "the write privilege on";
    return "the read privilege on";
}

void check_rights(Entry* e, uint8 need) {
    const Oid user = GetUserId();
    const uint32 acl = __atomic_load_n(&e->map.header()->acl_generation, __ATOMIC_ACQUIRE);
    if (e->rights_user != user || e->rights_acl != acl || e->rights_roles != role_epoch) {
        e->rights = compute_rights(e, user);
        e->rights_user = user;
        e->rights_acl = acl;
        e->rights_roles = role_epoch;
    }
    if ((e->rights & need) != need)
        ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                        errmsg("permission denied for shared object \"%s\"", e->name),
                        errdetail("This needs %s shared object \"%s\".", right_name(need), e->name),
                        (need & kOwn) ? 0
                                      : errhint("The owner can grant it with shared_grant('%s', role, '%s').",
                                                e->name, (need & kWrite) ? "write" : "read")));
}

void check_kind(const Entry* e, uint32 kind) {
    if (kind != 0 && e->kind != kind)
        ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE),
                        errmsg("shared object \"%s\" is a %s, not a %s", e->name, sh::kind_name(e->kind),
                               sh::kind_name(kind))));
}

}  // namespace

// Called from the PG faces' registration functions, which _PG_init calls
// when the library is loaded, before any call.
void register_pg_kind(sh::Kind kind, sh::GeometryValidator validator, Describer describe,
                      sh::LockWordsReset reset_lock_words) {
    const int s = kind_slot(uint32(kind));
    if (s < 0) return;
    describers[s] = describe;
    sh::register_kind(kind, validator, reset_lock_words);
}

Describer describer_for(uint32 kind) {
    int s = kind_slot(kind);
    return s < 0 ? nullptr : describers[s];
}

void object_path(const char* name, char* out, size_t outlen) {
    snprintf(out, outlen, "%s/%s", db_folder(MyDatabaseId).c_str(), name);
}

void checked_name(text* name, char out[64]) {
    const char* data = VARDATA_ANY(name);
    const size_t len = VARSIZE_ANY_EXHDR(name);
    if (!sh::valid_object_name(data, len)) {
        // shown cut: it may be any text, megabytes of it
        const int shown = pg_mbcliplen(data, int(len), 64);
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("invalid shared object name \"%.*s%s\"", shown, data, size_t(shown) < len ? "..." : ""),
                        errdetail("A name is 1 to 63 letters, digits, '_', '-' or '.', not starting with '.'.")));
    }
    memcpy(out, data, len);
    memset(out + len, 0, 64 - len);
}

// open_object, checking a cached entry's file always or once per round.
static Entry* open_entry(const char* name, uint32 kind, uint8 need, bool always_check) {
    ensure_setup();
    bool found = false;
    auto* e = static_cast<Entry*>(hash_search(cache, name, HASH_FIND, &found));
    if (!found || !check_file(e, always_check) || !usable(e)) {
        if (found) release(e);
        sweep_dropped();
        CatalogRow row;
        // A name that names nothing gets no entry: a backend probing many
        // such names would grow the cache by one each, and entries are never
        // removed (call sites keep pointers to them).
        if (!read_catalog(name, &row))
            ereport(ERROR, (errcode(ERRCODE_UNDEFINED_OBJECT), errmsg("shared object \"%s\" does not exist", name)));
        if (!found) {
            e = static_cast<Entry*>(hash_search(cache, name, HASH_ENTER, &found));
            e->loaded = false;
            e->grants = nullptr;
            e->ngrants = 0;
        }
        load(e, row);
    }
    check_kind(e, kind);
    check_rights(e, need);
    return e;
}

Entry* open_object(const char* name, uint32 kind, uint8 need) { return open_entry(name, kind, need, true); }

void begin_check_round() { check_round++; }

// statement_timestamp() is set at each message of the client's (a query, a
// FETCH); a function call reads it.
uint64 current_round() {
    const TimestampTz statement = GetCurrentStatementStartTimestamp();
    if (unlikely(statement != round_statement)) {
        round_statement = statement;
        begin_check_round();
    }
    return check_round;
}

// A call site's cache is made at its first call: its FmgrInfo belongs to one
// execution of one expression (one statement; a PL/pgSQL expression's, one
// transaction), which begins a check round.
CallCache* call_cache(FunctionCallInfo fcinfo) {
    auto* cc = static_cast<CallCache*>(fcinfo->flinfo->fn_extra);
    if (cc == nullptr) {
        cc = static_cast<CallCache*>(MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(CallCache)));
        cc->name_len = -1;
        fcinfo->flinfo->fn_extra = cc;
        begin_check_round();
    }
    return cc;
}

namespace {

// An entry opened before is still good for (kind, need) with no catalog
// access: usable() in one pass (not dropped, no catalog change in this
// backend, no grant change anywhere) and the privilege decision current.
inline bool still_valid(const Entry* e, uint32 kind, uint8 need) {
    if (!e->loaded || e->epoch != local_epoch || e->rights_roles != role_epoch) return false;
    const sh::FileHeader* h = e->map.header();
    const uint32 acl = __atomic_load_n(&h->acl_generation, __ATOMIC_ACQUIRE);
    return !(sh::load_flags(h) & sh::kDropped) && acl == e->acl_loaded && acl == e->rights_acl &&
           e->rights_user == GetUserId() && (e->rights & need) == need && (kind == 0 || e->kind == kind);
}

// The entry of the last open_cached slow path, so that the first call of a
// new call site (every statement of a pgbench-style client) naming the same
// object skips the name check and the hash lookup. Entries are never removed
// from the cache, so the pointer stays valid.
Entry* last_entry = nullptr;
int last_len = 0;

}  // namespace

Entry* find_opened(const char* name, int len, uint32 kind, uint8 need) {
    if (cache == nullptr || len < 1 || len > 63) return nullptr;
    char key[64] = {};
    memcpy(key, name, size_t(len));
    bool found = false;
    auto* e = static_cast<Entry*>(hash_search(cache, key, HASH_FIND, &found));
    return found && check_file(e, false) && still_valid(e, kind, need) ? e : nullptr;
}

Entry* open_cached(FunctionCallInfo fcinfo, text* name, uint32 kind, uint8 need) {
    CallCache* cc = call_cache(fcinfo);
    const char* data = VARDATA_ANY(name);
    const int len = int(VARSIZE_ANY_EXHDR(name));
    Entry* e = cc->entry;
    // The per-row path: the same object as the last call of this call site.
    if (likely(e != nullptr && len == cc->name_len && memcmp(data, cc->name, size_t(len)) == 0 && cc->kind == kind &&
               cc->need == need && e->file_checked == current_round() && still_valid(e, kind, need)))
        return e;
    // A name equal (same length, same bytes) to one that passed checked_name is valid.
    if (last_entry != nullptr && len == last_len && memcmp(data, last_entry->name, size_t(len)) == 0 &&
        check_file(last_entry, false) && still_valid(last_entry, kind, need)) {
        e = last_entry;
    } else {
        char key[64];
        checked_name(name, key);
        e = open_entry(key, kind, need, false);
        last_entry = e;
        last_len = len;
    }
    memcpy(cc->name, e->name, 64);
    cc->name_len = len;
    cc->entry = e;
    cc->kind = kind;
    cc->need = need;
    return e;
}

const ItemHasher* cached_hasher(FunctionCallInfo fcinfo, int argno) {
    // A call site's argument types are fixed (its FmgrInfo belongs to one
    // expression), so the type is looked up once, not per row.
    return call_site_hasher(&call_cache(fcinfo)->hasher, fcinfo, argno);
}

void array_elements(ArrayType* items, Datum** values, bool** nulls, int* n) {
    const Oid elem = ARR_ELEMTYPE(items);
    int16 typlen;
    bool typbyval;
    char typalign;
    get_typlenbyvalalign(elem, &typlen, &typbyval, &typalign);
    deconstruct_array(items, elem, typlen, typbyval, typalign, values, nulls, n);
}

sketch::Hash128* hash_array_arg(FunctionCallInfo fcinfo, int argno, uint64_t seed, int* count) {
    ArrayType* items = PG_GETARG_ARRAYTYPE_P(argno);
    const Oid elem = ARR_ELEMTYPE(items);
    CallCache* cc = call_cache(fcinfo);
    if (cc->hasher.typid != elem) item_hasher_init(&cc->hasher, elem, fcinfo->flinfo->fn_mcxt);
    Datum* values;
    bool* nulls;
    int n;
    array_elements(items, &values, &nulls, &n);
    auto* hashes = static_cast<sketch::Hash128*>(palloc(sizeof(sketch::Hash128) * (n > 0 ? n : 1)));
    int kept = 0;
    for (int i = 0; i < n; ++i)
        if (!nulls[i]) hashes[kept++] = hash_item(&cc->hasher, values[i], seed);
    *count = kept;
    return hashes;
}

// A read-only transaction changes nothing: refused in the user's terms (`what`
// the call does to the object), and for creates, drops, grants and revokes
// before the catalog query that PostgreSQL would refuse in its own terms.
static void refuse_in_read_only(const char* what, const char* name) {
    if (XactReadOnly)
        ereport(ERROR, (errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
                        errmsg("cannot %s shared object \"%s\" in a read-only transaction", what, name)));
}

void refuse_change(Entry* e) {
    refuse_in_read_only("change", e->name);
    if (e->readonly || is_frozen(e))
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("shared object \"%s\" is frozen", e->name),
                        errdetail("A frozen object is read-only; it cannot be changed again.")));
}

// Slices of 20 ms: a cancel or statement_timeout is honoured within one.
static constexpr int kSliceMs = 20;

// A drop that commits while a call waits for the lock gives the payload's
// blocks back under the lock (sh::remove_file): once the lock is granted,
// a dropped object's payload must not be touched.
static bool dropped(const Entry* e) { return (sh::load_flags(e->map.header()) & sh::kDropped) != 0; }

void lock_shared(Entry* e, sketch::ReadTicket* ticket) {
    sketch::RWLock lock = e->map.lock();
    while (lock.lock_shared(lock_owner_id(), kSliceMs, ticket) != sketch::LockResult::acquired)
        CHECK_FOR_INTERRUPTS();
    if (unlikely(dropped(e))) {
        lock.unlock_shared(lock_owner_id(), *ticket);
        report_dropped_meanwhile(e->name);
    }
}

void unlock_shared(Entry* e, const sketch::ReadTicket& ticket) { e->map.lock().unlock_shared(lock_owner_id(), ticket); }

void back_off(Entry* e, const sketch::ReadTicket& ticket) {
    unlock_shared(e, ticket);
    CHECK_FOR_INTERRUPTS();
    pg_usleep(100);
}

void lock_exclusive(Entry* e) {
    sketch::RWLock lock = e->map.lock();
    while (lock.lock_exclusive(lock_owner_id(), kSliceMs) != sketch::LockResult::acquired) CHECK_FOR_INTERRUPTS();
    if (unlikely(dropped(e))) {
        lock.unlock_exclusive(lock_owner_id());
        report_dropped_meanwhile(e->name);
    }
}

void unlock_exclusive(Entry* e) { e->map.lock().unlock_exclusive(lock_owner_id()); }

uint64 new_file_id() {
    uint64 id = 0;
    while (id == 0)
        if (!pg_strong_random(&id, sizeof id)) elog(ERROR, "could not generate a random file id");
    return id & 0x7fffffffffffffffULL;  // fits the catalog's bigint
}

// Files are named after their object, and the file of a dropped object
// stays until the drop commits: a create of the same name would take the
// place of a file that a rollback of the drop must give back.
static void refuse_if_dropped_here(const char* name) {
    for (const PendingAction* a = pending; a != nullptr; a = a->next)
        if (a->what == Pending::dropped && strcmp(a->name, name) == 0)
            ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                            errmsg("cannot create shared object \"%s\" in the transaction that dropped it", name),
                            errhint("Commit the drop first.")));
}

static void insert_catalog(const char* name, sh::Kind kind, uint64 file_id, bool readonly) {
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
    if (!inserted)
        ereport(ERROR, (errcode(ERRCODE_DUPLICATE_OBJECT), errmsg("shared object \"%s\" already exists", name)));
}

// DROP DATABASE runs no hook of ours: the folder of a database dropped since
// goes at the next create of an object in any database. (A new database
// could reuse the oid only after the oid counter wraps around, and it has
// no object before its CREATE DATABASE commits, which the check would see.)
static void remove_folders_of_dropped_databases() {
    for (const uint32_t oid : guarded([] { return sh::numbered_folders(kObjectsFolder); }))
        if (oid != MyDatabaseId && !SearchSysCacheExists1(DATABASEOID, ObjectIdGetDatum(oid)))
            sh::remove_folder(db_folder(oid));
}

// The object files of this database that an earlier server run wrote and no
// committed object names: left by a crash after a create wrote its file and
// before it committed, or after a drop committed and before it removed its
// file. They are orphans: no transaction of an earlier run is in progress any
// more (a crash restart ends every one), and a new object always gets a file
// of its own run. A file of this run may be a create in progress, and one of
// unknown run (written by an earlier version) may be anything: both stay.
// Unfinished files of creates whose process is gone (killed while writing)
// go too, whatever their run (sh::remove_abandoned_creates).
// Each backend looks once, at its first create: after a crash restart every
// backend is new.
static void remove_orphans_of_earlier_runs() {
    static bool looked = false;
    if (looked) return;
    looked = true;
    sh::remove_abandoned_creates(db_folder(MyDatabaseId));
    std::vector<sh::ObjectFile> earlier;
    for (sh::ObjectFile& f : guarded([] { return sh::object_files(db_folder(MyDatabaseId)); }))
        if (f.created_run != 0 && f.created_run != server_run()) earlier.push_back(std::move(f));
    if (earlier.empty()) return;
    const int n = int(earlier.size());
    auto* names = static_cast<Datum*>(palloc(sizeof(Datum) * n));
    auto* ids = static_cast<Datum*>(palloc(sizeof(Datum) * n));
    for (int i = 0; i < n; ++i) {
        names[i] = CStringGetTextDatum(earlier[i].name.c_str());
        ids[i] = Int64GetDatum(int64(earlier[i].file_id));
    }
    Oid types[2] = {TEXTARRAYOID, INT8ARRAYOID};
    Datum values[2] = {PointerGetDatum(construct_array(names, n, TEXTOID, -1, false, TYPALIGN_INT)),
                       PointerGetDatum(construct_array(ids, n, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE))};
    AsCatalogOwner s;
    begin_catalog(&s);
    run("SELECT f.name, f.file_id FROM ROWS FROM (pg_catalog.unnest($1), pg_catalog.unnest($2)) AS f(name, file_id) "
        "WHERE NOT EXISTS (SELECT FROM sketchshare_shared.objects o WHERE o.name OPERATOR(pg_catalog.=) f.name "
        "AND o.file_id OPERATOR(pg_catalog.=) f.file_id)",
        2, types, values, true);
    for (uint64 i = 0; i < SPI_processed; ++i) {
        bool isnull;
        const HeapTuple t = SPI_tuptable->vals[i];
        char path[MAXPGPATH];
        object_path(SPI_getvalue(t, SPI_tuptable->tupdesc, 1), path, sizeof path);
        // removed only if still that incarnation, checked under the folder's lock
        sh::remove_file(path, uint64(DatumGetInt64(SPI_getbinval(t, SPI_tuptable->tupdesc, 2, &isnull))));
    }
    end_catalog(&s);
}

static void ensure_db_directory() {
    guarded([] { sh::ensure_directory(".", db_folder(MyDatabaseId), "shared objects"); });
    remove_folders_of_dropped_databases();
    remove_orphans_of_earlier_runs();
}

// sketchshare.max_shared_object_size (module.cpp): a file of file_bytes for
// object `name` must fit it. Raises 54000 otherwise, and 42501 in a session
// that lost the server's value of it.
static void check_size_limit(const char* name, uint64 file_bytes) {
    if (!max_shared_object_size_known())
        ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                        errmsg("cannot create shared object \"%s\": the server's sketchshare.max_shared_object_size "
                               "is unknown in this session",
                               name),
                        errdetail("A connection option of a role that may not set it took the place of the server's "
                                  "value before the library was loaded."),
                        errhint("Connect without setting sketchshare.max_shared_object_size.")));
    if (max_shared_object_size < 0 || file_bytes <= uint64(max_shared_object_size) * 1024) return;
    ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                    errmsg("shared object \"%s\" would need a file of %llu bytes, over the limit of %s", name,
                           (unsigned long long)file_bytes,
                           GetConfigOptionByName("sketchshare.max_shared_object_size", nullptr, false)),
                    errhint("The limit is sketchshare.max_shared_object_size (-1: no limit); only superusers and "
                            "roles granted SET on it can change it.")));
}

// Every new object file starts here (a create of any kind, a create from a
// value, an attach), before anything is touched: the size limit, then the
// catalog row, the pending action that removes the file if the transaction
// rolls back (pushed before the file exists) and the database's folder.
// Returns the new file's id; `path` receives its path.
static uint64 begin_new_object(const char* name, sh::Kind kind, uint64 file_bytes, bool readonly, char* path,
                               size_t pathlen) {
    ensure_setup();
    refuse_in_read_only("create", name);
    check_size_limit(name, file_bytes);
    const uint64 file_id = new_file_id();
    insert_catalog(name, kind, file_id, readonly);
    push_pending(Pending::created, name, file_id);
    local_epoch++;
    ensure_db_directory();
    object_path(name, path, pathlen);
    return file_id;
}

void create_object(const char* name, sh::Kind kind, const uint8_t* geometry, uint32_t geometry_len,
                   uint64_t payload_bytes, const uint8_t* initial_payload) {
    char path[MAXPGPATH];
    const uint64 file_id = begin_new_object(name, kind, sh::file_bytes(payload_bytes), false, path, sizeof path);
    sh::CreateSpec spec{};
    spec.kind = kind;
    spec.geometry = geometry;
    spec.geometry_len = geometry_len;
    spec.payload_bytes = payload_bytes;
    spec.file_id = file_id;
    spec.initial_payload = initial_payload;
    spec.durable = enableFsync;
    spec.run = server_run();
    // Writing a large object's file takes a while: a cancel, statement_timeout
    // or terminate stops it between 2 MiB pieces (the file is removed) and is
    // then raised as usual.
    spec.stop = [] { return QueryCancelPending || ProcDiePending; };
    bool stopped = false;
    // No committed catalog row names this file, and we hold the name: a
    // complete file there was left by a crash (before a create committed or a
    // drop unlinked it) and is replaced.
    guarded([&] {
        try {
            sh::create_file(path, name, spec, sh::Existing::replace_orphan);
        } catch (const sketch::Error&) {
            if (!spec.stop()) throw;
            stopped = true;
        }
    });
    if (stopped) {
        CHECK_FOR_INTERRUPTS();
        ereport(ERROR, (errcode(ERRCODE_QUERY_CANCELED),
                        errmsg("creation of shared object \"%s\" was interrupted", name)));
    }
}

void watch_extension_drop() {
    previous_object_access = object_access_hook;
    object_access_hook = on_object_access;
}

// ---- catalog functions used by shared_sql.cpp ----

// What a create of a name that no committed object has may have left at it:
// an unfinished file whose creator is gone, or a complete file of an earlier
// server run (killed before its commit). A drop with if_exists removes it, so
// that the disk comes back without waiting for a create of that name. A file
// of this run may be a create that has not committed yet: it stays.
static void remove_remains_of_create(const char* name) {
    char path[MAXPGPATH];
    object_path(name, path, sizeof path);
    if (sh::remove_abandoned_create(path)) return;
    uint64 file_id = 0;
    try {
        const sh::FileHeader h = sh::read_header(path, name, 0);
        if (h.created_run != 0 && h.created_run != server_run()) file_id = h.file_id;
    } catch (...) {
        return;  // nothing there, or damage a create of the name reports
    }
    if (file_id != 0) sh::remove_file(path, file_id);
}

// Deletes the row (after checking ownership); the file goes at commit.
bool drop_object(const char* name, bool missing_ok) {
    ensure_setup();
    refuse_in_read_only("drop", name);
    AsCatalogOwner s;
    begin_catalog(&s);
    claim_catalog();
    Oid types[1] = {TEXTOID};
    Datum values[1] = {CStringGetTextDatum(name)};
    run("SELECT owner, file_id FROM sketchshare_shared.objects WHERE name OPERATOR(pg_catalog.=) $1 FOR UPDATE", 1,
        types, values, false);
    bool found = SPI_processed == 1;
    Oid owner = InvalidOid;
    uint64 file_id = 0;
    if (found) {
        bool isnull;
        owner = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
        file_id = uint64(DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull)));
    }
    end_catalog(&s);
    if (found && !superuser() && !has_privs_of_role(GetUserId(), owner))
        ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                        errmsg("permission denied for shared object \"%s\"", name),
                        errdetail("Only its owner can drop shared object \"%s\".", name)));
    if (found) {
        begin_catalog(&s);
        run("DELETE FROM sketchshare_shared.objects WHERE name OPERATOR(pg_catalog.=) $1", 1, types, values, false);
        end_catalog(&s);
    }
    if (!found) {
        if (!missing_ok)
            ereport(ERROR, (errcode(ERRCODE_UNDEFINED_OBJECT), errmsg("shared object \"%s\" does not exist", name)));
        remove_remains_of_create(name);
        return false;
    }
    push_pending(Pending::dropped, name, file_id);
    local_epoch++;
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

// Registers an attached (copied-in, frozen, read-only) object.
void attach_object(const char* name, const char* from) {
    ensure_setup();
    refuse_in_read_only("attach", name);
    sh::FileHeader h = guarded([&] { return sh::read_header(from, name, 0); });
    if (kind_slot(h.kind) < 0)
        ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
                        errmsg("file \"%s\" holds a kind of object this build cannot attach", from)));
    char path[MAXPGPATH];
    const uint64 file_id = begin_new_object(name, sh::Kind(h.kind), h.total_bytes, true, path, sizeof path);
    guarded([&] {
        // An orphan: no committed row names it (we hold the name). Removed as
        // a drop removes a file, so that processes still mapping it let go.
        sh::remove_file(path, 0);
        sh::copy_file(from, path, name, true, file_id, server_run(), h.total_bytes);  // the size checked above
    });
}

}  // namespace shared
}  // namespace sketch_pg
