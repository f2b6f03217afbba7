// The file behind a shared object: a fixed 12 KiB header (identity, geometry,
// flags, counters, the lock and its reader slots) followed by the payload
// (the structure's counters or bits), mapped MAP_SHARED by every process.
//
//   offset 0     FileHeader (immutable part, then mutable words on their own cache lines)
//   offset 1024  op stripes: kOpStripes x uint64, each on its own cache line
//   offset 3072  adder slots: kAdderSlots x uint32 (see enter_adder)
//   offset 4096  reader slots of the lock: kReaderSlots x uint32
//   offset 8192  item stripes: kItemStripes x uint32
//   offset 12288 payload (page aligned), payload_bytes long; file size = 12288 + payload_bytes
//
// A scaling filter grows by sub-filters (shared/scaling.hpp): its header's
// payload_bytes and total_bytes stay those of the first sub-filter, later
// ones follow in the payload, and the file holds the sub-filters its header
// publishes (FileHeader::subfilters), perhaps followed by the next one whose
// growth a crash interrupted before it was published (shared_file_growth.cpp).
//
// The format is native-endian (a file from a machine of the other byte order
// fails the magic check). Creation writes every header field but the magic,
// then the magic: a header without magic was left by an interrupted create.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "error.hpp"
#include "shared/rwlock.hpp"

namespace sketch {
namespace shared {

constexpr uint64_t kMagic = 0x31424f4853544b53ULL;  // "SKTSHOB1" read as a little-endian word
constexpr uint32_t kFormatVersion = 1;
constexpr uint32_t kHeaderBytes = 12288;
constexpr uint32_t kOpStripesOffset = 1024;
constexpr uint32_t kOpStripes = 32;
constexpr uint32_t kAdderSlotsOffset = 3072;
constexpr uint32_t kAdderSlots = 256;
constexpr uint32_t kSlotsOffset = 4096;
constexpr uint32_t kStripesOffset = 8192;
constexpr uint32_t kGeometryBytes = 192;
constexpr uint64_t kMaxPayloadBytes = uint64_t(1) << 36;  // 64 GiB

// The size of the file of an object with payload_bytes of payload.
constexpr uint64_t file_bytes(uint64_t payload_bytes) { return kHeaderBytes + payload_bytes; }

enum class Kind : uint32_t { bloom = 1, cbf = 2, reservoir = 3, test = 99 };
const char* kind_name(uint32_t kind);  // "bloom", "cbf", "reservoir", "test" or nullptr
// The kinds' one numbering, 0 to kKinds - 1, for tables by kind (the core's
// registrations, the face's descriptions); -1 for a kind this build does
// not know.
constexpr int kKinds = 4;
int kind_slot(uint32_t kind);

enum Flag : uint32_t {
    kFrozen = 1,   // sealed: immutable, read without locking
    kDropped = 2,  // unlinked (or about to be): processes holding a mapping must let go
};

struct FileHeader {
    // -- immutable once created --
    uint64_t magic;  // written last
    uint32_t version;
    uint32_t kind;
    uint32_t header_bytes;
    uint32_t geometry_len;  // bytes of `geometry` the kind uses
    uint64_t total_bytes;
    uint64_t payload_offset;
    uint64_t payload_bytes;
    uint64_t file_id;  // random, distinguishes incarnations of one name
    uint8_t geometry[kGeometryBytes];  // the kind's own parameters (opaque here)
    uint64_t checksum;  // XXH3-64 of every field above, magic excluded
    // -- mutable, each group on its own cache line --
    alignas(64) uint32_t flags;  // Flag bits
    uint32_t acl_generation;     // bumped when privileges change
    // The class of the items (item_class_word; 0: none yet, and in files of
    // earlier builds, where these bytes were zero padding). Set once, by the
    // first add (record_item_class), never changed after.
    uint64_t item_class;
    // Transactions of this server run overflowing the object or waiting to
    // (the PG face's transactional adds, past their key locks); 0 lets an
    // adder skip the overflow lock. A count left by a crashed backend only
    // sends adders to the lock (free then) until the next run clears it with
    // the lock words (adopt_lock). Zero padding in files of earlier builds.
    uint32_t overflowing;
    // Transactions of this server run that freeze or drop the object (the PG
    // face's closers): counted in before they look for adders in the adder
    // slots, out when they end; while it is not 0, adders enter by the
    // object's heavyweight lock, where the closers hold them off, instead
    // of a slot (enter_adder). A crashed closer's count is cleared as
    // `overflowing` is. Zero padding in files of earlier builds.
    uint32_t closing;
    // Write-path calls: this word plus the op stripes (see add_ops). A copy
    // (export, attach) carries the total here and clear stripes.
    alignas(64) uint64_t ops;
    alignas(64) RWLockWords lock;
    uint64_t lock_run;  // the server run whose processes the lock words name (adopt_lock)
    // The server run that wrote the file (0: unknown, a file of an earlier
    // version): a file of another run that no committed object names is an
    // orphan, never a create in progress (see the PG face's orphan sweep).
    uint64_t created_run;
    // Scaling and fixed-size filters (shared/held_items.hpp): the sub-filters
    // published (0 in files of earlier builds: one) and the items held,
    // reservations of adds in flight included (0 in files of earlier builds:
    // none counted).
    alignas(64) uint32_t subfilters;
    uint64_t held;
};
static_assert(sizeof(FileHeader) <= kOpStripesOffset, "header overflows the op stripes");
static_assert(kOpStripesOffset + 64 * kOpStripes <= kAdderSlotsOffset, "op stripes overflow the adder slots");
static_assert(kAdderSlotsOffset + 4 * kAdderSlots <= kSlotsOffset, "adder slots overflow the reader slots");
static_assert(kAdderSlots % 16 == 0, "adder slots fill whole cache lines");
static_assert(offsetof(FileHeader, flags) % 64 == 0, "mutable words start a cache line");
static_assert(offsetof(FileHeader, ops) % 64 == 0, "ops on its own cache line");
static_assert(offsetof(FileHeader, lock) % 64 == 0, "lock on its own cache line");
static_assert(offsetof(FileHeader, lock) == 384, "test/scripts/shared_crash.sh writes the writer word at 384");
static_assert(offsetof(FileHeader, overflowing) == 272, "test/scripts/shared_transactional.sh reads the count at 272");
static_assert(offsetof(FileHeader, closing) == 276, "test/scripts/shared_transactional.sh reads the count at 276");
static_assert(offsetof(FileHeader, created_run) == 408, "test/scripts/shared_orphans.sh writes created_run at 408");
static_assert(offsetof(FileHeader, subfilters) % 64 == 0, "the scaling words on their own cache line");

// Checks a kind's geometry blob against payload_bytes; throws a corrupted
// Error naming `label` when they disagree. Registered once per kind.
using GeometryValidator = void (*)(const char* label, const uint8_t* geometry, uint32_t geometry_len,
                                   uint64_t payload_bytes);
// Clears the process ids a kind keeps in its payload besides the header's
// lock (a reservoir's mutex), with the header's lock words (attach_file).
using LockWordsReset = void (*)(uint8_t* payload);
// The payload of the first `count` sub-filters of a geometry (count >= 1),
// for kinds that grow; 0 when this object does not grow (a fixed-size one).
// Throws a corrupted or program_limit Error.
using GrownPayload = uint64_t (*)(const uint8_t* geometry, uint32_t geometry_len, uint32_t count);
void register_kind(Kind kind, GeometryValidator validator, LockWordsReset reset_lock_words = nullptr,
                   GrownPayload grown_payload = nullptr);

// For validators: runs check (a core check of a geometry, which throws
// Error) and names the object `label` in the message of what it throws.
template <typename Check>
auto naming(const char* label, Check check) -> decltype(check()) {
    try {
        return check();
    } catch (const Error& e) {
        fail(e.code(), "shared object \"%s\": %s", label, e.what());
    }
}

uint64_t header_checksum(const FileHeader& h);

// What the users of a mapping need of its header's immutable part, as it
// was validated, and its checksum (file_changed compares it).
struct FixedHeader {
    uint32_t geometry_len;
    uint64_t file_id;
    uint64_t checksum;
    uint8_t geometry[kGeometryBytes];
};

// A mapped, validated file. Every use of its geometry reads `fixed`, kept in
// process memory, never the mapped header: whoever can write the file can
// change that under a running server, and a geometry read from it could
// steer an access outside the mapping or answer wrongly (k = 0: every item
// present). file_changed tells when the file is no longer what was mapped.
struct Mapping {
    uint8_t* base = nullptr;
    uint64_t size = 0;
    bool writable = false;
    FixedHeader fixed{};
    uint64_t dev = 0;  // the file mapped (st_dev, st_ino)
    uint64_t ino = 0;
    int fd = -1;  // its descriptor, for file_changed; -1 once let go (drop_descriptor)
    // The sub-filters mapped (1 for objects that do not grow), and whether
    // the object may grow: its file may then become longer than `size`, by
    // sub-filters published later (follow_growth maps them).
    uint32_t subfilters = 1;
    GrownPayload grown = nullptr;  // the kind's, for an object that grows; else nullptr
    FileHeader* header() const { return reinterpret_cast<FileHeader*>(base); }
    uint8_t* payload() const { return base + kHeaderBytes; }
    uint32_t* slots() const { return reinterpret_cast<uint32_t*>(base + kSlotsOffset); }
    RWLock lock() const { return RWLock(&header()->lock, slots()); }
    StripeLock stripes() const { return StripeLock(reinterpret_cast<uint32_t*>(base + kStripesOffset)); }
};

struct CreateSpec {
    Kind kind;
    const uint8_t* geometry;
    uint32_t geometry_len;
    uint64_t payload_bytes;
    uint64_t file_id;
    const uint8_t* initial_payload = nullptr;  // copied in before the magic; nullptr: zero
    uint32_t initial_flags = 0;
    uint64_t item_class = 0;  // FileHeader::item_class (a file restored from its image keeps its item class)
    uint64_t ops = 0;         // FileHeader::ops (and its op count)
    uint32_t subfilters = 0;  // FileHeader::subfilters and held: a restored file keeps what it counted
    uint64_t held = 0;
    // The payload of every sub-filter published (a grown object's image),
    // when larger than payload_bytes (the first one's); initial_payload holds
    // that many bytes.
    uint64_t grown_payload_bytes = 0;
    bool durable = true;  // fsync the file and its directory
    uint64_t run = 0;     // FileHeader::created_run
    // Polled between the 2 MiB writes that fill the file; true abandons the
    // create (the file is removed, an Error thrown). nullptr: never.
    bool (*stop)() = nullptr;
};

enum class Existing {
    refuse,          // any existing file is an error (unless it is an abandoned create)
    replace_orphan,  // a complete valid file (known to be abandoned) is replaced
};

// Creates path (O_CREAT|O_EXCL|O_NOFOLLOW, 0600), reserves its blocks with
// posix_fallocate and writes the header, magic last. Until the magic is
// written the file is unfinished and its creator holds an exclusive flock on
// it: an unfinished file found at the path whose lock is free (its creator
// killed, in this server run or an earlier one) is an abandoned create and is
// replaced; one whose lock is held is refused (object_in_use). Errors name
// `label`; nothing is left behind on failure.
void create_file(const std::string& path, const char* label, const CreateSpec& spec, Existing existing);

// Opens path (O_NOFOLLOW), validates the header against the file and maps it,
// keeping the descriptor (closed by unmap).
// expected_kind 0 accepts every known kind. A read-only mapping never modifies
// the file; a writable one first adopts the lock for `run` (adopt_lock).
Mapping attach_file(const std::string& path, const char* label, uint32_t expected_kind, bool writable,
                    uint64_t run);

// True if the file m maps no longer has the size it was mapped with, or the
// header's immutable part as validated, or no longer is at path: it was
// truncated, extended, its header edited, or removed or replaced (renamed
// over). Reads the mapped header only once the file is known to cover it.
// One fstat of m's descriptor, or without one an lstat of path (read only
// then). Never throws.
bool file_changed(const Mapping& m, const char* path) noexcept;
// The part of file_changed that makes no system call: whether the mapped
// header's immutable part is still what was validated. Only for a file known
// to still cover its header (not truncated since it was last checked).
bool header_unchanged(const Mapping& m) noexcept;
// Closes m's descriptor (a process short of descriptors): file_changed then
// looks at the path.
void drop_descriptor(Mapping& m) noexcept;

// The bytes of the file that hold its header and published sub-filters (a
// validated header): total_bytes, or more for an object that has grown.
uint64_t used_bytes(const FileHeader& h);

// Maps the sub-filters published since m was mapped (another process grew
// the object): false when there are none. Throws corrupted naming `label`
// when the header publishes more than the file at path holds, out_of_memory
// when the mapping cannot grow. The mapping may move (m.base changes).
bool follow_growth(Mapping& m, const std::string& path, const char* label);

// The file size that `count` sub-filters of m's object need, which must
// grow (m.grown); throws program_limit past kMaxPayloadBytes.
uint64_t grown_file_bytes(const Mapping& m, uint32_t count);

// Growth of m's object by one sub-filter, in two steps under the exclusive
// lock: extend_file makes the file, now from_bytes long as its published
// sub-filters need (an unpublished tail after them is dropped), to_bytes
// long, zeroed (posix_fallocate), and durable (fdatasync) before anything
// relies on it; then held_items' publish_subfilters publishes the count.
// Returns 0 or the errno of the failed step (ENOSPC: the disk is full). A
// crash in between leaves an unpublished tail, which validation accepts and
// the next growth replaces. path serves when m has no descriptor.
int extend_file(const Mapping& m, const std::string& path, uint64_t from_bytes, uint64_t to_bytes) noexcept;

// Reads and validates only the header (no mapping). Throws like attach_file.
FileHeader read_header(const std::string& path, const char* label, uint32_t expected_kind);

// The first page of the object file at path (the header's mutable words and
// the adder slots), mapped shared and writable, if the file holds incarnation
// file_id; nullptr when it is not there, is damaged or is another
// incarnation. A freeze or a drop counts itself closing through it and reads
// the slots, and keeps it to the end of its transaction, which the process's
// own mapping of the object may not last. Throws io_error naming label when
// the file is there but cannot be read or mapped (no descriptor or memory
// left, an I/O error): a closer must not go on as if no adder could enter.
FileHeader* map_header_page(const std::string& path, uint64_t file_id, const char* label);
void unmap_header_page(FileHeader* h) noexcept;

// Validates a header already read (the start of a file of `size` bytes at
// path) as attach_file does, the kind's geometry included. Throws like
// attach_file. For the fuzz target, which has no file.
void validate_header(const FileHeader& h, uint64_t size, const std::string& path, const char* label,
                     uint32_t expected_kind);

void unmap(Mapping& m) noexcept;

// msync(MS_SYNC) of the whole mapping; throws io_error naming label.
void sync_mapping(const Mapping& m, const char* label);

// Copies a frozen object's file to `to` (created O_EXCL|O_NOFOLLOW, 0600,
// fsynced), as incarnation new_file_id written by server run `run`;
// validates `from` first. Used by export and attach. A `from` larger than
// max_bytes is refused (program_limit) before `to` is created: attach passes
// the size it checked, which the file may have changed since. stop (may be
// null) is polled between 2 MiB pieces, as a create polls it: when it returns
// true, `to` is removed and the copy fails (io_error).
void copy_file(const std::string& from, const std::string& to, const char* label, bool require_frozen,
               uint64_t new_file_id, uint64_t run, uint64_t max_bytes = UINT64_MAX, bool (*stop)() = nullptr);

// Flags and counters (atomic accessors on the mapping; inline: every add
// reads the flags and counts an op).
inline uint32_t load_flags(const FileHeader* h) { return __atomic_load_n(&h->flags, __ATOMIC_ACQUIRE); }
inline void set_flags(FileHeader* h, uint32_t bits) { __atomic_fetch_or(&h->flags, bits, __ATOMIC_SEQ_CST); }
// Counts of this server run's transactions at a step (FileHeader::overflowing
// and closing): one counts itself in before it waits, and out when the
// (sub)transaction that counted ends. Never below 0: a count wrapped to
// 2^32 - 1 would come back to 0 with the next transaction counted in, and
// adders would skip what it holds. Only a count out without its count in can
// meet 0 (the file put back under the running server with another count),
// and the count stays 0 then, as the file says.
inline uint32_t load_count(const uint32_t* count) { return __atomic_load_n(count, __ATOMIC_SEQ_CST); }
inline void count_in(uint32_t* count) { __atomic_fetch_add(count, 1u, __ATOMIC_SEQ_CST); }
inline void count_out(uint32_t* count) {
    uint32_t n = __atomic_load_n(count, __ATOMIC_RELAXED);
    while (n != 0 && !__atomic_compare_exchange_n(count, &n, n - 1, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
    }
}
// Adder slots: a transaction with pending adds to the object (the PG face's
// transactional adds) writes its local transaction id into the slot of its
// process number, so that a freeze or a drop can find it and wait for it,
// and adders need not all take one shared lock. Slot i lies on cache line
// i % 16 of the table, so processes of neighbouring numbers write different
// lines. 0: empty (zero in files of earlier builds).
inline uint32_t* adder_slot(FileHeader* h, uint32_t i) {
    return reinterpret_cast<uint32_t*>(reinterpret_cast<uint8_t*>(h) + kAdderSlotsOffset + 64 * (i % 16) + 4 * (i / 16));
}
inline uint32_t load_adder(FileHeader* h, uint32_t i) { return __atomic_load_n(adder_slot(h, i), __ATOMIC_SEQ_CST); }
// Enters an adder: its id into slot i, then a look at the closers' count.
// A closer counts itself in, then reads the slots, all sequentially
// consistent, so of an adder and a closer at least one sees the other.
// True when no closer is counted: a later one will find the slot. Else the
// slot is emptied again and the adder must wait for the closers where they
// hold adders off (the PG face's heavyweight lock).
inline bool enter_adder(FileHeader* h, uint32_t i, uint32_t id) {
    __atomic_store_n(adder_slot(h, i), id, __ATOMIC_SEQ_CST);
    if (load_count(&h->closing) == 0) return true;
    __atomic_store_n(adder_slot(h, i), 0u, __ATOMIC_SEQ_CST);
    return false;
}
inline void leave_adder(FileHeader* h, uint32_t i) { __atomic_store_n(adder_slot(h, i), 0u, __ATOMIC_SEQ_CST); }
// Every add of every process counts an op: one shared word would pass its
// cache line from core to core at each, a cost every concurrent writer
// shares (bench/README.md measures two sessions adding at once). A
// process counts in the stripe its lock owner id picks; the count is the word
// plus the stripes (zero in files made before them: their header page is
// written whole).
inline const uint64_t* op_stripe(const FileHeader* h, uint32_t i) {
    return reinterpret_cast<const uint64_t*>(reinterpret_cast<const uint8_t*>(h) + kOpStripesOffset + 64 * i);
}
// The object's item class word, and its recording: stores word if none is
// recorded yet; returns the word recorded (word, or the one that won).
inline uint64_t load_item_class(const FileHeader* h) { return __atomic_load_n(&h->item_class, __ATOMIC_ACQUIRE); }
inline uint64_t record_item_class(FileHeader* h, uint64_t word) {
    uint64_t seen = 0;
    if (__atomic_compare_exchange_n(&h->item_class, &seen, word, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return word;
    return seen;
}
inline uint64_t load_ops(const FileHeader* h) {
    uint64_t n = __atomic_load_n(&h->ops, __ATOMIC_RELAXED);
    for (uint32_t i = 0; i < kOpStripes; ++i) n += __atomic_load_n(op_stripe(h, i), __ATOMIC_RELAXED);
    return n;
}
inline void add_ops(FileHeader* h, uint32_t owner, uint64_t n) {
    auto* stripe = const_cast<uint64_t*>(op_stripe(h, (owner * 2654435761u) % kOpStripes));
    __atomic_fetch_add(stripe, n, __ATOMIC_RELAXED);
}

// Removes path if it is still the incarnation file_id (0: whatever file or
// symlink is there), after marking it dropped, under the folder's lock (see
// DirLock). With remains (a drop's commit, which knows the path held its
// object) it also removes what damage left there: a symlink (never its
// target), a file too short for a header or with a wrong magic. Another
// incarnation and a create in progress (a file without the magic whose
// creator holds it, see create_file) stay; an abandoned create goes.
// An object file's payload blocks go back to the file system at once (a hole
// punched under the object's lock, waited for up to a second), though other
// processes may still map it. Never throws; returns false if it was not removed.
bool remove_file(const std::string& path, uint64_t file_id, bool remains = false) noexcept;

// The object files of folder dir: regular files with a valid object name and
// this format's magic, with the incarnation each holds and the run that wrote
// it. Files without the magic (an interrupted create, or not ours) are not
// listed.
struct ObjectFile {
    std::string name;
    uint64_t file_id;
    uint64_t created_run;
};
std::vector<ObjectFile> object_files(const std::string& dir);

// Removes path if it is an abandoned create (see create_file): a regular file
// without the magic whose creator is gone. True if it was removed. Never throws.
bool remove_abandoned_create(const std::string& path) noexcept;
// The same for every file at an object name in folder dir.
void remove_abandoned_creates(const std::string& dir) noexcept;

// The folders of dir named by a number (a database's oid).
std::vector<uint32_t> numbered_folders(const std::string& dir);
// Removes whatever sits at an object name in folder dir (as remove_file with
// file_id 0), then the folder if that leaves it empty. For the folder of a
// database that no longer exists. Never throws.
void remove_folder(const std::string& dir) noexcept;

// mkdir -p base/rel with mode 0700; every component of rel must be a real
// directory (a symlink is refused). base itself is trusted.
void ensure_directory(const std::string& base, const std::string& rel, const char* what);

// True for a name that is a safe file name: [A-Za-z0-9_.-]{1,63}, not starting with '.'.
bool valid_object_name(const char* name, size_t len);

}  // namespace shared
}  // namespace sketch
