// What the pieces of the registry of shared objects share, inside
// src/pg/shared_objects/registry/ (shared_registry.hpp is what the rest of the face
// uses):
//   shared_registry.cpp   the per-backend cache of mapped entries, open and
//                         attach, the file checks, privilege checks, the lock
//   shared_catalog.cpp    the catalog, through SPI as the owner of its schema
//   shared_lifecycle.cpp  create, drop and attach; the file actions at
//                         (sub)transaction end; the drop of the extension; the
//                         sweep of orphans and interrupted creates
//   shared_images.cpp     the images of objects in the catalog: taken, and
//                         written back as a missing or foreign file when a
//                         row's file is mapped
//   server_run.cpp        which run of the server this process belongs to
#pragma once

#include <string>

#include "shared_objects/registry/shared_registry.hpp"

extern "C" {
#include "utils/hsearch.h"
}

namespace sketch_pg {
namespace shared {

// ---- shared_registry.cpp ----

extern HTAB* cache;         // name -> Entry
extern uint64 local_epoch;  // bumped by this backend's catalog changes

// The server run a file's lock words must belong to, and that writes the
// files of new objects (see its definition).
uint64 server_run();
// The description of a kind's geometry; nullptr for a kind the face does
// not register (register_pg_kind).
Describer describer_for(uint32 kind);

// The folder of every database's objects, relative to the data directory,
// and in it one folder per database, named by its oid.
constexpr const char* kObjectsFolder = "sketchshare";
std::string db_folder(Oid db);

// Raises 55006: the object was dropped or re-created while a call used it.
[[noreturn]] void report_dropped_meanwhile(const char* name);
// For a catalog row whose file failed to attach or holds another incarnation:
// raises 42704 or 55006 if the object was dropped or re-created meanwhile.
void refuse_if_raced(const char* name, uint64 file_id);
// The cache, and the callbacks of transactions and invalidations, once per backend.
void ensure_setup();
// Lets go of the mappings of dropped objects and of changed files.
void sweep_dropped();
// Raises 25006 in a read-only transaction: a create, drop, grant, revoke or
// change (`what`) of the object is refused in the user's terms.
void refuse_in_read_only(const char* what, const char* name);

// ---- shared_catalog.cpp ----

// The catalog's rows are known to describe this database (see home_is_here).
extern bool catalog_ours;
void catalog_invalidated(Datum, Oid relid);

// The queries name every table, function and operator with its schema, and
// run with search_path pinned as well, so that nothing another role created
// (in public, or a temporary schema) can stand in for what they mean.
struct AsCatalogOwner {
    Oid saved_user;
    int saved_context;
    int guc_level;
};
void begin_catalog(AsCatalogOwner* s);
void end_catalog(AsCatalogOwner* s);
int run(const char* sql, int nargs, Oid* types, Datum* values, bool read_only);
void claim_catalog();

struct CatalogRow {
    uint32 kind;
    Oid owner;
    uint64 file_id;
    bool readonly;
    bool has_image;  // the row holds an image of the file (shared_images.cpp)
    int ngrants;
    GrantRow* grants;  // in the caller's memory context
};
bool read_catalog(const char* name, CatalogRow* row);
// False for the catalog of a 0.1.0 installation not updated yet.
bool catalog_has_images();
bool committed_file_id(const char* name, uint64* file_id);
// False when an object of that name exists and if_not_exists (else 42710).
bool insert_catalog(const char* name, sketch::shared::Kind kind, uint64 file_id, bool readonly, bool if_not_exists = false);
void change_grant(const char* name, Oid role, const char* privilege, bool grant);

// ---- shared_lifecycle.cpp ----

enum class Pending : uint8 { created, dropped, acl_changed, folder_emptied };
void push_pending(Pending what, const char* name, uint64 file_id);
void xact_callback(XactEvent event, void*);
void subxact_callback(SubXactEvent event, SubTransactionId, SubTransactionId, void*);
void refuse_if_dropped_here(const char* name);
bool drop_object(const char* name, bool missing_ok);
void attach_object(const char* name, const char* from);
// Makes this database's folder of object files (and sweeps what dropped
// databases and earlier server runs left, see its definition).
void ensure_db_directory();

// ---- shared_images.cpp ----

// take_image of an object this transaction has just created or attached.
void take_image_of_new(const char* name);
// Maps the file of a catalog row (attach_file), writing it first from the
// row's image if it is missing or holds another incarnation.
sketch::shared::Mapping map_file(const char* name, const CatalogRow& row);

}  // namespace shared
}  // namespace sketch_pg
