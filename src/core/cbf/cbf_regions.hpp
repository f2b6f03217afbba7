// Adds to a counting Bloom filter larger than the caches, gathered by region.
//
// add_many reads and writes random cache lines of the whole array: k per
// item in the classic layout, one in the block layout. On a 64 MiB array
// that is a trip to memory per line, overlapped but still bound by how fast
// the machine serves random lines. RegionBatch instead sorts what each add
// needs into the bucket of its region of the counters (32 KiB, which fits
// the L1 cache; cbf_region_buckets.hpp), and when a bucket is full applies
// every bucket, region after region, while the next region streams in.
// Memory then sees sequential traffic only: the entries going out and coming
// back, and one pass over the counters per batch. An entry is, classic, a
// probe's offset in its region (2 bytes, k per item); block, the item's low
// hash word (8 bytes, one per item: its line and counters derive from it).
//
// Saturating increments commute (a counter ends at min(15, start + its
// increments) in any order), so the counters end byte for byte as add_many
// leaves them. What a batch cannot tell is add_many's "probably new" count.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cbf/cbf.hpp"
#include "cbf/cbf_region_buckets.hpp"
#include "hash.hpp"

namespace sketch::cbf {

class RegionBatch {
public:
    // Bytes of memory (64-byte aligned) for a batch of about `items` items of
    // geometry g (g.counter_bytes() >= 32 KiB).
    static size_t memory_bytes(const Geometry& g, size_t items);
    // About the items a batch of `bytes` bytes of entries holds.
    static size_t items_for(const Geometry& g, size_t bytes);

    // Not usable until init.
    RegionBatch() = default;
    // Starts an empty batch in `memory` (memory_bytes(g, items) bytes, 64-byte
    // aligned, contents unspecified), for the counters of geometry g.
    void init(const Geometry& g, void* memory, size_t items);
    bool ready() const { return probes_.ready() || items_.ready(); }

    // What add_many(g, counters, hashes, n) does, except that increments may
    // stay pending in the batch until a later add or apply.
    void add(uint8_t* counters, const Hash128* hashes, size_t n);
    // Applies every pending increment; the counters are then complete.
    void apply(uint8_t* counters);

private:
    void add_classic(uint8_t* counters, const Hash128* hashes, size_t n);
    void add_block(uint8_t* counters, const Hash128* hashes, size_t n);
    void apply_classic(uint8_t* counters);
    void apply_block(uint8_t* counters);

    Geometry g_;
    RegionBuckets<uint16_t> probes_;  // classic: each probe's offset in its region
    RegionBuckets<uint64_t> items_;   // block: each item's hash lo
};

}  // namespace sketch::cbf
