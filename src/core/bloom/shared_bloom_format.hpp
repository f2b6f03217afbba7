// The stored geometry of a shared Bloom filter, in its file header
// (shared/shared_file.hpp): the value format's 28-byte header (layout, bits,
// seed; bloom_format.hpp), then the n and fpr the filter was sized for, in
// host byte order as the rest of the file header:
//
//   offset size field
//        0   28 bloom value header
//       28    4 (padding)
//       32    8 n (capacity the filter was sized for)
//       40    8 fpr
//       48    4 expansion (shared/scaling.hpp; 0: fixed size)
//       52    4 (padding)
//
// Files of 0.1.0 end the geometry at fpr (48 bytes): they read as fixed-size
// objects (expansion 0).
//
// The payload is the bit array rounded up to 8 bytes, then kTailPad zero
// bytes (payload_bytes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bloom/bloom.hpp"
#include "bloom/bloom_format.hpp"
#include "shared/scaling.hpp"

namespace sketch::shared_bloom {

struct StoredGeometry {
    uint8_t header[bloom::kHeaderBytes];
    uint64_t n;
    double fpr;
    uint32_t expansion;
    uint32_t pad;
};
static_assert(sizeof(StoredGeometry) == 56, "the stored geometry of existing files");
// The stored geometry of 0.1.0 files, without the expansion.
constexpr uint32_t kStoredBytesWithoutExpansion = 48;

// A parsed stored geometry.
struct Geometry {
    bloom::Geometry g;
    uint64_t seed = 0;
    uint64_t n = 0;  // 0: not known (an object made from a value)
    double fpr = 0;
    uint32_t expansion = 0;

    shared::Series series() const { return shared::Series{n, fpr, expansion}; }
};

// The payload (bit array, 8-byte aligned length, and tail pad) of g.
uint64_t payload_bytes(const bloom::Geometry& g);

StoredGeometry to_stored(const bloom::Geometry& g, uint64_t seed, uint64_t n, double fpr, uint32_t expansion);

// Decodes and validates a stored geometry; throws corrupted naming the
// object `label` (wrong length, or a bad value header).
Geometry parse(const uint8_t* blob, uint32_t len, const char* label);

// The kind's shared::GeometryValidator: parse, and the payload matches.
void validate(const char* label, const uint8_t* blob, uint32_t len, uint64_t payload_bytes);

// A sub-filter of a scaling object (shared/scaling.hpp): its geometry, and
// where its bit array starts in the payload.
struct Subfilter {
    bloom::Geometry g;
    uint64_t offset = 0;
};
// The first `count` sub-filters of an object whose first sub-filter is
// `first`: sub-filter i has first's layout (one kernel serves every lookup,
// at a bit or so more per item than the layout's best K' at the tighter
// rates), sized by capacity_for for its capacity and rate in series s.
// Throws program_limit when a sub-filter would pass the largest bit array.
std::vector<Subfilter> subfilters(const bloom::Geometry& first, const shared::Series& s, uint32_t count);
// The payload that holds them: the last one's offset and payload_bytes.
uint64_t payload_bytes(const std::vector<Subfilter>& subs);
// Whether an object of geometry p grows: a scaling one of known capacity
// (one made from a value does not know its n).
inline bool grows(const Geometry& p) { return p.expansion != 0 && p.n != 0; }
// The kind's shared::GrownPayload: the payload of the first `count`
// sub-filters of a stored geometry, 0 when it does not grow.
uint64_t grown_payload(const uint8_t* blob, uint32_t len, uint32_t count);

// What the shared_objects view shows of a geometry.
struct Description {
    uint64_t capacity = 0;  // n
    double fpr = 0;
    uint32_t expansion = 0;
    std::string layout;     // format_layout, "?" if that fails
    uint64_t m = 0;         // bits
    uint32_t k = 0;         // bits set per item (K * K')
};
// False (out untouched) when the blob does not parse. Never throws.
bool describe(const uint8_t* blob, uint32_t len, Description* out) noexcept;

}  // namespace sketch::shared_bloom
