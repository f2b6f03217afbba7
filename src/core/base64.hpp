// Base64 (RFC 4648, the standard alphabet, '=' padding): the digits of the
// compact text form of the filter types (filter_text.hpp). Strict on input:
// no whitespace, padding only at the end, and the unused bits of a padded
// group zero, so that every byte string has exactly one text and a value
// prints as the text it was read from.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sketch::base64 {

// Characters of n bytes in base64, padding included.
inline size_t digits_for(size_t n) { return (n + 2) / 3 * 4; }

// The digits of data[0..n) into out (digits_for(n) chars, no NUL).
void write_digits(const uint8_t* data, size_t n, char* out);

// The bytes `len` digits decode to; throws invalid_text naming `type` when
// len is not a multiple of 4 or the padding is misplaced.
size_t decoded_bytes(const char* digits, size_t len, const char* type);

// Decodes the digits into out (decoded_bytes of them); throws invalid_text
// naming `type` and the first group that is not base64.
void read_digits(const char* digits, size_t len, uint8_t* out, const char* type);

}  // namespace sketch::base64
