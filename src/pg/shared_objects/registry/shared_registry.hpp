// The registry of shared objects, as seen from one backend.
//
// The catalog (which objects exist, their kind, owner and grants) is a pair of
// tables in schema sketchshare_shared, so create, drop, grant and revoke are
// transactional; the data lives in the object's file, $PGDATA/sketchshare/<db
// oid>/<name>, the source of truth for everything else.
//
// Each backend keeps a cache (name -> mapping, kind, owner, grants). It stays
// valid across transactions; changes made by other backends are noticed
// through words in the mapped file itself: the kDropped flag (set when a drop
// commits, or a create rolls back) and acl_generation (bumped when a grant or
// revoke commits). This backend's own catalog changes bump a local epoch.
#pragma once

#include "shared/held_items.hpp"
#include "shared/object_ops.hpp"
#include "shared/rwlock.hpp"
#include "shared/shared_file.hpp"
#include <type_traits>

#include "guard.hpp"
#include "item_hash.hpp"
#include "pg.hpp"

extern "C" {
#include "access/xact.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/memutils.h"
}

namespace sketch_pg {

class JsonbObject;

namespace shared {

enum Right : uint8_t { kRead = 1, kWrite = 2, kOwn = 4 };

struct GrantRow {
    Oid grantee;
    bool write;
};

struct Entry {
    char name[64];  // hash key, NUL padded
    bool loaded;
    uint32 kind;
    Oid owner;
    bool readonly;  // an attached copy, mapped read-only
    uint64 file_id;
    uint64 epoch;
    uint32 acl_loaded;  // acl_generation of the file when the grants were read
    bool payload_checked;  // this mapping's payload passed its kind's full check (reservoirs)
    uint64 file_checked;   // the check round in which the file was last found unchanged
    uint32 folder_changes; // folder_changes() before the file's last stat (folder_watch.hpp)
    uint32 folder_watch;   // the watch that covered the file when mapped, 0 if none (folder_watch_covering)
    sketch::shared::Mapping map;
    // The kind's table of the sub-filters mapped (subfilter_table), for
    // map.subfilters of them; TopMemoryContext, nullptr until made.
    void* subs;
    uint32 subs_count;
    // The series of sub-filters of a Bloom or counting filter, read from the
    // geometry once per mapping (cached_series): adds and lookups ask for it
    // at every item.
    mutable sketch::shared::Series series;
    mutable bool series_read;
    int ngrants;
    GrantRow* grants;  // TopMemoryContext
    // The last privilege decision and what it depended on.
    Oid rights_user;
    uint32 rights_acl;
    uint64 rights_roles;
    uint8 rights;
};

// The entry's series (Entry::series), read(): the kind's reading of its
// geometry, at the first call after the object was mapped.
template <typename Read>
const sketch::shared::Series& cached_series(const Entry* e, Read read) {
    if (!e->series_read) {
        e->series = read();
        e->series_read = true;
    }
    return e->series;
}

// Per call site cache (fn_extra) of the hot functions.
struct CallCache {
    char name[64];
    int name_len;
    Entry* entry;
    uint32 kind;
    uint8 need;
    ItemHasher hasher;
    uint64 items_checked;  // file_id of the object whose item class this call site checked (shared_items.hpp)
};

// Checks a name (letters, digits, _ - ., at most 63 bytes, not starting
// with '.') and raises 22023 otherwise. Returns it NUL-terminated.
void checked_name(text* name, char out[64]);

// Opens the object (cached), checks its kind (0: any) and that the current
// user holds `need` (Right bits). Raises 42704 if it does not exist, 42809
// for another kind, 42501 when not permitted, XX001 for a damaged file. The
// file of a cached entry is checked first (sh::file_changed): one that was
// changed under the server is mapped and validated again.
Entry* open_object(const char* name, uint32 kind, uint8 need);
// Raises 0A000 when this backend runs a piece of a Citus distributed query
// and the object is not named in sketchshare.node_local_objects: this node's
// object would answer for the whole cluster (shared_on_citus.cpp).
void check_not_distributed(const char* name);
// The same through a call-site cache in fcinfo->flinfo->fn_extra, for the
// functions called once per row: the file is checked once per round (at
// the call site's first call, and once per statement), never per row.
Entry* open_cached(FunctionCallInfo fcinfo, text* name, uint32 kind, uint8 need);
CallCache* call_cache(FunctionCallInfo fcinfo);
// The functions of an object and an item (or a value, array, weight or seed)
// are not STRICT: a missing object is an error whatever the item. They open
// the object named by argument 0 first; nullptr when an argument is NULL
// (the call then returns NULL, having changed nothing).
inline Entry* open_unless_null(FunctionCallInfo fcinfo, uint32 kind, uint8 need) {
    if (PG_ARGISNULL(0)) return nullptr;
    Entry* e = open_cached(fcinfo, PG_GETARG_TEXT_PP(0), kind, need);
    for (int i = 1; i < PG_NARGS(); ++i)
        if (PG_ARGISNULL(i)) return nullptr;
    return e;
}
// The object when this backend has opened it before and the entry is still
// good for (kind, need) without catalog access; else nullptr. Never raises
// (the prefetching scan reads only what the function has opened). The file
// is checked once per check round (begin_check_round).
Entry* find_opened(const char* name, int len, uint32 kind, uint8 need);
// Starts a round in which each cached object's file is checked again at its
// next use: a new statement does this, a new call site's first call, and a
// prefetching scan, which reads objects before the functions of its
// statement run.
void begin_check_round();
// The current round, begun anew if a statement has started since.
uint64 current_round();
// The item hasher for argument argno, in the call-site cache.
const ItemHasher* cached_hasher(FunctionCallInfo fcinfo, int argno);
// The digest of item argument argno (anycompatible), as sketch_hash computes it.
inline sketch::Hash128 hash_arg(FunctionCallInfo fcinfo, int argno, uint64_t seed) {
    const auto* cc = static_cast<const CallCache*>(fcinfo->flinfo->fn_extra);
    const ItemHasher* hasher = likely(cc != nullptr && cc->hasher.typid != InvalidOid) ? &cc->hasher : cached_hasher(fcinfo, argno);
    return hash_row_item(hasher, PG_GETARG_DATUM(argno), seed);
}

inline bool is_frozen(const Entry* e) { return sketch::shared::is_frozen(e->map); }
// Raises 25006 in a read-only transaction, 55000 if the object is frozen or
// read-only (the cold half of check_mutable).
void refuse_change(Entry* e);
// Mutators: raise when the object may not change now (call before locking).
// A read-only transaction (every one on a hot standby) changes nothing, as
// for nextval: a standby's copy of a file would drift from the primary's.
inline void check_mutable(Entry* e) {
    if (unlikely(e->readonly || is_frozen(e) || XactReadOnly)) refuse_change(e);
}

// Growth by sub-filters (shared/scaling.hpp). Another backend may publish
// sub-filters at any time: every call follows (maps) them before it touches
// the object, so that it adds to the newest and looks in every one. The
// registry's opens do it (open_object, open_cached); it costs an acquire
// load of the header's count per call. The slow paths are in
// shared_capacity.cpp, with the growth itself.
void follow_growth_slow(Entry* e);
inline void follow_growth(Entry* e) {
    if (unlikely(e->map.grown != nullptr && sketch::shared::load_subfilters(e->map.header()) > e->map.subfilters))
        follow_growth_slow(e);
}
// The same where nothing may raise (a commit's apply): false when the new
// sub-filters could not be mapped (the call then works on those it maps).
bool follow_growth_quietly(Entry* e) noexcept;
// Whether sub-filters were published that e does not map; for the calls
// that hold the exclusive lock and must see every sub-filter.
inline bool growth_unseen(const Entry* e) {
    return e->map.grown != nullptr && sketch::shared::load_subfilters(e->map.header()) != e->map.subfilters;
}
// The kind's description of each mapped sub-filter (a trivially copyable
// Sub), made by make(count) (a std::vector<Sub>, may throw) when the
// mapping's count changed, kept in the entry.
template <typename Sub, typename Make>
const Sub* subfilter_table(Entry* e, Make make) {
    static_assert(std::is_trivially_copyable<Sub>::value, "kept as bytes");
    if (likely(e->subs != nullptr && e->subs_count == e->map.subfilters)) return static_cast<const Sub*>(e->subs);
    const uint32 count = e->map.subfilters;
    const size_t bytes = sizeof(Sub) * count;
    void* made = palloc(bytes);  // the statement's memory, if make raises
    guarded([&] {
        const auto subs = make(count);
        memcpy(made, subs.data(), bytes);
    });
    void* table = MemoryContextAlloc(TopMemoryContext, bytes);
    memcpy(table, made, bytes);
    pfree(made);
    if (e->subs != nullptr) pfree(e->subs);
    e->subs = table;
    e->subs_count = count;
    return static_cast<const Sub*>(table);
}

// The lock protocol of sketch::shared (shared/object_ops.hpp) as this
// backend runs it: its process id as lock owner, CHECK_FOR_INTERRUPTS as the
// poll between waits (so a waiting backend stays cancellable; nothing may
// ereport while a lock is held). An outcome other than done is raised here,
// holding nothing: 55006 when the object was dropped meanwhile, 55000 when
// it was frozen before a change took the lock (a freeze may have won the
// race with the caller's check_mutable).
inline uint32 lock_owner_id() { return uint32(MyProcPid); }
void poll_interrupts();
inline sketch::shared::Waiter waiter() { return {lock_owner_id(), poll_interrupts}; }
[[noreturn]] void raise_outcome(Entry* e, sketch::shared::Outcome outcome);
inline void check_outcome(Entry* e, sketch::shared::Outcome outcome) {
    if (unlikely(outcome != sketch::shared::Outcome::done)) raise_outcome(e, outcome);
}

inline void lock_shared(Entry* e, sketch::ReadTicket* ticket) {
    check_outcome(e, sketch::shared::lock_shared(e->map, waiter(), ticket));
}
inline void unlock_shared(Entry* e, const sketch::ReadTicket& ticket) {
    sketch::shared::unlock_shared(e->map, waiter(), ticket);
}
inline void lock_shared_to_change(Entry* e, sketch::ReadTicket* ticket) {
    check_outcome(e, sketch::shared::lock_shared_to_change(e->map, waiter(), ticket));
}
inline void lock_exclusive(Entry* e) { check_outcome(e, sketch::shared::lock_exclusive(e->map, waiter())); }
inline void unlock_exclusive(Entry* e) { sketch::shared::unlock_exclusive(e->map, waiter()); }

// Spin words (sketch::try_lock_word: item stripes, a reservoir's mutex) are
// taken under the shared lock. When a live process keeps one through
// kLockWordSpins tries, back_off lets go of the shared lock and checks for
// interrupts, and the caller tries again: the wait stays cancellable.
using sketch::shared::kLockWordSpins;
inline void back_off(Entry* e, const sketch::ReadTicket& ticket) { sketch::shared::back_off(e->map, waiter(), ticket); }

// The elements of an array of any element type (palloc'd), NULLs flagged.
void array_elements(ArrayType* items, Datum** values, bool** nulls, int* n);

// Hashes the non-NULL elements of the array in argument argno (hasher cached
// in the call-site cache); returns a palloc'd array and their number.
sketch::Hash128* hash_array_arg(FunctionCallInfo fcinfo, int argno, uint64_t seed, int* count);

// Adds n hashed items (sketch::shared::add_hashes): each under its stripe,
// so concurrent adds of one item report "new" once; `insert`
// (bool(const Hash128&), must not raise) does the kind's atomic add, and
// `prefetch` (void(const Hash128&)) starts loading an item's lines ahead of
// it. Counts one op. Returns how many were probably new.
//
// With `done`: stops early when the object has grown past what e maps
// (sketch::shared::add_hashes), *done items added; the caller then follows
// the growth and adds the rest, looking in every sub-filter.
template <typename Insert, typename Prefetch>
int64 add_hashes_shared(Entry* e, const sketch::Hash128* hashes, int n, Insert insert, Prefetch prefetch,
                        int* done = nullptr) {
    int64_t fresh = 0;
    const sketch::shared::Outcome outcome =
        sketch::shared::add_hashes(e->map, waiter(), hashes, n, insert, &fresh, prefetch, done);
    if (outcome != sketch::shared::Outcome::grown) check_outcome(e, outcome);
    return fresh;
}

// Runs change() (must not raise) under the exclusive lock and counts one op.
template <typename Change>
void change_exclusive(Entry* e, Change change) {
    check_outcome(e, sketch::shared::change_exclusive(e->map, waiter(), change));
}

// Runs read() (must not raise) on a point-in-time state of the object: under
// the exclusive lock (no add in flight), or with no lock once it is frozen.
template <typename Read>
void read_exclusive(Entry* e, Read read) {
    check_outcome(e, sketch::shared::read_exclusive(e->map, waiter(), read));
}

// change_exclusive (to_change) or read_exclusive (to_read) for calls that
// must see every sub-filter (a clear, a snapshot): body() runs once the lock
// is held with all the published sub-filters mapped (after following a
// growth that won the race for the lock).
enum class Locked { to_read, to_change };
template <Locked how, typename Body>
void with_every_subfilter(Entry* e, Body body) {
    for (bool done = false; !done;) {
        follow_growth(e);
        const auto once = [&] {
            if (!growth_unseen(e)) body(), done = true;
        };
        if constexpr (how == Locked::to_change)
            change_exclusive(e, once);
        else
            read_exclusive(e, once);
    }
}

// Creates a catalog row and the file (transactionally: the file is removed
// if the transaction, or subtransaction, rolls back). A file larger than
// sketchshare.max_shared_object_size is refused (54000) before either.
// Returns false, having done nothing but a NOTICE, when the name is taken and
// if_not_exists (else 42710).
bool create_object(const char* name, sketch::shared::Kind kind, const uint8_t* geometry, uint32_t geometry_len,
                   uint64_t payload_bytes, const uint8_t* initial_payload, bool if_not_exists = false);

// Writes the object's image (its file as of now, under the exclusive lock)
// into its catalog row, in the current transaction, so that a dump carries
// it (shared_images.cpp); nothing in a read-only transaction. A file over
// the image limit leaves the row without an image, with a WARNING.
void take_image(Entry* e);

// Installs the hook that sees a drop of the extension, whatever command
// reaches it, and removes the objects' files when that drop commits (from
// _PG_init; the extension's event trigger loads the library before every
// DROP that can reach it).
void watch_extension_drop();

// Adds what every kind's stats show of the object's file to json: ops,
// bytes, mmap_size, frozen, readonly, lock_recoveries.
void add_file_stats(const Entry* e, JsonbObject* json);

// The relative path (from the data directory) of an object's file.
void object_path(const char* name, char* out, size_t outlen);

// Whether a cancel, statement_timeout or terminate waits to be raised.
inline bool interrupt_pending() { return QueryCancelPending || ProcDiePending; }

// Raises the interrupt that stopped the writing of an object's file, or,
// when the interrupt itself is held off, 57014 naming the writing (`what`).
[[noreturn]] inline void raise_interrupted(const char* what, const char* name) {
    CHECK_FOR_INTERRUPTS();
    ereport(ERROR, (errcode(ERRCODE_QUERY_CANCELED), errmsg("%s of shared object \"%s\" was interrupted", what, name)));
    pg_unreachable();
}

// Runs write(stop), the writing of an object's file (a create, or the copy of
// an export or attach), which polls stop between 2 MiB pieces: a file of many
// GB stops at a cancel, statement_timeout or terminate (the file removed),
// which is then raised as usual, instead of being written to its end first.
// `what` names the writing in the error raised when the interrupt itself is
// held off ("creation", "copy").
template <typename Write>
void write_interruptibly(const char* what, const char* name, Write write) {
    bool stopped = false;
    guarded([&] {
        try {
            write(&interrupt_pending);
        } catch (const sketch::Error&) {
            if (!interrupt_pending()) throw;
            stopped = true;
        }
    });
    if (stopped) raise_interrupted(what, name);
}

// A random id for a new file (a create's, or an export's copy): nonzero, and
// it fits the catalog's bigint.
uint64 new_file_id();

// Describing geometry, per kind (registered by the kind's PG face).
struct GeometryInfo {
    int64 capacity;
    double fpr;
    int32 expansion = -1;  // filters' (shared/scaling.hpp); -1: not a filter
    char layout[64] = {};  // empty: the kind has no layouts
    int64 m;
    int32 k;
};
using Describer = void (*)(const uint8_t* geometry, uint32_t len, GeometryInfo* out);
void register_pg_kind(sketch::shared::Kind kind, sketch::shared::GeometryValidator validator, Describer describe,
                      sketch::shared::LockWordsReset reset_lock_words = nullptr,
                      sketch::shared::GrownPayload grown_payload = nullptr);

// Each kind's face registers it (register_pg_kind) in one of these, called
// from _PG_init (module.cpp) before anything can open an object.
void register_shared_bloom_kind();
void register_shared_cbf_kind();
void register_shared_reservoir_kind();

}  // namespace shared
}  // namespace sketch_pg
