// The in-memory bloom value (varlena), for bloom_sql.cpp and for other
// structures that produce bloom values (cbf_to_bloom):
//
//   [4-byte varlena length][28- or 44-byte header (core/bloom_format.hpp)]
//   [bit array, geometry.bytes, rounded up to 8][kTailPad zero bytes]
//
// The bit array starts at offset 32 (versions 1, 2) or 48 (version 3, with
// a sizing), so it is 8-byte aligned in a palloc'd value.
#pragma once

#include "bloom/bloom.hpp"
#include "bloom/bloom_format.hpp"
#include "pg.hpp"

namespace sketch_pg {

inline size_t bloom_bits_offset(const sketch::bloom::Sizing& s) { return VARHDRSZ + sketch::bloom::header_bytes(s); }
static_assert((VARHDRSZ + sketch::bloom::kHeaderBytes) % 8 == 0 && (VARHDRSZ + sketch::bloom::kSizedHeaderBytes) % 8 == 0,
              "bit array must be 8-byte aligned");
// Where the bit array of a value with a sizing starts, what most values
// have: the offset a fetched copy aligns (fetched_filters.hpp).
constexpr size_t kSizedBloomBitsOffset = VARHDRSZ + sketch::bloom::kSizedHeaderBytes;

inline uint8_t* bloom_header(struct varlena* v) { return reinterpret_cast<uint8_t*>(v) + VARHDRSZ; }
// (after its header, whose version says its length)
inline uint8_t* bloom_bits(struct varlena* v) { return bloom_header(v) + sketch::bloom::header_bytes_of(bloom_header(v)); }
// Header, bit array rounded up to 8 bytes, tail pad: a value's exact size.
inline size_t bloom_plain_size(const sketch::bloom::Geometry& g, const sketch::bloom::Sizing& s) {
    return bloom_bits_offset(s) + ((size_t(g.bytes) + 7) & ~size_t(7)) + sketch::bloom::kTailPad;
}
// A zeroed bloom value of geometry g (palloc'd in CurrentMemoryContext). May
// ereport (out of memory): call it outside guarded() and with no C++ objects
// alive in the frame.
struct varlena* bloom_value_new(const sketch::bloom::Geometry& g, uint64_t seed, sketch::ItemClass item,
                                const sketch::bloom::Sizing& sizing);

}  // namespace sketch_pg
