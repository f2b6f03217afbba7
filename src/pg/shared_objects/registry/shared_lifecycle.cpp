// The lifecycle of shared objects: creates, drops and attaches, the file
// actions resolved at (sub)transaction end, the drop of the extension, and
// the sweep of what crashes and interrupted creates left.
#include "shared_objects/registry/shared_registry.hpp"
#include "shared_objects/registry/registry_internal.hpp"
#include "shared_objects/transactional/transactional_adds.hpp"

#include <sys/stat.h>

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

// ---- pending file actions, resolved at (sub)transaction end ----

namespace {

struct PendingAction {
    Pending what;
    int nest_level;
    uint64 file_id;
    char name[64];
    PendingAction* next;
};

PendingAction* pending = nullptr;

}  // namespace

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

namespace {

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

}  // namespace

namespace {

// Whether the transaction drops the extension (drop_all_at_commit's action
// is pending: a rolled back savepoint's would be gone).
bool drops_extension() {
    for (const PendingAction* a = pending; a != nullptr; a = a->next)
        if (a->what == Pending::folder_emptied) return true;
    return false;
}

// A prepared transaction commits or rolls back later, perhaps in another
// session, where no pending action of this backend runs. A drop of the
// extension may still be prepared (Citus prepares every worker's part of a
// DROP EXTENSION): its actions are let go, and the files stay, intact for a
// ROLLBACK PREPARED, and after a COMMIT PREPARED names no object has, which
// a create of the name replaces (as after a drop that never loaded the
// library).
void forget_pending() {
    while (pending != nullptr) {
        PendingAction* a = pending;
        pending = a->next;
        pfree(a);
    }
    local_epoch++;
    if (cache != nullptr) sweep_dropped();
}

}  // namespace

void xact_callback(XactEvent event, void*) {
    switch (event) {
        case XACT_EVENT_PRE_PREPARE:
        case XACT_EVENT_PARALLEL_PRE_COMMIT:
            if (pending != nullptr && event == XACT_EVENT_PRE_PREPARE && !drops_extension())
                ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                                errmsg("cannot PREPARE a transaction that created, dropped or changed the "
                                       "privileges of shared objects"),
                                errhint("Create, drop, grant and revoke in a transaction that commits without "
                                        "PREPARE.")));
            break;
        case XACT_EVENT_PREPARE:
            catalog_ours = false;
            if (pending != nullptr) forget_pending();
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

namespace {

// A drop that takes the extension along (DROP EXTENSION, or a DROP SCHEMA
// ... CASCADE or DROP OWNED that reaches it) ends every object of this
// database with the catalog. Their files go at its commit, as a
// shared_drop's do (a rollback keeps them), and the folder after them: the
// actions run newest first. Each file is removed only if it still holds the
// incarnation listed now. Like a shared_drop, it first waits for the
// transactions with pending adds to each object and holds new ones off to
// its end: an adder's commit must not land in a file already removed, its
// adds lost while it reports success.
void drop_all_at_commit() {
    ensure_setup();
    push_pending(Pending::folder_emptied, "", 0);
    struct Listed {
        char name[64];
        uint64 file_id;
    };
    Listed* files;
    int n;
    {
        // copied out of the C++ vector before the waits, which may raise
        const std::vector<sh::ObjectFile> found = guarded([] { return sh::object_files(db_folder(MyDatabaseId)); });
        n = int(found.size());
        files = static_cast<Listed*>(palloc(sizeof(Listed) * (n + 1)));
        for (int i = 0; i < n; ++i) {
            strlcpy(files[i].name, found[i].name.c_str(), sizeof files[i].name);
            files[i].file_id = found[i].file_id;
        }
    }
    for (int i = 0; i < n; ++i) {
        wait_for_pending_adds(files[i].name, files[i].file_id);
        push_pending(Pending::dropped, files[i].name, files[i].file_id);
    }
    pfree(files);
    local_epoch++;
}

object_access_hook_type previous_object_access = nullptr;

void on_object_access(ObjectAccessType access, Oid class_id, Oid object_id, int sub_id, void* arg) {
    if (previous_object_access != nullptr) previous_object_access(access, class_id, object_id, sub_id, arg);
    if (access == OAT_DROP && class_id == ExtensionRelationId && object_id == get_extension_oid("sketchshare", true))
        drop_all_at_commit();
}

}  // namespace

// Files are named after their object, and the file of a dropped object
// stays until the drop commits: a create of the same name would take the
// place of a file that a rollback of the drop must give back.
void refuse_if_dropped_here(const char* name) {
    for (const PendingAction* a = pending; a != nullptr; a = a->next)
        if (a->what == Pending::dropped && strcmp(a->name, name) == 0)
            ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                            errmsg("cannot create shared object \"%s\" in the transaction that dropped it", name),
                            errhint("Commit the drop first.")));
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

void ensure_db_directory() {
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
// Returns the new file's id (0: the name is taken and if_not_exists); `path`
// receives its path.
static uint64 begin_new_object(const char* name, sh::Kind kind, uint64 file_bytes, bool readonly, char* path,
                               size_t pathlen, bool if_not_exists = false) {
    ensure_setup();
    refuse_in_read_only("create", name);
    check_size_limit(name, file_bytes);
    const uint64 file_id = new_file_id();
    if (!insert_catalog(name, kind, file_id, readonly, if_not_exists)) return 0;
    push_pending(Pending::created, name, file_id);
    local_epoch++;
    ensure_db_directory();
    object_path(name, path, pathlen);
    return file_id;
}

bool create_object(const char* name, sh::Kind kind, const uint8_t* geometry, uint32_t geometry_len,
                   uint64_t payload_bytes, const uint8_t* initial_payload, bool if_not_exists) {
    char path[MAXPGPATH];
    const uint64 file_id =
        begin_new_object(name, kind, sh::file_bytes(payload_bytes), false, path, sizeof path, if_not_exists);
    if (file_id == 0) return false;
    sh::CreateSpec spec{};
    spec.kind = kind;
    spec.geometry = geometry;
    spec.geometry_len = geometry_len;
    spec.payload_bytes = payload_bytes;
    spec.file_id = file_id;
    spec.initial_payload = initial_payload;
    spec.durable = enableFsync;
    spec.run = server_run();
    // No committed catalog row names this file, and we hold the name: a
    // complete file there was left by a crash (before a create committed or a
    // drop unlinked it) and is replaced.
    write_interruptibly("creation", name, [&](bool (*stop)()) {
        spec.stop = stop;
        sh::create_file(path, name, spec, sh::Existing::replace_orphan);
    });
    take_image_of_new(name);
    return true;
}

void watch_extension_drop() {
    previous_object_access = object_access_hook;
    object_access_hook = on_object_access;
}

// ---- drops and attaches, called by shared_sql.cpp ----

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
    wait_for_pending_adds(name, file_id);
    push_pending(Pending::dropped, name, file_id);
    local_epoch++;
    return true;
}

// An attach writes its copy where the object's file goes, replacing what is
// there: given that very file (an export copied into the folder of shared
// objects under the name it is attached as), it would remove its own source
// and then report it missing. Refused before anything is touched.
static void refuse_attach_in_place(const char* name, const char* from) {
    char path[MAXPGPATH];
    object_path(name, path, sizeof path);
    struct stat source, target;
    if (stat(from, &source) != 0 || stat(path, &target) != 0) return;
    if (source.st_dev == target.st_dev && source.st_ino == target.st_ino)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("cannot attach file \"%s\" as shared object \"%s\": it is the file the object would "
                               "be copied to",
                               from, name),
                        errhint("Attach it under another name, or from a copy outside the folder of shared "
                                "objects.")));
}

// Registers an attached (copied-in, frozen, read-only) object.
void attach_object(const char* name, const char* from) {
    ensure_setup();
    refuse_in_read_only("attach", name);
    sh::FileHeader h = guarded([&] { return sh::read_header(from, name, 0); });
    refuse_attach_in_place(name, from);
    if (describer_for(h.kind) == nullptr)
        ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
                        errmsg("file \"%s\" holds a kind of object this build cannot attach", from)));
    char path[MAXPGPATH];
    const uint64 bytes = sh::used_bytes(h);  // every published sub-filter of a grown object
    const uint64 file_id = begin_new_object(name, sh::Kind(h.kind), bytes, true, path, sizeof path);
    // An orphan: no committed row names it (we hold the name). Removed as a
    // drop removes a file, so that processes still mapping it let go.
    guarded([&] { sh::remove_file(path, 0); });
    write_interruptibly("copy", name, [&](bool (*stop)()) {
        sh::copy_file(from, path, name, true, file_id, server_run(), bytes, stop);  // the size checked above
    });
    take_image_of_new(name);
}

}  // namespace shared
}  // namespace sketch_pg
