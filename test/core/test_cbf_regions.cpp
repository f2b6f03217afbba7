// RegionBatch (cbf_regions.hpp), which cbf_agg uses on large filters: for
// both layouts, the counters it leaves are byte for byte those of add_many,
// whatever the batch size, the calls' sizes, the saturation and the spread
// of the items over the regions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <vector>

#include "cbf/cbf.hpp"
#include "cbf/cbf_layout.hpp"
#include "cbf/cbf_regions.hpp"

namespace {

using namespace sketch;
using namespace sketch::cbf;

Hash128 item(int64_t i) { return hash_int(i); }

// The counters a RegionBatch of `items` items leaves after adding hs in
// calls of `chunk` hashes (starting from `start`) and a final apply.
std::vector<uint8_t> regioned(const Geometry& g, std::vector<uint8_t> start, const std::vector<Hash128>& hs,
                              size_t items, size_t chunk) {
    const size_t bytes = RegionBatch::memory_bytes(g, items);
    std::unique_ptr<void, void (*)(void*)> memory(std::aligned_alloc(64, (bytes + 63) / 64 * 64), std::free);
    RegionBatch batch;
    batch.init(g, memory.get(), items);
    for (size_t at = 0; at < hs.size(); at += chunk)
        batch.add(start.data(), hs.data() + at, std::min(chunk, hs.size() - at));
    batch.apply(start.data());
    batch.apply(start.data());  // nothing pending: changes nothing
    return start;
}

std::vector<uint8_t> added_many(const Geometry& g, std::vector<uint8_t> start, const std::vector<Hash128>& hs) {
    add_many(g, start.data(), hs.data(), hs.size());
    return start;
}

std::vector<Hash128> items(int64_t n) {
    std::vector<Hash128> hs;
    for (int64_t i = 0; i < n; ++i) hs.push_back(item(i));
    return hs;
}

// A block geometry of `lines` lines and k counters per item.
Geometry block_geometry(uint64_t lines, uint32_t k) {
    Geometry g = geometry_for(1000, 0.01, parse_layout("block"));
    g.m = lines * kLineCounters;
    g.k = k;
    return g;
}

TEST(CbfRegions, SameCountersAsAddMany) {
    // One region and several; k from 1 to 32; batches that fill many times
    // over and one that never fills before the final apply.
    for (const int log2m : {16, 17, 20})
        for (const uint32_t k : {1u, 7u, 32u})
            for (const size_t batch : {size_t(1), size_t(100), size_t(1) << 20}) {
                Geometry g = geometry_for(1000, 0.01);
                g.m = uint64_t(1) << log2m;
                g.k = k;
                const std::vector<uint8_t> zero(g.counter_bytes(), 0);
                EXPECT_EQ(regioned(g, zero, items(20000), batch, 256), added_many(g, zero, items(20000)))
                    << "m = 2^" << log2m << ", k = " << k << ", batch " << batch;
            }
}

TEST(CbfRegions, BlockSameCountersAsAddMany) {
    // A region is 512 lines: one region, one and a bit (the last region
    // short), several whole ones and a count of lines no power of two.
    for (const uint64_t lines : {uint64_t(512), uint64_t(700), uint64_t(4096), uint64_t(5000)})
        for (const uint32_t k : {1u, 6u, 32u})
            for (const size_t batch : {size_t(1), size_t(100), size_t(1) << 20}) {
                const Geometry g = block_geometry(lines, k);
                const std::vector<uint8_t> zero(g.counter_bytes(), 0);
                EXPECT_EQ(regioned(g, zero, items(20000), batch, 256), added_many(g, zero, items(20000)))
                    << lines << " lines, k = " << k << ", batch " << batch;
            }
}

TEST(CbfRegions, SaturatesAsAddManyDoes) {
    // Items added 1 to 40 times (counters stuck at 15, and counters that
    // reach 15 within one batch), onto counters that are not all zero.
    std::vector<Hash128> hs;
    for (int round = 0; round < 40; ++round)
        for (int64_t i = 0; i <= round * 50; ++i) hs.push_back(item(i));
    Geometry classic = geometry_for(1000, 0.01);
    classic.m = uint64_t(1) << 17;
    for (const Geometry& g : {classic, block_geometry(1024, 6)}) {
        std::vector<uint8_t> start(g.counter_bytes());
        for (size_t i = 0; i < start.size(); ++i) start[i] = static_cast<uint8_t>(i * 37);
        const std::vector<uint8_t> expected = added_many(g, start, hs);
        EXPECT_GT(counters_saturated(g, expected.data()), 1000u);
        EXPECT_EQ(regioned(g, start, hs, 5000, 7), expected) << "blocked " << g.blocked();
        EXPECT_EQ(regioned(g, start, hs, 100, 256), expected) << "blocked " << g.blocked();
    }
}

TEST(CbfRegions, ProbesCrowdedIntoOneRegion) {
    // hi = 0 makes the step 1: an item's k probes are consecutive counters,
    // so every probe of these items lands in region 0 and its bucket fills
    // again and again while the others stay empty.
    Geometry g = geometry_for(1000, 0.01);
    g.m = uint64_t(1) << 18;
    g.k = 32;
    std::vector<Hash128> hs;
    for (uint64_t i = 0; i < 30000; ++i) hs.push_back(Hash128{(i * 977) % 60000, 0});
    const std::vector<uint8_t> zero(g.counter_bytes(), 0);
    EXPECT_EQ(regioned(g, zero, hs, 1000, 256), added_many(g, zero, hs));
}

TEST(CbfRegions, BlockItemsCrowdedIntoOneRegion) {
    // An item's line is high64((lo | 1) * lines): lo below 2^64 / 8 puts it
    // in the first eighth of the lines, region 0 of 8, whose bucket fills
    // again and again while the others stay empty.
    const Geometry g = block_geometry(4096, 8);
    std::vector<Hash128> hs;
    for (uint64_t i = 0; i < 30000; ++i) hs.push_back(Hash128{item(int64_t(i)).lo >> 3, 0});
    const std::vector<uint8_t> zero(g.counter_bytes(), 0);
    EXPECT_EQ(regioned(g, zero, hs, 1000, 256), added_many(g, zero, hs));
}

}  // namespace
