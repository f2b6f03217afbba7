// Arithmetic on a 64-bit word of 16 packed 4-bit counters (two per byte, as
// cbf.hpp stores them). Each mask keeps one bit per counter (bit 4j of the
// word's nibble j), and the saturating add works on byte lanes, so none of
// it depends on the host's byte order as long as both words are read alike.
//
// Internal to the core (cbf.cpp, cbf_block.cpp).
#pragma once

#include <cstdint>

namespace sketch::cbf::words {

constexpr uint64_t kNibbleLow = 0x1111111111111111ULL;  // bit 0 of every counter
constexpr uint64_t kByteLow4 = 0x0F0F0F0F0F0F0F0FULL;
constexpr uint64_t kByteBit0 = 0x0101010101010101ULL;

// Bit 4j set iff counter j of the word is nonzero / is 15.
inline uint64_t nonzero_mask(uint64_t w) { return (w | w >> 1 | w >> 2 | w >> 3) & kNibbleLow; }
inline uint64_t saturated_mask(uint64_t w) { return w & (w >> 1) & (w >> 2) & (w >> 3) & kNibbleLow; }

// Lanes of 8 bits each holding a sum in 0..30: clamp each to 15.
inline uint64_t clamp_lanes(uint64_t s) {
    const uint64_t over = ((s >> 4) & kByteBit0) * 0x0F;  // 0x0F where the sum is 16..30
    return (s | over) & kByteLow4;
}

// Counter by counter, min(15, a + b).
inline uint64_t saturating_add(uint64_t a, uint64_t b) {
    const uint64_t low = clamp_lanes((a & kByteLow4) + (b & kByteLow4));
    const uint64_t high = clamp_lanes(((a >> 4) & kByteLow4) + ((b >> 4) & kByteLow4));
    return low | (high << 4);
}

}  // namespace sketch::cbf::words
