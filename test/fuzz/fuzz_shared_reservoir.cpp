// A shared reservoir's file format (shared_reservoir.hpp): its stored
// geometry and its payload (control block, redo journal, slots, keys and
// heap), which a crash, a damaged disk or a planted file may leave in any
// state. The PostgreSQL face checks the state (View::damage) before anything
// reads or writes through it; a state that passes must be safe to read,
// recover, reseed and add to, and an add or a clear must leave it undamaged.
//
// Input: a stored geometry (32 bytes) and a payload size (8 bytes), checked
// as an attach checks them; then the payload of a small reservoir whose k,
// item size, weighting and seed come from that geometry.
#include <algorithm>
#include <memory>

#include "fuzz_support.hpp"
#include "reservoir/shared_reservoir.hpp"

namespace sr = sketch::shared_reservoir;

namespace {

constexpr size_t kPayloadSizeAt = sizeof(sr::Geometry), kPayloadAt = kPayloadSizeAt + 8;

// What a reader copies out (shared_reservoir_sql.cpp, read_state).
void read_items(const sr::View& v) {
    const sr::View::State s = v.state();
    fuzz::require(s.count <= v.geometry().k, "an undamaged state holds at most k items");
    std::vector<uint8_t> copy(v.geometry().stride);
    for (uint64_t i = 0; i < s.count; ++i) {
        const uint8_t* slot = v.slot_in(s, i);
        uint32_t len;
        std::memcpy(&len, slot, 4);
        std::memcpy(copy.data(), slot, 8 + size_t(std::min(len, v.geometry().item_size)));
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < kPayloadAt) return 0;
    sr::Geometry stored;
    uint64_t payload_size;
    std::memcpy(&stored, data, sizeof stored);
    std::memcpy(&payload_size, data + kPayloadSizeAt, sizeof payload_size);
    try {
        sr::check_geometry("object", stored, payload_size);
        fuzz::require(sr::payload_bytes(stored) == payload_size, "an accepted geometry fits its payload");
    } catch (const sketch::Error&) {
    }

    // k 1..8 and item sizes 1..24 keep their values (the seeds' geometries).
    const sr::Geometry g = sr::make_geometry(1 + (stored.k - 1) % 8, 1 + (stored.item_size - 1) % 24,
                                             stored.weighted & 1, stored.initial_seed);
    const uint64_t bytes = sr::payload_bytes(g);  // a multiple of 64
    std::unique_ptr<uint8_t, decltype(&std::free)> payload(static_cast<uint8_t*>(std::aligned_alloc(64, bytes)),
                                                           &std::free);
    std::memset(payload.get(), 0, bytes);
    std::memcpy(payload.get(), data + kPayloadAt, std::min<uint64_t>(size - kPayloadAt, bytes));
    sr::View v(g, payload.get());

    if (v.damage(true) != nullptr) return 0;
    read_items(v);
    v.recover();
    if (v.damage(true) != nullptr) return 0;  // replayed onto keys that are not logs
    read_items(v);
    if (v.seen() > (uint64_t(1) << 62)) return 0;  // no add reaches 2^64 items seen
    const std::vector<sketch::Hash128> items = fuzz::hashes_of(data, size, 4);
    v.seed(items[0].lo);
    for (const sketch::Hash128& h : items) {
        v.add(reinterpret_cast<const uint8_t*>(&h), uint32_t(h.lo % 17), uint32_t(h.hi & sr::kBinary),
              1.0 + double(h.hi % 7));
        fuzz::require(v.damage(true) == nullptr, "an add leaves an undamaged reservoir undamaged");
    }
    read_items(v);
    v.clear();
    fuzz::require(v.damage(true) == nullptr && v.count() == 0, "a clear leaves an empty undamaged reservoir");
    return 0;
}
