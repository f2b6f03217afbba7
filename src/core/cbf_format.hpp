// The byte form of a counting Bloom filter value: the payload of the SQL type
// `cbf`, its binary send/recv form, its bytea cast, and (as hex) its text form.
// Fixed-width little-endian fields, then the packed counters:
//   0  u8  format version (1)
//   1  u8  k, hashes per item (1..32)
//   2  u8  hash scheme (1 = XXH3-128, double hashing)
//   3  u8  flags (0 in every stored value; see kFlagBuffered)
//   4  u32 buffered hash count (0 in every stored value)
//   8  u64 m, counters (a power of two, >= 64)
//  16  u64 capacity
//  24  f64 fpr (IEEE-754 bits)
//  32  u64 hash seed
//  40  u32 reserved, 0
//  44  m/2 bytes of counters (counter i in byte i >> 1, low nibble for even i)
// An aggregate's working state may also carry a buffer of item hashes after
// the counters (kFlagBuffered), in the host's own Hash128 layout; such a state
// never leaves the aggregate machinery of one server (parallel workers hand it
// to their leader as is): it is flushed before it is output, sent or finalized.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cbf.hpp"
#include "error.hpp"

namespace sketch::cbf {

constexpr size_t kHeaderBytes = 44;
constexpr uint8_t kFormatVersion = 1;
constexpr uint8_t kFlagBuffered = 1;
constexpr uint32_t kBufferSlots = 256;        // hashes an aggregate state buffers before applying
constexpr size_t kBufferBytes = kBufferSlots * 16;

inline size_t value_bytes(const Geometry& g) { return kHeaderBytes + g.counter_bytes(); }

// Writes the header for g (flags and buffered count as given).
void write_header(uint8_t* out, const Geometry& g, uint8_t flags = 0, uint32_t buffered = 0);

struct View {
    Geometry g;
    uint8_t* counters;   // inside the value
    uint8_t flags;
    uint32_t buffered;   // hashes waiting in the buffer (kFlagBuffered only)
    uint8_t* buffer;     // native Hash128s (8-aligned: the state never leaves this machine)
};

// Parses and validates a value of len bytes: version, geometry, and a size
// that matches m exactly. Failures throw `code` with a message saying what is
// wrong. allow_buffered admits an aggregate's working state.
View read_value(uint8_t* data, size_t len, uint64_t max_counters, Errc code, bool allow_buffered = false);

// The buffered count of a value read before (its header unchanged otherwise).
uint32_t read_buffered(const uint8_t* data);

// Buffered hashes of an aggregate state.
Hash128 buffered_hash(const View& v, uint32_t i);
void set_buffered(View& v, uint32_t count);  // also rewrites the header field
void push_buffered(View& v, const Hash128& h);  // caller checks buffered < kBufferSlots
// Applies every buffered hash with add() and empties the buffer.
void flush_buffered(View& v);

// Hex text form: "\x" then two lowercase hex digits per byte.
size_t hex_text_bytes(size_t value_len);  // without the terminating NUL
void write_hex(const uint8_t* data, size_t len, char* out);  // writes the NUL too
// Decodes "\x..." text of text_len chars into out (capacity hex_decoded_bytes);
// throws invalid_text on a missing prefix, odd length or a non-hex digit.
size_t hex_decoded_bytes(const char* text, size_t text_len);
void read_hex(const char* text, size_t text_len, uint8_t* out);

}  // namespace sketch::cbf
