// The byte form of a counting Bloom filter value: the payload of the SQL type
// `cbf`, its binary send/recv form, its bytea cast, and its text form
// (the bytes in base64, src/core/filter_text.hpp).
// Fixed-width little-endian fields, then the packed counters:
//   0  u8  format version: 1 without an item class, 2 with one
//   1  u8  k, hashes per item (1..32)
//   2  u8  hash scheme, the layout (1 = XXH3-128, double hashing: classic;
//          2 = XXH3-128 within a line of 128 counters: block)
//   3  u8  flags (0; a reader refuses bits it does not know)
//   4  u8  item class code (item_class.hpp; version 1: 0)
//   5  3   reserved, 0
//   8  u64 m, counters (classic: a power of two, >= 64; block: a multiple of 128)
//  16  u64 capacity
//  24  f64 fpr (IEEE-754 bits)
//  32  u64 hash seed
//  40  u32 item class type (version 1: 0)
//  44  m/2 bytes of counters (counter i in byte i >> 1, low nibble for even i)
#pragma once

#include <cstddef>
#include <cstdint>

#include "cbf/cbf.hpp"
#include "error.hpp"
#include "item_class.hpp"

namespace sketch::cbf {

constexpr size_t kHeaderBytes = 44;
// A value without an item class is written as version 1, byte for byte what
// builds before classes wrote; one with a class as version 2.
constexpr uint8_t kFormatVersion = 2;

inline size_t value_bytes(const Geometry& g) { return kHeaderBytes + g.counter_bytes(); }

// Writes the header for g and items of class item.
void write_header(uint8_t* out, const Geometry& g, ItemClass item = {});

struct View {
    Geometry g;
    uint8_t* counters;  // inside the value
    ItemClass item;
};

// Parses and validates a value of len bytes: version, geometry, item class,
// flags and reserved bytes, and a size that matches m exactly. Failures throw `code`
// with a message saying what is wrong.
View read_value(uint8_t* data, size_t len, uint64_t max_counters, Errc code);


}  // namespace sketch::cbf
