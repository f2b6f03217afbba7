// A reservoir sample kept in a shared object's payload (mapped MAP_SHARED):
// uniform (Algorithm R) or weighted (A-Res, a min-heap of log-keys). The RNG
// state lives in the payload and advances under the reservoir's mutex, so
// concurrent producers sample one consistent reservoir.
//
// Payload layout (native endian, every part 64-byte aligned):
//   Control (256 bytes)        seen, count, the RNG state, the mutex, the redo journal
//   slots[k + 1]               stride bytes each: uint32 len, uint32 flags,
//                              item bytes (item_size at most); slot k is the
//                              staging slot of the journal
//   weighted only: double keys[k]   log-key (log(u) / w) of each position
//                  int32 heap[k]    positions as a min-heap by key
//
// Crash safety (a process killed at any instruction of an add or a clear,
// while holding the mutex, which the next locker steals):
//   1. the new item is written into the staging slot (nobody reads it);
//   2. the journal is filled: target position, new seen, count, RNG state, key;
//   3. journal.valid = 1 (release store): the change is now committed;
//   4. the journal is applied: staging -> slot, key, heap, seen, count, RNG;
//   5. journal.valid = 0.
// Step 4 consists of absolute assignments (the heap is rebuilt from the keys
// on recovery), so replaying it after a crash anywhere in 4 or 5 is exact.
// A crash before 3 leaves the previous state untouched. A clear is steps 2
// to 5 with no item (seen, count and stored 0). Every mutation and every
// reader first calls recover() (or checks pending()).
//
// Locking is the caller's: every View method that changes the payload runs
// with Control::mutex held (see src/pg/shared_objects/reservoir/shared_reservoir_sql.cpp).
//
// Nothing here throws except make_geometry / check_geometry; the rest runs
// under the mutex and is noexcept.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sketch::shared_reservoir {

constexpr int64_t kMaxK = 10000000;
constexpr int64_t kMaxItemSize = 1 << 20;  // 1 MiB
constexpr uint32_t kGeometryMagic = 0x52535352;  // "RSSR"

enum SlotFlag : uint32_t { kBinary = 1 };  // stored from bytea (not text)

struct Geometry {
    uint32_t magic;
    uint32_t k;
    uint32_t item_size;
    uint32_t weighted;
    uint64_t stride;      // slot bytes: 8 + item_size rounded up to 8
    uint64_t initial_seed;  // the RNG starts from this seed until seeded
};
static_assert(sizeof(Geometry) == 32, "geometry layout");

struct Journal {
    uint32_t valid;
    int32_t pos;  // target position, -1: the item is discarded
    uint64_t seen;
    uint64_t count;
    uint64_t rng[4];
    uint64_t stored;
    double key;
};

struct Control {
    uint64_t seen;
    uint64_t count;
    uint64_t rng[4];  // xoshiro256** state; all zero: not yet seeded
    uint64_t stored;  // adds that stored their item (diagnostics)
    uint64_t recoveries;  // journals replayed after a crash
    // The reservoir's own mutex: a spin word (rwlock.hpp: try_lock_word),
    // held for the few hundred nanoseconds of one add or copy, taken over
    // from a holder found dead. Mutators and readers take the
    // object's rwlock shared and then this; freeze takes the rwlock
    // exclusively, which shuts them all out.
    alignas(64) uint32_t mutex;
    alignas(64) Journal journal;
    // The item type's name (schema-qualified, NUL-terminated), recorded by
    // the first add after creation or a clear, so typed reads and snapshots
    // give the items back as that type. All zero: none recorded yet (files
    // written before this field existed read so too); kMixedItemTypes: no
    // single type (adds of several types, or a name too long for the field).
    char item_type[56];
};
static_assert(sizeof(Control) <= 256, "control block overflows");
static_assert(offsetof(Control, mutex) == 64, "test/scripts/shared_reservoir_crash.sh writes the mutex at 12288 + 64");

constexpr uint64_t kControlBytes = 256;
constexpr char kMixedItemTypes = '\x01';

// Validates and builds a geometry; throws invalid_parameter (bad k or
// item_size) or program_limit (too large a file).
Geometry make_geometry(int64_t k, int64_t item_size, bool weighted, uint64_t initial_seed);
// Validates a stored geometry against the payload size; throws corrupted.
void check_geometry(const char* label, const Geometry& g, uint64_t payload_bytes);
uint64_t payload_bytes(const Geometry& g);

// Frees the mutex of a payload whose holder belongs to another server run
// (registered as the kind's shared::LockWordsReset; a pending journal stays).
void reset_lock_words(uint8_t* payload) noexcept;

// A view of one mapped payload.
class View {
public:
    View(const Geometry& g, uint8_t* payload) : g_(g), base_(payload) {}

    const Geometry& geometry() const { return g_; }
    Control* control() const { return reinterpret_cast<Control*>(base_); }
    uint32_t* mutex() const { return &control()->mutex; }
    uint8_t* slot(uint64_t i) const { return base_ + kControlBytes + i * g_.stride; }
    double* keys() const { return reinterpret_cast<double*>(base_ + kControlBytes + (uint64_t(g_.k) + 1) * g_.stride); }
    int32_t* heap() const { return reinterpret_cast<int32_t*>(keys() + g_.k); }

    // Under the mutex. Replays a committed journal left by a crashed
    // writer; returns true if there was one.
    bool recover() noexcept;
    // True if a crashed writer left a journal to replay (readers read
    // through it: see state()).
    bool pending() const noexcept;

    // Under the mutex, after recover(). Adds one item (already cut to
    // item_size) with weight (ignored when uniform; must be valid otherwise);
    // returns true if it was stored. crash_after (tests only) stops after
    // that step (1..4) as a killed process would.
    bool add(const uint8_t* bytes, uint32_t len, uint32_t flags, double weight, int crash_after = 0) noexcept;
    // Under the mutex, after recover(): empties it (seen = 0), keeps the RNG.
    // crash_after (tests only) stops after that step (2..4), as for add.
    void clear(int crash_after = 0) noexcept;
    // Under the mutex: sets the RNG state from a seed.
    void seed(uint64_t seed) noexcept;
    // Under the mutex, with every add: records `name` as the item type if
    // none is recorded, marks the types mixed if another one is (or if the
    // name does not fit). The first byte is stored last, so a process killed
    // while writing leaves either no name or a whole one.
    void note_item_type(const char* name) noexcept;
    // Under the mutex, or on a frozen object: the recorded item type, ""
    // for none, or a string starting with kMixedItemTypes.
    const char* item_type() const noexcept { return control()->item_type; }

    // Under the mutex, after recover(): merges in a sample of the same mode
    // holding count_b items out of seen_b (count_b = min(seen_b, its k),
    // its k >= this one's), exactly: uniform, the split of
    // reservoir::uniform_merge; weighted, the k largest keys. The merged
    // state is reached by journaled one-slot steps, each leaving a valid
    // state (a process killed between two leaves a partial merge, never a
    // damaged reservoir). take_a needs k entries, take_b count_b. Returns
    // nullptr, or why nothing was changed (seen would overflow).
    struct MergeItem {
        const uint8_t* bytes;
        uint32_t len;
        uint32_t flags;
        double key;  // weighted only
    };
    const char* merge(const MergeItem* b, uint64_t count_b, uint64_t seen_b, int32_t* take_a, int32_t* take_b) noexcept;

    // Only on a payload nobody else maps yet (a zeroed buffer that seeds a
    // new object): puts an item at position pos (key: weighted only), then
    // load_done sets seen and count (= the items loaded) and the heap.
    void load_item(uint64_t pos, const uint8_t* bytes, uint32_t len, uint32_t flags, double key) noexcept;
    void load_done(uint64_t seen, uint64_t count) noexcept;

    // What a reader sees (under the mutex, or none when frozen): the
    // state after the last committed add. A journal left by a crashed writer
    // is overlaid (its position reads from the staging slot), so readers
    // never need to write.
    struct State {
        uint64_t seen;
        uint64_t count;
        int64_t overlay;  // position read from the staging slot, -1: none
        uint64_t stored;
    };
    State state() const noexcept;
    // The slot holding position pos in state s.
    const uint8_t* slot_in(const State& s, uint64_t pos) const noexcept {
        return int64_t(pos) == s.overlay ? slot(g_.k) : slot(pos);
    }

    uint64_t seen() const noexcept;
    uint64_t count() const noexcept;
    uint32_t item_len(uint64_t pos) const noexcept;
    uint32_t item_flags(uint64_t pos) const noexcept;
    const uint8_t* item_data(uint64_t pos) const noexcept { return slot(pos) + 8; }

    // What is wrong with the state, or nullptr; under the mutex, or on a
    // frozen object. Always the fields whose values address memory, in O(1):
    // count = min(seen, k) and stored in count..seen (those of a pending
    // journal instead, with its position and staged length: a writer killed
    // while applying it leaves the state's own fields half set), a weighted
    // reservoir's heap root.
    // With `full`, in O(k), the rest of a weighted reservoir's heap: a
    // permutation of 0..count-1 with the heap property (its entries index
    // the keys and become positions). A pending journal is not damage
    // (recover() replays it), and the heap is checked only without one
    // (recovery rebuilds it). Item lengths need no check: every read clamps
    // them to item_size.
    const char* damage(bool full) const noexcept;
    // damage(true), every item's length and flags, and no pending journal (tests).
    const char* check() const noexcept;

private:
    // Steps 2 to 5 of a change: fills the journal from `next`, commits,
    // applies and closes it (crash_after as for add).
    void journaled(const Journal& next, int crash_after) noexcept;
    // One journaled step that puts item into position pos (its staging
    // slot first) and sets seen, count and stored.
    void place(const MergeItem& item, int64_t pos, uint64_t seen, uint64_t count, uint64_t stored) noexcept;
    void apply(const Journal& j) noexcept;
    void rebuild_heap(uint64_t count) noexcept;

    Geometry g_;
    uint8_t* base_;
};

}  // namespace sketch::shared_reservoir
