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

namespace {

// The file's generator, or before the first add the geometry's seed.
rsv::Rng file_rng(const Geometry& g, const Control* c) {
    const bool zero = (c->rng[0] | c->rng[1] | c->rng[2] | c->rng[3]) == 0;
    return zero ? rsv::Rng(g.initial_seed) : rsv::Rng::with_state(c->rng);
}

}  // namespace

bool View::add(const uint8_t* bytes, uint32_t len, uint32_t flags, double weight, int crash_after) noexcept {
    Control* c = control();
    if (len > g_.item_size) len = g_.item_size;
    rsv::Rng rng = file_rng(g_, c);

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
    if (crash_after == 0) store_release(control()->item_type, char(0));  // the next add records its own
}

void View::seed(uint64_t seed_value) noexcept {
    rsv::Rng rng(seed_value);
    std::memcpy(control()->rng, rng.state(), sizeof control()->rng);
}

void View::place(const MergeItem& item, int64_t pos, uint64_t seen, uint64_t count, uint64_t stored) noexcept {
    const uint32_t len = item.len > g_.item_size ? g_.item_size : item.len;
    uint8_t* staging = slot(g_.k);
    std::memcpy(staging, &len, 4);
    std::memcpy(staging + 4, &item.flags, 4);
    std::memcpy(staging + 8, item.bytes, len);
    Journal next{};
    next.pos = int32_t(pos);
    next.seen = seen;
    next.count = count;
    std::memcpy(next.rng, control()->rng, sizeof next.rng);
    next.stored = stored;
    next.key = item.key;
    journaled(next, 0);
}

const char* View::merge(const MergeItem* b, uint64_t count_b, uint64_t seen_b, int32_t* take_a,
                        int32_t* take_b) noexcept {
    Control* c = control();
    const uint64_t k = g_.k;
    const uint64_t seen_a = c->seen;
    if (seen_b > uint64_t(INT64_MAX) - seen_a) return "the merged reservoir would have seen more than 2^63 items";
    if (count_b == 0) return nullptr;
    const uint64_t seen = seen_a + seen_b;
    const uint64_t count = seen < k ? seen : k;
    uint64_t stored = c->stored;
    rsv::Rng rng = file_rng(g_, c);
    if (g_.weighted) {
        // Offered one by one with their keys, as adds would be: the k largest
        // keys stay. The journal's apply keeps the heap.
        for (uint64_t i = 0; i < count_b; ++i) {
            const uint64_t now = c->count;
            if (now < k)
                place(b[i], int64_t(now), c->seen + 1, now + 1, stored + 1);
            else if (b[i].key > keys()[heap()[0]])
                place(b[i], heap()[0], c->seen + 1, now, stored + 1);
            else
                continue;
            ++stored;
        }
    } else {
        const uint64_t count_a = c->count;
        rsv::MergeSplit split;
        try {
            split = rsv::uniform_merge(int64_t(seen_a), int32_t(count_a), int64_t(seen_b), int32_t(count_b),
                                       int32_t(k), rng, take_a, take_b);
        } catch (...) {
            return "the two samples' counts are inconsistent";
        }
        // The positions of A not kept (take_a is sorted), then the new
        // ones (only while A is not full, where seen = count = stored).
        int32_t t = 0;
        int32_t next_b = 0;
        for (uint64_t pos = 0; pos < count_a && next_b < split.from_b; ++pos) {
            if (t < split.from_a && uint64_t(take_a[t]) == pos) {
                ++t;
                continue;
            }
            place(b[take_b[next_b++]], int64_t(pos), seen_a, count_a, stored);
        }
        for (uint64_t pos = count_a; next_b < split.from_b; ++pos)
            place(b[take_b[next_b++]], int64_t(pos), pos + 1, pos + 1, pos + 1);
        stored += uint64_t(split.from_b);
    }
    Journal last{};
    last.pos = -1;
    last.seen = seen;
    last.count = count;
    std::memcpy(last.rng, rng.state(), sizeof last.rng);
    last.stored = stored;
    journaled(last, 0);
    return nullptr;
}

void View::note_item_type(const char* name) noexcept {
    char* field = control()->item_type;
    if (field[0] == kMixedItemTypes) return;
    const size_t len = std::strlen(name);
    if (field[0] != 0) {
        if (std::strncmp(field, name, sizeof control()->item_type) != 0) store_release(field, kMixedItemTypes);
        return;
    }
    if (len == 0 || len >= sizeof control()->item_type) {
        store_release(field, kMixedItemTypes);
        return;
    }
    std::memcpy(field + 1, name + 1, len);  // the rest of the name and its NUL
    store_release(field, name[0]);
}

void View::load_item(uint64_t pos, const uint8_t* bytes, uint32_t len, uint32_t flags, double key) noexcept {
    if (len > g_.item_size) len = g_.item_size;
    uint8_t* s = slot(pos);
    std::memcpy(s, &len, 4);
    std::memcpy(s + 4, &flags, 4);
    std::memcpy(s + 8, bytes, len);
    if (g_.weighted) keys()[pos] = key;
}

void View::load_done(uint64_t seen, uint64_t count) noexcept {
    Control* c = control();
    c->seen = seen;
    c->count = count;
    c->stored = count;
    if (g_.weighted) rebuild_heap(count);
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
