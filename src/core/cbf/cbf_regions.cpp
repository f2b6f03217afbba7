#include "cbf/cbf_regions.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace sketch::cbf {

namespace {

constexpr size_t kRegionBytes = RegionBatch::kRegionCounters / 2;
constexpr size_t kRegionLines = kRegionBytes / 64;

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

inline size_t round_up(size_t v, size_t to) { return (v + to - 1) / to * to; }

// Applies n offsets to a region that is in cache or on its way, and spreads
// over them the prefetches of the next region's lines (null: none), so that
// region arrives while this one is worked on. Prefetched into L2: the region
// being applied keeps L1.
void apply_region(uint8_t* region, const uint16_t* offsets, uint32_t n, const uint8_t* next) {
    constexpr uint32_t kChunk = 8;
    uint32_t i = 0;
    if (next != nullptr) {
        const size_t chunks = n / kChunk;
        // lines per chunk in 1/256ths, rounded up so that all arrive by the last chunk
        const size_t per_chunk = chunks == 0 ? 0 : (kRegionLines * 256 + chunks - 1) / chunks;
        size_t due = 0, line = 0;
        for (; i + kChunk <= n; i += kChunk) {
            for (uint32_t j = 0; j < kChunk; ++j) bump(region, offsets[i + j]);
            due += per_chunk;
            for (const size_t upto = std::min(kRegionLines, due >> 8); line < upto; ++line)
                __builtin_prefetch(next + line * 64, 1, 2);
        }
        for (; line < kRegionLines; ++line) __builtin_prefetch(next + line * 64, 1, 2);
    }
    for (; i < n; ++i) bump(region, offsets[i]);
}

}  // namespace

size_t RegionBatch::memory_bytes(const Geometry& g, size_t items) {
    const size_t regions = g.m >> kRegionShift;
    const size_t capacity = round_up(std::max<size_t>(1, items * g.k / regions), kLineEntries);
    return regions * sizeof(Line) + 2 * round_up(regions * sizeof(uint32_t), 64) + regions * capacity * sizeof(uint16_t);
}

void RegionBatch::init(const Geometry& g, void* memory, size_t items) {
    k_ = g.k;
    regions_ = static_cast<uint32_t>(g.m >> kRegionShift);
    capacity_ = static_cast<uint32_t>(round_up(std::max<size_t>(1, items * g.k / regions_), kLineEntries));
    auto* at = static_cast<uint8_t*>(memory);
    lines_ = reinterpret_cast<Line*>(at);
    at += regions_ * sizeof(Line);
    cursor_ = reinterpret_cast<uint32_t*>(at);
    at += round_up(regions_ * sizeof(uint32_t), 64);
    written_ = reinterpret_cast<uint32_t*>(at);
    at += round_up(regions_ * sizeof(uint32_t), 64);
    buckets_ = reinterpret_cast<uint16_t*>(at);
    for (uint32_t r = 0; r < regions_; ++r) {
        cursor_[r] = r * sizeof(Line);
        written_[r] = 0;
    }
}

// Region r's line is full: it goes to the bucket whole, with streaming
// stores where there are any (the bucket is read again only when the batch
// is applied, so caching it would only push out the lines being filled).
// Returns the entries the bucket now holds.
uint32_t RegionBatch::write_out(uint32_t region) {
    uint16_t* to = buckets_ + size_t(region) * capacity_ + written_[region];
#if defined(__SSE2__)
    const auto* src = reinterpret_cast<const __m128i*>(lines_[region].entry);
    auto* dst = reinterpret_cast<__m128i*>(to);
    for (int q = 0; q < 4; ++q) _mm_stream_si128(dst + q, _mm_load_si128(src + q));
#else
    std::memcpy(to, lines_[region].entry, sizeof(Line));
#endif
    return written_[region] += kLineEntries;
}

void RegionBatch::add(uint8_t* counters, const Hash128* hashes, size_t n) {
    // Locals: the loop's stores into the lines and cursors could otherwise be
    // taken to change the members, which would be reloaded at every probe.
    // A probe costs a load and two stores: its cursor is the byte offset of
    // the next free entry from the start of the lines.
    const uint64_t region_mask = regions_ - 1;
    const uint32_t k = k_;
    uint32_t* const cursor = cursor_;
    uint8_t* const lines = reinterpret_cast<uint8_t*>(lines_);
    for (size_t i = 0; i < n; ++i) {
        uint64_t p = hashes[i].lo;
        const uint64_t step = hashes[i].hi | 1;
        for (uint32_t j = 0; j < k; ++j, p += step) {
            // position p & (m - 1): region from its high bits, offset its low 16
            const uint32_t r = static_cast<uint32_t>((p >> kRegionShift) & region_mask);
            const uint32_t at = cursor[r];
            const uint16_t offset = static_cast<uint16_t>(p);
            std::memcpy(lines + at, &offset, sizeof offset);
            cursor[r] = at + sizeof offset;
            if ((at + sizeof offset) % sizeof(Line) == 0) {
                cursor[r] = at + sizeof offset - sizeof(Line);
                if (write_out(r) == capacity_) apply(counters);
            }
        }
    }
}

void RegionBatch::apply(uint8_t* counters) {
#if defined(__SSE2__)
    _mm_sfence();  // the streamed lines are complete before they are read back
#endif
    auto pending = [this](uint32_t r) { return written_[r] != 0 || cursor_[r] != r * sizeof(Line); };
    uint32_t r = 0;
    while (r < regions_ && !pending(r)) ++r;
    if (r == regions_) return;
    for (size_t line = 0; line < kRegionLines; ++line) __builtin_prefetch(counters + r * kRegionBytes + line * 64, 1, 2);
    while (r < regions_) {
        uint32_t next = r + 1;
        while (next < regions_ && !pending(next)) ++next;
        uint8_t* region = counters + r * kRegionBytes;
        apply_region(region, buckets_ + size_t(r) * capacity_, written_[r],
                     next < regions_ ? counters + next * kRegionBytes : nullptr);
        apply_region(region, lines_[r].entry, (cursor_[r] - r * sizeof(Line)) / sizeof(uint16_t), nullptr);
        written_[r] = 0;
        cursor_[r] = r * sizeof(Line);
        r = next;
    }
}

}  // namespace sketch::cbf
