#include "reservoir/shared_reservoir.hpp"

#include <cmath>
#include <cstring>
#include <new>

#include "error.hpp"
#include "reservoir/reservoir.hpp"

namespace sketch::shared_reservoir {

namespace rsv = sketch::reservoir;

namespace {

uint64_t round8(uint64_t n) { return (n + 7) & ~uint64_t(7); }
uint64_t round64(uint64_t n) { return (n + 63) & ~uint64_t(63); }
constexpr uint64_t kMaxPayload = uint64_t(1) << 36;  // as shared_file.hpp's kMaxPayloadBytes

uint64_t slots_bytes(const Geometry& g) { return round64((uint64_t(g.k) + 1) * g.stride); }
uint64_t weighted_bytes(const Geometry& g) {
    return g.weighted ? round64(uint64_t(g.k) * (sizeof(double) + sizeof(int32_t))) : 0;
}

template <typename T>
void store_release(T* p, T v) {
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
}
template <typename T>
T load_acquire(const T* p) {
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

}  // namespace

void reset_lock_words(uint8_t* payload) noexcept { reinterpret_cast<Control*>(payload)->mutex = 0; }

Geometry make_geometry(int64_t k, int64_t item_size, bool weighted, uint64_t initial_seed) {
    if (k < 1 || k > kMaxK)
        fail(Errc::invalid_parameter, "shared reservoir size k must be between 1 and %lld, not %lld",
             (long long)kMaxK, (long long)k);
    if (item_size < 1 || item_size > kMaxItemSize)
        fail(Errc::invalid_parameter, "shared reservoir item_size must be between 1 and %lld bytes, not %lld",
             (long long)kMaxItemSize, (long long)item_size);
    Geometry g{};
    g.magic = kGeometryMagic;
    g.k = uint32_t(k);
    g.item_size = uint32_t(item_size);
    g.weighted = weighted ? 1 : 0;
    g.stride = round8(8 + uint64_t(item_size));
    g.initial_seed = initial_seed;
    if (payload_bytes(g) > kMaxPayload)
        fail(Errc::program_limit, "a shared reservoir of %lld items of %lld bytes would need %llu bytes; the limit is %llu",
             (long long)k, (long long)item_size, (unsigned long long)payload_bytes(g),
             (unsigned long long)kMaxPayload);
    return g;
}

uint64_t payload_bytes(const Geometry& g) { return kControlBytes + slots_bytes(g) + weighted_bytes(g); }

void check_geometry(const char* label, const Geometry& g, uint64_t payload) {
    if (g.magic != kGeometryMagic || g.k < 1 || g.k > kMaxK || g.item_size < 1 || g.item_size > kMaxItemSize ||
        g.weighted > 1 || g.stride != round8(8 + uint64_t(g.item_size)))
        fail(Errc::corrupted, "shared object \"%s\": invalid reservoir geometry", label);
    if (payload_bytes(g) != payload)
        fail(Errc::corrupted, "shared object \"%s\": a reservoir of %u items of %u bytes needs %llu bytes, the file has %llu",
             label, g.k, g.item_size, (unsigned long long)payload_bytes(g), (unsigned long long)payload);
}

uint64_t View::seen() const noexcept { return load_acquire(&control()->seen); }
uint64_t View::count() const noexcept { return load_acquire(&control()->count); }
uint32_t View::item_len(uint64_t pos) const noexcept {
    uint32_t len;
    std::memcpy(&len, slot(pos), 4);
    return len;
}
uint32_t View::item_flags(uint64_t pos) const noexcept {
    uint32_t flags;
    std::memcpy(&flags, slot(pos) + 4, 4);
    return flags;
}

View::State View::state() const noexcept {
    const Control* c = control();
    State s;
    if (load_acquire(&c->journal.valid) != 0) {
        s.seen = c->journal.seen;
        s.count = c->journal.count;
        s.overlay = c->journal.pos;
        s.stored = c->journal.stored;
    } else {
        s.seen = load_acquire(&c->seen);
        s.count = load_acquire(&c->count);
        s.overlay = -1;
        s.stored = c->stored;
    }
    return s;
}

bool View::pending() const noexcept { return load_acquire(&control()->journal.valid) != 0; }

void View::rebuild_heap(uint64_t count) noexcept {
    int32_t* h = heap();
    for (uint64_t i = 0; i < count; ++i) h[i] = int32_t(i);
    rsv::build_heap(keys(), h, int32_t(count));
}

// Step 4: every store is an absolute assignment from the journal, except the
// heap maintenance, which recovery redoes by rebuilding the heap.
void View::apply(const Journal& j) noexcept {
    Control* c = control();
    const uint64_t old_count = c->count;
    if (j.pos >= 0) {
        const uint8_t* staging = slot(g_.k);
        uint32_t len;
        std::memcpy(&len, staging, 4);
        std::memcpy(slot(uint64_t(j.pos)), staging, 8 + size_t(len));
        if (g_.weighted) {
            keys()[j.pos] = j.key;
            if (j.count > old_count) {  // filling: position old_count joins the heap
                heap()[old_count] = j.pos;
                rsv::heap_sift_up(keys(), heap(), int32_t(old_count));
            } else {  // replacing the smallest key, at the root
                rsv::heap_sift_down(keys(), heap(), int32_t(j.count), 0);
            }
        }
    }
    std::memcpy(c->rng, j.rng, sizeof c->rng);
    c->stored = j.stored;
    store_release(&c->count, j.count);
    store_release(&c->seen, j.seen);
}

bool View::recover() noexcept {
    Control* c = control();
    if (load_acquire(&c->journal.valid) == 0) return false;
    const Journal& j = c->journal;
    if (j.pos >= 0) {
        const uint8_t* staging = slot(g_.k);
        uint32_t len;
        std::memcpy(&len, staging, 4);
        if (len > g_.item_size) len = g_.item_size;  // never: staging was complete before valid was set
        std::memcpy(slot(uint64_t(j.pos)), staging, 8 + size_t(len));
        if (g_.weighted) keys()[j.pos] = j.key;
    }
    std::memcpy(c->rng, j.rng, sizeof c->rng);
    c->stored = j.stored;
    store_release(&c->count, j.count);
    store_release(&c->seen, j.seen);
    if (g_.weighted) rebuild_heap(j.count);
    c->recoveries++;
    store_release(&c->journal.valid, uint32_t(0));
    return true;
}

bool View::add(const uint8_t* bytes, uint32_t len, uint32_t flags, double weight, int crash_after) noexcept {
    Control* c = control();
    if (len > g_.item_size) len = g_.item_size;
    // The file's generator, or before the first add the geometry's seed.
    const bool zero = (c->rng[0] | c->rng[1] | c->rng[2] | c->rng[3]) == 0;
    rsv::Rng rng = zero ? rsv::Rng(g_.initial_seed) : rsv::Rng::with_state(c->rng);

    // The decision, on locals only.
    const uint64_t seen = c->seen + 1;
    const uint64_t count = c->count;
    int64_t pos = -1;
    double key = 0.0;
    uint64_t new_count = count;
    if (!g_.weighted) {
        if (seen <= g_.k) {
            pos = int64_t(seen - 1);
            new_count = seen;
        } else {
            const uint64_t j = rng.below(seen);
            if (j < g_.k) pos = int64_t(j);
        }
    } else {
        key = rsv::weighted_key(weight, rng);
        if (count < g_.k) {
            pos = int64_t(count);
            new_count = count + 1;
        } else if (key > keys()[heap()[0]]) {
            pos = heap()[0];
        }
    }

    // 1. the item into the staging slot
    if (pos >= 0) {
        uint8_t* staging = slot(g_.k);
        std::memcpy(staging, &len, 4);
        std::memcpy(staging + 4, &flags, 4);
        std::memcpy(staging + 8, bytes, len);
    }
    if (crash_after == 1) return pos >= 0;
    Journal next{};
    next.pos = int32_t(pos);
    next.seen = seen;
    next.count = new_count;
    std::memcpy(next.rng, rng.state(), sizeof next.rng);
    next.stored = c->stored + (pos >= 0 ? 1 : 0);
    next.key = key;
    journaled(next, crash_after);
    return pos >= 0;
}

void View::journaled(const Journal& next, int crash_after) noexcept {
    // 2. the journal
    Journal& j = control()->journal;
    j.pos = next.pos;
    j.seen = next.seen;
    j.count = next.count;
    std::memcpy(j.rng, next.rng, sizeof j.rng);
    j.stored = next.stored;
    j.key = next.key;
    if (crash_after == 2) return;
    // 3. commit
    store_release(&j.valid, uint32_t(1));
    if (crash_after == 3) return;
    // 4. apply
    apply(j);
    if (crash_after == 4) return;
    // 5. done
    store_release(&j.valid, uint32_t(0));
}

// Through the journal too: seen, count and stored are set by separate
// stores, and a process killed between two of them would leave values that
// disagree, refused as damage (count is not min(seen, k)) from then on.
void View::clear(int crash_after) noexcept {
    Journal next{};
    next.pos = -1;
    std::memcpy(next.rng, control()->rng, sizeof next.rng);
    journaled(next, crash_after);
}

void View::seed(uint64_t seed_value) noexcept {
    rsv::Rng rng(seed_value);
    std::memcpy(control()->rng, rng.state(), sizeof control()->rng);
}

const char* View::damage(bool full) const noexcept {
    const Control* c = control();
    const uint64_t k = g_.k;
    const bool journal = pending();
    if (journal) {  // what counts is the journal (the fields it sets may be half applied)
        const Journal& j = c->journal;
        if (j.pos < -1 || j.pos >= int64_t(k)) return "the journal's position is out of range";
        if (j.count != (j.seen < k ? j.seen : k)) return "the journal's count is not min(seen, k)";
        if (j.stored < j.count || j.stored > j.seen) return "the journal's stored is out of range";
        if (j.pos >= 0 && item_len(k) > g_.item_size) return "the journal's staged item is longer than item_size";
    } else {
        if (c->count != (c->seen < k ? c->seen : k)) return "count is not min(seen, k)";
        if (c->stored < c->count || c->stored > c->seen) return "stored is out of range";
    }
    if (g_.weighted && !journal && c->count > 0 && (heap()[0] < 0 || uint64_t(heap()[0]) >= c->count))
        return "the heap's root is out of range";
    if (full && g_.weighted && !journal) {
        const int32_t n = int32_t(c->count);
        const int32_t* h = heap();
        const double* kk = keys();
        uint8_t* seen_pos = new (std::nothrow) uint8_t[size_t(n) + 1]();
        if (seen_pos == nullptr) return nullptr;
        const char* bad = nullptr;
        for (int32_t i = 0; i < n && bad == nullptr; ++i) {
            if (h[i] < 0 || h[i] >= n || seen_pos[h[i]]) bad = "the heap is not a permutation";
            else seen_pos[h[i]] = 1;
            if (bad == nullptr && i > 0 && kk[h[(i - 1) / 2]] > kk[h[i]]) bad = "the heap property is broken";
            if (bad == nullptr && !(kk[h[i]] <= 0.0)) bad = "a key is not a log";
        }
        delete[] seen_pos;
        if (bad != nullptr) return bad;
    }
    return nullptr;
}

const char* View::check() const noexcept {
    if (pending()) return "a journal is pending";
    for (uint64_t i = 0; i < control()->count; ++i) {
        if (item_len(i) > g_.item_size) return "an item is longer than item_size";
        if (item_flags(i) & ~uint32_t(kBinary)) return "an item has unknown flags";
    }
    return damage(true);
}

}  // namespace sketch::shared_reservoir
