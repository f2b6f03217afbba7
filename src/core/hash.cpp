#include "hash.hpp"

#include <cstring>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace sketch {

Hash128 hash_bytes(const void* data, size_t len, uint64_t seed) {
    XXH128_hash_t h = XXH3_128bits_withSeed(data, len, seed);
    return Hash128{h.low64, h.high64};
}

// One 8-byte store (byte-swapped on a big-endian host): hashing bytes written
// one at a time would stall the 8-byte load that XXH3 does right after them
// (no store forwarding from narrower stores), a third of the time of a short hash.
// hash_bytes for exactly 8 bytes: XXH3 inlined with the length known, so its
// dispatch on the length folds away (the integer and float kinds, per row).
static Hash128 hash_8_bytes(const uint8_t* bytes, uint64_t seed) {
    XXH128_hash_t h = XXH3_128bits_withSeed(bytes, 8, seed);
    return Hash128{h.low64, h.high64};
}

static void store_le64(uint8_t* out, uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    std::memcpy(out, &v, sizeof v);
}

Hash128 hash_int(int64_t value, uint64_t seed) {
    uint8_t bytes[8];
    store_le64(bytes, static_cast<uint64_t>(value));
    return hash_8_bytes(bytes, seed);
}

Hash128 hash_float(double value, uint64_t seed) {
    uint64_t bits;
    if (value != value) {
        bits = 0x7ff8000000000000ULL;  // the one quiet NaN
    } else {
        if (value == 0.0) value = 0.0;  // folds -0 onto +0
        std::memcpy(&bits, &value, sizeof bits);
    }
    uint8_t bytes[8];
    store_le64(bytes, bits);
    return hash_8_bytes(bytes, seed);
}

Hash128 hash_bool(bool value, uint64_t seed) {
    const uint8_t byte = value ? 1 : 0;
    return hash_bytes(&byte, 1, seed);
}

std::array<uint8_t, 16> canonical_bytes(const Hash128& h) {
    std::array<uint8_t, 16> out{};
    for (int i = 0; i < 8; ++i) {
        out[i] = static_cast<uint8_t>(h.hi >> (56 - 8 * i));
        out[8 + i] = static_cast<uint8_t>(h.lo >> (56 - 8 * i));
    }
    return out;
}

}  // namespace sketch
