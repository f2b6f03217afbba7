// The registry of shared objects in one backend: the cache of mapped entries
// (open, attach, the file checks of each round), privilege checks and the
// lock. The catalog's queries are in shared_catalog.cpp, creates, drops and
// the actions at transaction end in shared_lifecycle.cpp.
#include "shared_objects/registry/shared_registry.hpp"

#include "shared_objects/registry/folder_watch.hpp"
#include "shared_objects/registry/registry_internal.hpp"

#include <cstring>

#include "guard.hpp"
#include "jsonb_object.hpp"
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

HTAB* cache = nullptr;
uint64 local_epoch = 1;  // bumped by this backend's catalog changes

namespace {

uint64 role_epoch = 1;   // bumped by role and membership invalidations
uint64 check_round = 1;  // see check_file
TimestampTz round_statement = 0;  // the statement in which the round began
bool callbacks_registered = false;

Describer describers[sh::kKinds];  // by sh::kind_slot

}  // namespace

std::string db_folder(Oid db) { return std::string(kObjectsFolder) + "/" + std::to_string(db); }

namespace {

void role_invalidated(Datum, int, uint32) { role_epoch++; }

}  // namespace

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

namespace {

void release(Entry* e) {
    if (e->loaded && e->map.fd >= 0) ReleaseExternalFD();
    if (e->loaded) sh::unmap(e->map);
    if (e->grants != nullptr) pfree(e->grants);
    if (e->subs != nullptr) pfree(e->subs);
    e->grants = nullptr;
    e->ngrants = 0;
    e->subs = nullptr;
    e->series_read = false;
    e->loaded = false;
}

// No file of the entry's folder changed since its last stat, as far as the
// watch that covered the file when mapped tells, if it is still in place
// (folder_watch.hpp).
bool unchanged_folder(const Entry* e, uint32 changes) {
    return e->folder_watch != 0 && e->folder_watch == current_folder_watch() && e->folder_changes == changes;
}

// A cached entry's file, checked before its mapping is read in a new check
// round (and by open_object always): sh::file_changed, an fstat of the
// descriptor the mapping keeps (else an lstat of its path) and a look at the
// mapped header. A file truncated, extended, replaced or edited since it was
// mapped is let go of (false): the next open maps and validates it again and
// reports what is wrong, XX001 naming the object. A stat is a system call,
// costly beside a lookup (more so under page-table isolation), so the per-row calls
// never make one: an entry is checked once per round, and with the stat only
// when the folder's watch counted a change since the entry's last one (else
// the mapped header alone: folder_watch.hpp). A round begins with each
// statement the client sends (a FETCH from an open cursor too), at each call
// site's first call (each statement of a function; a PL/pgSQL expression's,
// once per transaction) and at each prefetching scan. A file truncated between
// the check and a later access of the same statement can still fault
// (docs/operations.md, "Limits").
bool check_file(Entry* e, bool always) {
    if (!e->loaded) return false;
    const uint64 round = current_round();
    if (!always && e->file_checked == round) return true;
    // read before the stat: a change signalled during it is checked again
    const uint32 changes = folder_changes();
    if (!always && unchanged_folder(e, changes)) {
        if (!sh::header_unchanged(e->map)) {
            release(e);
            return false;
        }
        e->file_checked = round;
        return true;
    }
    // Only a mapping without its descriptor needs the path: the descriptor's
    // fstat does not, so the common case formats no string.
    char path[MAXPGPATH] = "";
    if (e->map.fd < 0) object_path(e->name, path, sizeof path);
    if (sh::file_changed(e->map, path)) {
        release(e);
        return false;
    }
    e->file_checked = round;
    e->folder_changes = changes;
    return true;
}

}  // namespace

// Lets go of the mappings of dropped objects (their files are unlinked and
// their disk space comes back only when the last mapping goes), and of
// changed files (check_file), before reading their headers.
void sweep_dropped() {
    HASH_SEQ_STATUS seq;
    hash_seq_init(&seq, cache);
    while (auto* e = static_cast<Entry*>(hash_seq_search(&seq)))
        if (check_file(e, false) && (sh::load_flags(e->map.header()) & sh::kDropped)) release(e);
}

void report_dropped_meanwhile(const char* name) {
    ereport(ERROR, (errcode(ERRCODE_OBJECT_IN_USE),
                    errmsg("shared object \"%s\" was dropped or re-created meanwhile; try again", name)));
    pg_unreachable();
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

namespace {

// Maps the file of a catalog row into the entry.
void load(Entry* e, CatalogRow row) {
    const std::string folder = db_folder(MyDatabaseId);
    watch_folder(folder.c_str());
    const uint32 changes = folder_changes();  // before the file is validated
    sh::Mapping m = map_file(e->name, row);
    const uint32 watch = folder_watch_covering(folder.c_str());
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
    e->folder_changes = changes;
    e->folder_watch = watch;
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
                      sh::LockWordsReset reset_lock_words, sh::GrownPayload grown_payload) {
    describers[sh::kind_slot(uint32(kind))] = describe;
    sh::register_kind(kind, validator, reset_lock_words, grown_payload);
}

Describer describer_for(uint32 kind) {
    const int s = sh::kind_slot(kind);
    return s < 0 ? nullptr : describers[s];
}

void add_file_stats(const Entry* e, JsonbObject* json) {
    json->number("ops", uint64(sh::load_ops(e->map.header())));
    json->number("bytes", uint64(e->map.size));
    json->number("mmap_size", uint64(e->map.size));
    json->boolean("frozen", is_frozen(e));
    json->boolean("readonly", e->readonly);
    json->number("lock_recoveries", uint32(e->map.lock().recoveries()));
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
    check_not_distributed(name);  // whether or not this node has an object of that name
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
            e->subs = nullptr;
            e->series_read = false;
        }
        load(e, row);
    }
    check_kind(e, kind);
    check_rights(e, need);
    follow_growth(e);
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
               cc->need == need && e->file_checked == current_round() && still_valid(e, kind, need))) {
        follow_growth(e);
        return e;
    }
    // A name equal (same length, same bytes) to one that passed checked_name is valid.
    if (last_entry != nullptr && len == last_len && memcmp(data, last_entry->name, size_t(len)) == 0 &&
        check_file(last_entry, false) && still_valid(last_entry, kind, need)) {
        e = last_entry;
        check_not_distributed(e->name);
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
    follow_growth(e);
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
void refuse_in_read_only(const char* what, const char* name) {
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

void poll_interrupts() { CHECK_FOR_INTERRUPTS(); }

void raise_outcome(Entry* e, sh::Outcome outcome) {
    if (outcome == sh::Outcome::dropped) report_dropped_meanwhile(e->name);
    refuse_change(e);  // frozen: raises 55000 (25006 in a read-only transaction)
    pg_unreachable();
}

uint64 new_file_id() {
    uint64 id = 0;
    while (id == 0) {
        if (!pg_strong_random(&id, sizeof id)) elog(ERROR, "could not generate a random file id");
        id &= 0x7fffffffffffffffULL;  // fits the catalog's bigint
    }
    return id;
}

}  // namespace shared
}  // namespace sketch_pg
