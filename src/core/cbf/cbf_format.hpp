// The byte form of a counting Bloom filter value: the payload of the SQL type
// `cbf`, its binary send/recv form, its bytea cast, and its text form
// (the bytes in hex, src/core/hex.hpp).
// Fixed-width little-endian fields, then the packed counters:
//   0  u8  format version (1)
//   1  u8  k, hashes per item (1..32)
//   2  u8  hash scheme (1 = XXH3-128, double hashing)
//   3  u8  flags (0; a reader refuses bits it does not know)
//   4  u32 reserved, 0
//   8  u64 m, counters (a power of two, >= 64)
//  16  u64 capacity
//  24  f64 fpr (IEEE-754 bits)
//  32  u64 hash seed
//  40  u32 reserved, 0
//  44  m/2 bytes of counters (counter i in byte i >> 1, low nibble for even i)
#pragma once

#include <cstddef>
#include <cstdint>

#include "cbf/cbf.hpp"
#include "error.hpp"

namespace sketch::cbf {

constexpr size_t kHeaderBytes = 44;
constexpr uint8_t kFormatVersion = 1;

inline size_t value_bytes(const Geometry& g) { return kHeaderBytes + g.counter_bytes(); }

// Writes the header for g.
void write_header(uint8_t* out, const Geometry& g);

struct View {
    Geometry g;
    uint8_t* counters;  // inside the value
};

// Parses and validates a value of len bytes: version, geometry, flags and
// reserved bytes, and a size that matches m exactly. Failures throw `code`
// with a message saying what is wrong.
View read_value(uint8_t* data, size_t len, uint64_t max_counters, Errc code);


}  // namespace sketch::cbf
