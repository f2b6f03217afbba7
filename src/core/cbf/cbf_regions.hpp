// Adds to a counting Bloom filter larger than the caches, gathered by region.
//
// add_many reads and writes k random cache lines of the whole array per item:
// on a 64 MiB array that is k trips to memory per item, overlapped but still
// bound by how fast the machine serves random lines. RegionBatch instead
// writes each probe's position (2 bytes) into the bucket of its region of
// kRegionCounters counters (32 KiB, which fits the L1 cache), and when a
// bucket is full applies every bucket, region after region, while the next
// region streams in. Memory then sees sequential traffic only: the positions
// going out and coming back, and one pass over the counters per batch.
//
// Saturating increments commute (a counter ends at min(15, start + its
// increments) in any order), so the counters end byte for byte as add_many
// leaves them. What a batch cannot tell is add_many's "probably new" count.
//
// The batch works in memory its caller provides (memory_bytes), so the same
// code runs on malloc'd and palloc'd memory; it holds only pointers into it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cbf/cbf.hpp"
#include "hash.hpp"

namespace sketch::cbf {

class RegionBatch {
public:
    static constexpr uint32_t kRegionShift = 16;  // a position's region offset fits a uint16_t
    static constexpr uint64_t kRegionCounters = uint64_t(1) << kRegionShift;

    // Bytes of memory (64-byte aligned) for a batch of about `items` items of
    // geometry g (g.m >= kRegionCounters).
    static size_t memory_bytes(const Geometry& g, size_t items);

    // Not usable until init.
    RegionBatch() = default;
    // Starts an empty batch in `memory` (memory_bytes(g, items) bytes, 64-byte
    // aligned, contents unspecified), for the counters of geometry g.
    void init(const Geometry& g, void* memory, size_t items);
    bool ready() const { return lines_ != nullptr; }

    // What add_many(g, counters, hashes, n) does, except that increments may
    // stay pending in the batch until a later add or apply.
    void add(uint8_t* counters, const Hash128* hashes, size_t n);
    // Applies every pending increment; the counters are then complete.
    void apply(uint8_t* counters);

private:
    static constexpr uint32_t kLineEntries = 32;  // a cache line of positions
    struct alignas(64) Line {
        uint16_t entry[kLineEntries];
    };

    uint32_t write_out(uint32_t region);

    uint32_t k_ = 0;
    uint32_t regions_ = 0;     // m / kRegionCounters
    uint32_t capacity_ = 0;    // entries a bucket holds, a multiple of kLineEntries
    Line* lines_ = nullptr;        // per region, the line being filled (stays in cache)
    uint32_t* cursor_ = nullptr;   // per region, its line's next free entry as a byte offset from lines_
    uint32_t* written_ = nullptr;  // per region, the entries in its bucket
    uint16_t* buckets_ = nullptr;  // region r's full lines, capacity_ entries from r * capacity_
};

}  // namespace sketch::cbf
