// Item hashing shared by every structure: one XXH3-128 digest per item, taken
// over the item's canonical bytes, so equal SQL values hash equally whatever
// their storage width and a client can predict membership with `xxhsum -H2`.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace sketch {

struct Hash128 {
    uint64_t lo;  // XXH3's low64
    uint64_t hi;  // XXH3's high64
    bool operator==(const Hash128& o) const { return lo == o.lo && hi == o.hi; }
};

Hash128 hash_bytes(const void* data, size_t len, uint64_t seed = 0);

// Canonical forms: the byte strings each kind of value is hashed as.
// Integers of every width: the value as a little-endian int64.
Hash128 hash_int(int64_t value, uint64_t seed = 0);
// Floats of every width: as a double, -0 folded to 0 and every NaN to one NaN.
Hash128 hash_float(double value, uint64_t seed = 0);
// Booleans: one byte, 0 or 1.
Hash128 hash_bool(bool value, uint64_t seed = 0);

// XXH3's canonical big-endian form: high 64 bits, then low 64 bits.
std::array<uint8_t, 16> canonical_bytes(const Hash128& h);

}  // namespace sketch
