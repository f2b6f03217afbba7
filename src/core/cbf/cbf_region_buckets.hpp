// The bucketing under RegionBatch (cbf_regions.hpp), shared by the counting
// filter's layouts: entries (what a layout needs to redo an add inside one
// region of the counters) are sorted by region into buckets, and applied
// region after region while the next region streams in.
//
// Each region has a cache line being filled (the lines of all regions stay
// in cache); a full line goes to the region's bucket whole, with streaming
// stores where there are any (the bucket is read again only when the batch
// is applied, so caching it would only push out the lines being filled).
// When a bucket is full, the caller applies them all.
//
// The batch works in memory its caller provides (memory_bytes), so the same
// code runs on malloc'd and palloc'd memory; it holds only pointers into it.
//
// Internal to the core: cbf_regions.cpp and cbf_block.cpp use it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace sketch::cbf {

// A region of the counters: 32 KiB, which fits the L1 cache.
constexpr size_t kRegionBytes = size_t(1) << 15;
constexpr size_t kRegionLines = kRegionBytes / 64;

inline size_t round_up(size_t v, size_t to) { return (v + to - 1) / to * to; }

// Calls bump(i) for i in [0, n), and spreads over the calls the prefetches
// of the `next_lines` cache lines from `next` (null: none), so that the next
// region arrives while this one is worked on. Prefetched into L2: the region
// being applied keeps L1.
template <typename Bump>
inline __attribute__((always_inline)) void bump_prefetching_next(uint32_t n, const uint8_t* next, size_t next_lines,
                                                                 Bump&& bump) {
    constexpr uint32_t kChunk = 8;
    uint32_t i = 0;
    if (next != nullptr) {
        const size_t chunks = n / kChunk;
        // lines per chunk in 1/256ths, rounded up so that all arrive by the last chunk
        const size_t per_chunk = chunks == 0 ? 0 : (next_lines * 256 + chunks - 1) / chunks;
        size_t due = 0, line = 0;
        for (; i + kChunk <= n; i += kChunk) {
            for (uint32_t j = 0; j < kChunk; ++j) bump(i + j);
            due += per_chunk;
            for (const size_t upto = std::min(next_lines, due >> 8); line < upto; ++line)
                __builtin_prefetch(next + line * 64, 1, 2);
        }
        for (; line < next_lines; ++line) __builtin_prefetch(next + line * 64, 1, 2);
    }
    for (; i < n; ++i) bump(i);
}

template <typename Entry>
class RegionBuckets {
public:
    static constexpr uint32_t kLineEntries = 64 / sizeof(Entry);  // a cache line of entries

    // Entries a bucket holds for about `entries` entries in all over `regions` regions.
    static uint32_t capacity_for(uint32_t regions, size_t entries) {
        return static_cast<uint32_t>(round_up(std::max<size_t>(1, entries / regions), kLineEntries));
    }
    // Bytes of memory (64-byte aligned) for `regions` buckets of `capacity` entries.
    static size_t memory_bytes(uint32_t regions, uint32_t capacity) {
        return regions * sizeof(Line) + 2 * round_up(regions * sizeof(uint32_t), 64) +
               size_t(regions) * capacity * sizeof(Entry);
    }

    RegionBuckets() = default;
    // Empty buckets in `memory` (memory_bytes(regions, capacity) bytes, 64-byte aligned).
    void init(uint32_t regions, uint32_t capacity, void* memory) {
        regions_ = regions;
        capacity_ = capacity;
        auto* at = static_cast<uint8_t*>(memory);
        lines_ = reinterpret_cast<Line*>(at);
        at += regions * sizeof(Line);
        cursor_ = reinterpret_cast<uint32_t*>(at);
        at += round_up(regions * sizeof(uint32_t), 64);
        written_ = reinterpret_cast<uint32_t*>(at);
        at += round_up(regions * sizeof(uint32_t), 64);
        buckets_ = reinterpret_cast<Entry*>(at);
        for (uint32_t r = 0; r < regions; ++r) {
            cursor_[r] = r * sizeof(Line);
            written_[r] = 0;
        }
    }
    bool ready() const { return lines_ != nullptr; }

    // Adds an entry to region r; true when its bucket is now full (the
    // caller must apply before the next put). A put costs a load and two
    // stores: the cursor is the byte offset of the line's next free entry
    // from the start of the lines. Nothing here changes after init, so a
    // loop of puts runs on a local copy: the stores into the lines could
    // otherwise be taken to change the members, reloaded at every put.
    inline __attribute__((always_inline)) bool put(uint32_t r, Entry e) {
        const uint32_t at = cursor_[r];
        std::memcpy(reinterpret_cast<uint8_t*>(lines_) + at, &e, sizeof e);
        const uint32_t after = at + sizeof e;
        cursor_[r] = after;
        if (after % sizeof(Line) != 0) return false;
        cursor_[r] = after - sizeof(Line);
        return write_out(r) == capacity_;
    }

    // Empties every bucket region by region, in order: apply(r, entries, n,
    // next) for the region's bucket (next: the next region with entries, or
    // -1, so that it can be prefetched meanwhile), then apply(r, entries, n,
    // -1) for its line's entries; prefetch(r) first for the first region.
    template <typename Prefetch, typename Apply>
    void apply(Prefetch&& prefetch, Apply&& apply) {
#if defined(__SSE2__)
        _mm_sfence();  // the streamed lines are complete before they are read back
#endif
        uint32_t r = 0;
        while (r < regions_ && !pending(r)) ++r;
        if (r == regions_) return;
        prefetch(r);
        while (r < regions_) {
            uint32_t next = r + 1;
            while (next < regions_ && !pending(next)) ++next;
            apply(r, buckets_ + size_t(r) * capacity_, written_[r], next < regions_ ? int64_t(next) : int64_t(-1));
            apply(r, lines_[r].entry, static_cast<uint32_t>((cursor_[r] - r * sizeof(Line)) / sizeof(Entry)),
                  int64_t(-1));
            written_[r] = 0;
            cursor_[r] = r * sizeof(Line);
            r = next;
        }
    }

private:
    struct alignas(64) Line {
        Entry entry[kLineEntries];
    };

    bool pending(uint32_t r) const { return written_[r] != 0 || cursor_[r] != r * sizeof(Line); }

    // Region r's line is full: to its bucket. Returns the entries the bucket now holds.
    inline __attribute__((always_inline)) uint32_t write_out(uint32_t r) {
        Entry* to = buckets_ + size_t(r) * capacity_ + written_[r];
#if defined(__SSE2__)
        const auto* src = reinterpret_cast<const __m128i*>(lines_[r].entry);
        auto* dst = reinterpret_cast<__m128i*>(to);
        for (int q = 0; q < 4; ++q) _mm_stream_si128(dst + q, _mm_load_si128(src + q));
#else
        std::memcpy(to, lines_[r].entry, sizeof(Line));
#endif
        return written_[r] += kLineEntries;
    }

    uint32_t regions_ = 0;
    uint32_t capacity_ = 0;        // entries a bucket holds, a multiple of kLineEntries
    Line* lines_ = nullptr;        // per region, the line being filled (stays in cache)
    uint32_t* cursor_ = nullptr;   // per region, its line's next free entry as a byte offset from lines_
    uint32_t* written_ = nullptr;  // per region, the entries in its bucket
    Entry* buckets_ = nullptr;     // region r's full lines, capacity_ entries from r * capacity_
};

}  // namespace sketch::cbf
