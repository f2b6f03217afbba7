// The in-memory bloom value (varlena), for bloom_sql.cpp and for other
// structures that produce bloom values (cbf_to_bloom):
//
//   [4-byte varlena length][28-byte header (core/bloom_format.hpp)]
//   [bit array, geometry.bytes, rounded up to 8][kTailPad zero bytes]
//
// The bit array starts at offset 32, so it is 8-byte aligned in a palloc'd
// value.
#pragma once

#include "bloom/bloom.hpp"
#include "bloom/bloom_format.hpp"
#include "pg.hpp"

namespace sketch_pg {

constexpr size_t kBloomBitsOffset = VARHDRSZ + sketch::bloom::kHeaderBytes;
static_assert(kBloomBitsOffset % 8 == 0, "bit array must be 8-byte aligned");

inline uint8_t* bloom_header(struct varlena* v) { return reinterpret_cast<uint8_t*>(v) + VARHDRSZ; }
inline uint8_t* bloom_bits(struct varlena* v) { return reinterpret_cast<uint8_t*>(v) + kBloomBitsOffset; }
// Header, bit array rounded up to 8 bytes, tail pad: a value's exact size.
inline size_t bloom_plain_size(const sketch::bloom::Geometry& g) {
    return kBloomBitsOffset + ((size_t(g.bytes) + 7) & ~size_t(7)) + sketch::bloom::kTailPad;
}
// A zeroed bloom value of geometry g (palloc'd in CurrentMemoryContext). May
// ereport (out of memory): call it outside guarded() and with no C++ objects
// alive in the frame.
struct varlena* bloom_value_new(const sketch::bloom::Geometry& g, uint64_t seed, sketch::ItemClass item = {});

}  // namespace sketch_pg
