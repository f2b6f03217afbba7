// The binary form of a bloom value, shared by the varlena, send/recv, bytea
// casts and text I/O (in base64, filter_text.hpp). All fields little endian:
//
//   offset size field
//        0    1 format version: 1 without an item class, 2 with one, 3 with
//                the capacity and fpr it was sized for (item class or not)
//        1    1 kind: 0 block, 1 multiblock, 2 fast_multiblock32, 3 fast_multiblock64, 4 cbf
//        2    1 block type: 0 uint8, 1 uint16, 2 uint32, 3 uint64, 4 uint64[2], 5 uint64[4], 6 uint64[8]
//        3    1 K (1..32)
//        4    1 K' (1..32; cbf: 1)
//        5    1 item class code (item_class.hpp; version 1: 0)
//        6    2 stride in bytes (0 = natural)
//        8    4 item class type (version 1: 0)
//       12    8 capacity in bits (a multiple of 8, consistent with the layout)
//       20    8 hash seed
//       28      versions 1 and 2: the bit array, capacity / 8 bytes
//   version 3:
//       28    8 n, the items it was sized for (at least 1)
//       36    8 fpr it was sized for (a double in (0, 1))
//       44      the bit array, capacity / 8 bytes
//
// In memory (the varlena) the 4-byte length word precedes it, so the bit
// array starts 8-byte aligned at offset 32 (versions 1, 2) or 48 (version 3),
// and kTailPad zero bytes follow.
#pragma once

#include <cstddef>
#include <cstdint>

#include "bloom/bloom.hpp"
#include "item_class.hpp"

namespace sketch {
namespace bloom {

constexpr size_t kHeaderBytes = 28;       // versions 1 and 2
constexpr size_t kSizedHeaderBytes = 44;  // version 3
// A value without an item class nor sizing is written as version 1, byte
// for byte what builds before classes wrote; one with a class only as
// version 2, byte for byte what builds before sizing wrote; one with a
// sizing as version 3.
constexpr uint8_t kFormatVersion = 3;

// The capacity and fpr a value was sized for, when it records them (n = 0:
// it does not, as a value of bloom_empty_bits or of an older build).
struct Sizing {
    uint64_t n = 0;
    double fpr = 0;
    bool known() const { return n != 0; }
};

struct Header {
    Geometry geometry;
    uint64_t seed = 0;
    ItemClass item;
    Sizing sizing;
};

inline size_t header_bytes(const Sizing& s) { return s.known() ? kSizedHeaderBytes : kHeaderBytes; }
// The header length a written header (at least its version byte) has.
inline size_t header_bytes_of(const uint8_t* header) { return header[0] == 3 ? kSizedHeaderBytes : kHeaderBytes; }

void write_header(uint8_t* out, const Geometry& g, uint64_t seed, ItemClass item = {}, const Sizing& sizing = {});
// Decodes and validates the header fields (not the length that follows);
// throws `code` with a message saying what is wrong.
Header read_header(const uint8_t* in, size_t len, Errc code);
// A complete external form: a valid header and exactly
// capacity / 8 bytes of bit array after it.
Header read_external(const uint8_t* in, size_t len, Errc code);
inline size_t external_size(const Geometry& g, const Sizing& s = {}) { return header_bytes(s) + size_t(g.bytes); }

}  // namespace bloom
}  // namespace sketch
