#include "cbf/cbf_regions.hpp"

#include <array>
#include <cstring>

#include "cbf/cbf_block.hpp"

namespace sketch::cbf {

namespace {

// Classic: a region holds 2^16 counters, so a probe's offset in it is a uint16_t.
constexpr uint32_t kRegionShift = 16;
static_assert(kRegionBytes * 2 == size_t(1) << kRegionShift, "a classic region is 2^16 counters");
// Block: a region holds whole lines.
constexpr uint32_t kLinesPerRegion = kRegionBytes / kLineBytes;

uint32_t regions_of(const Geometry& g) {
    return static_cast<uint32_t>(g.blocked() ? (g.lines() + kLinesPerRegion - 1) / kLinesPerRegion
                                             : g.m >> kRegionShift);
}

// The entries a batch of `items` items makes.
size_t entries_of(const Geometry& g, size_t items) { return g.blocked() ? items : items * g.k; }

// kBumped[b * 2 + nibble]: byte b with the counter in that nibble (0 low,
// 1 high) incremented, saturating at 15. One load from a table that stays in
// L1 replaces the shifts, mask and compare of a nibble's update, which made
// up most of the apply loop.
constexpr std::array<uint8_t, 512> make_bumped() {
    std::array<uint8_t, 512> t{};
    for (unsigned b = 0; b < 256; ++b)
        for (unsigned nibble = 0; nibble < 2; ++nibble) {
            const unsigned shift = nibble * 4, v = (b >> shift) & 15u;
            t[b * 2 + nibble] = static_cast<uint8_t>(v == kCounterMax ? b : b + (1u << shift));
        }
    return t;
}
constexpr std::array<uint8_t, 512> kBumped = make_bumped();

inline void bump(uint8_t* region, uint16_t offset) {
    uint8_t* byte = region + (offset >> 1);
    *byte = kBumped[*byte * 2u + (offset & 1u)];
}

void prefetch_region(const uint8_t* region, size_t lines) {
    for (size_t line = 0; line < lines; ++line) __builtin_prefetch(region + line * 64, 1, 2);
}

}  // namespace

size_t RegionBatch::memory_bytes(const Geometry& g, size_t items) {
    const uint32_t regions = regions_of(g);
    const size_t entries = entries_of(g, items);
    if (g.blocked()) return RegionBuckets<uint64_t>::memory_bytes(regions, RegionBuckets<uint64_t>::capacity_for(regions, entries));
    return RegionBuckets<uint16_t>::memory_bytes(regions, RegionBuckets<uint16_t>::capacity_for(regions, entries));
}

size_t RegionBatch::items_for(const Geometry& g, size_t bytes) {
    return bytes / (g.blocked() ? sizeof(uint64_t) : sizeof(uint16_t) * g.k);
}

void RegionBatch::init(const Geometry& g, void* memory, size_t items) {
    g_ = g;
    const uint32_t regions = regions_of(g);
    const size_t entries = entries_of(g, items);
    if (g.blocked())
        items_.init(regions, RegionBuckets<uint64_t>::capacity_for(regions, entries), memory);
    else
        probes_.init(regions, RegionBuckets<uint16_t>::capacity_for(regions, entries), memory);
}

void RegionBatch::add(uint8_t* counters, const Hash128* hashes, size_t n) {
    if (g_.blocked())
        add_block(counters, hashes, n);
    else
        add_classic(counters, hashes, n);
}

void RegionBatch::apply(uint8_t* counters) {
    if (g_.blocked())
        apply_block(counters);
    else
        apply_classic(counters);
}

void RegionBatch::add_classic(uint8_t* counters, const Hash128* hashes, size_t n) {
    RegionBuckets<uint16_t> buckets = probes_;  // a local copy: see put
    const uint64_t region_mask = g_.m / (uint64_t(1) << kRegionShift) - 1;
    const uint32_t k = g_.k;
    for (size_t i = 0; i < n; ++i) {
        uint64_t p = hashes[i].lo;
        const uint64_t step = hashes[i].hi | 1;
        for (uint32_t j = 0; j < k; ++j, p += step) {
            // position p & (m - 1): region from its high bits, offset its low 16
            const uint32_t r = static_cast<uint32_t>((p >> kRegionShift) & region_mask);
            if (buckets.put(r, static_cast<uint16_t>(p))) apply_classic(counters);
        }
    }
}

void RegionBatch::add_block(uint8_t* counters, const Hash128* hashes, size_t n) {
    RegionBuckets<uint64_t> buckets = items_;  // a local copy: see put
    const uint64_t lines = g_.lines();
    for (size_t i = 0; i < n; ++i) {
        const uint32_t r = static_cast<uint32_t>(block::line_of(lines, hashes[i].lo) / kLinesPerRegion);
        if (buckets.put(r, hashes[i].lo)) apply_block(counters);
    }
}

void RegionBatch::apply_classic(uint8_t* counters) {
    probes_.apply([&](uint32_t r) { prefetch_region(counters + r * kRegionBytes, kRegionLines); },
                  [&](uint32_t r, const uint16_t* offsets, uint32_t n, int64_t next) {
                      uint8_t* region = counters + r * kRegionBytes;
                      const uint8_t* ahead = next < 0 ? nullptr : counters + next * kRegionBytes;
                      bump_prefetching_next(n, ahead, kRegionLines, [&](uint32_t i) { bump(region, offsets[i]); });
                  });
}

void RegionBatch::apply_block(uint8_t* counters) {
    const uint64_t lines = g_.lines();
    // the lines of region r: a whole region but the last, which may be short
    auto lines_in = [&](int64_t r) { return std::min<uint64_t>(kLinesPerRegion, lines - uint64_t(r) * kLinesPerRegion); };
    const block::Ops& ops = block::ops(g_.k);
    items_.apply([&](uint32_t r) { prefetch_region(counters + r * kRegionBytes, lines_in(r)); },
                 [&](uint32_t, const uint64_t* los, uint32_t n, int64_t next) {
                     if (next < 0)
                         ops.add_los(counters, lines, los, n, nullptr, 0);
                     else
                         ops.add_los(counters, lines, los, n, counters + next * kRegionBytes, lines_in(next));
                 });
}

}  // namespace sketch::cbf
