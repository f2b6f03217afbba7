// The hex text form: "\x" then two lowercase hex digits per byte, as bytea
// writes itself; input takes either case. The filter types (`bloom`, `cbf`)
// printed it up to 0.1.0 and still read it (filter_text.hpp); the benchmark
// of their text forms compares it with base64. Both directions run 16 bytes
// at a time with SSE2 (part of every x86-64).
#pragma once

#include <cstddef>
#include <cstdint>

namespace sketch::hex {

// Characters of the text form of n bytes, without a terminating NUL.
inline size_t text_bytes(size_t n) { return 2 + 2 * n; }

// 2n lowercase digits of data[0..n) into out (no prefix, no NUL).
void write_digits(const uint8_t* data, size_t n, char* out);

// The whole text form, NUL included (text_bytes(n) + 1 chars).
void write_text(const uint8_t* data, size_t n, char* out);

// The bytes text[0..text_len) decodes to; throws invalid_text, naming `type`,
// when the "\x" prefix is missing or the digits are odd in number.
size_t decoded_bytes(const char* text, size_t text_len, const char* type);

// Decodes the text form into out (decoded_bytes of it); throws invalid_text
// naming `type` and the first pair that is not a hex byte.
void read_text(const char* text, size_t text_len, uint8_t* out, const char* type);

}  // namespace sketch::hex
