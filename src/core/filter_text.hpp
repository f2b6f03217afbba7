// The text form of the filter types (`bloom`, `cbf`): "b64:" and the byte
// form in base64 (base64.hpp), a third smaller than the hex form of 0.1.0
// ("\x" and two hex digits a byte, hex.hpp), which input still reads, so
// dumps and copies made by 0.1.0 load. Output is always base64.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sketch::filter_text {

constexpr char kPrefix[] = "b64:";
constexpr size_t kPrefixBytes = sizeof kPrefix - 1;

// Characters of the text form of n bytes, without a terminating NUL.
inline size_t text_bytes(size_t n) { return kPrefixBytes + (n + 2) / 3 * 4; }

// The text form of the bytes a[0..na) followed by b[0..nb) (a value's header
// and its array, without copying them together), NUL included: text_bytes(na
// + nb) + 1 chars.
void write_text(const uint8_t* a, size_t na, const uint8_t* b, size_t nb, char* out);

// The bytes a text form (either) decodes to; throws invalid_text naming
// `type` when it has neither prefix or a malformed length.
size_t decoded_bytes(const char* text, size_t text_len, const char* type);

// Decodes a text form (either) into out (decoded_bytes of it); throws
// invalid_text naming `type` and what is not a digit.
void read_text(const char* text, size_t text_len, uint8_t* out, const char* type);

}  // namespace sketch::filter_text
