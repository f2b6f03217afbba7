// The stored geometry of a shared counting Bloom filter, in its file header
// (shared/shared_file.hpp), in host byte order as the rest of that header:
//
//   offset size field
//        0    4 k
//        4    1 scheme: the layout (cbf.hpp: 1 classic, 2 block)
//        5    3 (padding)
//        8    8 m (counters)
//       16    8 capacity
//       24    8 fpr
//       32    8 hash seed
//       40    4 expansion (shared/scaling.hpp; 0: fixed size)
//       44    4 (padding)
//
// Files of 0.1.0 end the geometry at the seed (40 bytes): they read as
// fixed-size objects (expansion 0).
//
// The payload is the counters, m / 2 bytes.
#pragma once

#include <cstddef>
#include <cstdint>

#include <vector>

#include "cbf/cbf.hpp"
#include "cbf/cbf_layout.hpp"
#include "shared/scaling.hpp"

namespace sketch::shared_cbf {

struct StoredGeometry {
    uint32_t k;
    uint8_t scheme;
    uint8_t pad[3];
    uint64_t m;
    uint64_t capacity;
    double fpr;
    uint64_t seed;
    uint32_t expansion;
    uint32_t pad2;
};
static_assert(sizeof(StoredGeometry) == 48, "the stored geometry of existing files");
// The stored geometry of 0.1.0 files, without the expansion.
constexpr uint32_t kStoredBytesWithoutExpansion = 40;

StoredGeometry to_stored(const cbf::Geometry& g, uint32_t expansion);
// The geometry in a blob of either length, unchecked (the mapping's
// validated copy, or one validate accepted).
cbf::Geometry from_blob(const uint8_t* blob);
// Its series of sub-filters (capacity, fpr and expansion; 0 in 0.1.0 files).
// The stored geometry is the first sub-filter's: a scaling object's holds
// the rate of that sub-filter (shared::subfilter_fpr), the series the rate
// asked for.
shared::Series series_of(const uint8_t* blob, uint32_t len);
// The rate the first sub-filter of a series is sized for.
inline double first_fpr(const shared::Series& s) { return shared::subfilter_fpr(s, 0); }

// The kind's shared::GeometryValidator: the length, the geometry
// (cbf::check_geometry against cbf::kMaxCounters) and the payload's size;
// throws corrupted naming the object `label`.
void validate(const char* label, const uint8_t* blob, uint32_t len, uint64_t payload_bytes);

// A sub-filter of a scaling object (shared/scaling.hpp): its geometry, and
// where its counters start in the payload.
struct Subfilter {
    cbf::Geometry g;
    uint64_t offset = 0;
};
// The first `count` sub-filters of an object whose first sub-filter is
// `first`: sub-filter i is geometry_for its capacity and rate in series s,
// with first's seed (classic: its k follows its rate; block: first's k, as
// many lines as its rate needs). Throws program_limit when a
// sub-filter would pass cbf::kMaxCounters.
std::vector<Subfilter> subfilters(const cbf::Geometry& first, const shared::Series& s, uint32_t count);
// The payload that holds them: the last one's offset and counters.
uint64_t payload_bytes(const std::vector<Subfilter>& subs);
// The kind's shared::GrownPayload: the payload of the first `count`
// sub-filters of a stored geometry, 0 for a fixed-size object.
uint64_t grown_payload(const uint8_t* blob, uint32_t len, uint32_t count);

// What the shared_objects view shows of a geometry.
struct Description {
    uint64_t capacity = 0;
    double fpr = 0;
    uint32_t expansion = 0;
    uint64_t m = 0;  // counters
    uint32_t k = 0;  // probes per item
    cbf::Layout layout;
};
// False (out untouched) when the blob has the wrong length. Never throws.
bool describe(const uint8_t* blob, uint32_t len, Description* out) noexcept;

}  // namespace sketch::shared_cbf
