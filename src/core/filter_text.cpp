// The text form of the filter types: base64 out, base64 or hex in.
#include "filter_text.hpp"

#include <algorithm>
#include <cstring>

#include "base64.hpp"
#include "error.hpp"
#include "hex.hpp"

namespace sketch::filter_text {

namespace {

bool is_base64(const char* text, size_t len) {
    return len >= kPrefixBytes && std::memcmp(text, kPrefix, kPrefixBytes) == 0;
}

bool is_hex(const char* text, size_t len) { return len >= 2 && text[0] == '\\' && text[1] == 'x'; }

}  // namespace

void write_text(const uint8_t* a, size_t na, const uint8_t* b, size_t nb, char* out) {
    std::memcpy(out, kPrefix, kPrefixBytes);
    char* digits = out + kPrefixBytes;
    // Whole groups of a, then a group that joins a's last bytes to b's first
    // ones, then the rest of b.
    const size_t a_whole = na / 3 * 3;
    base64::write_digits(a, a_whole, digits);
    digits += a_whole / 3 * 4;
    uint8_t joint[3];
    size_t in_joint = na - a_whole;
    if (in_joint != 0) std::memcpy(joint, a + a_whole, in_joint);  // a may be null when na is 0
    const size_t from_b = in_joint == 0 ? 0 : std::min(3 - in_joint, nb);
    if (from_b != 0) std::memcpy(joint + in_joint, b, from_b);
    in_joint += from_b;
    base64::write_digits(joint, in_joint, digits);
    digits += base64::digits_for(in_joint);
    if (nb > from_b) {
        base64::write_digits(b + from_b, nb - from_b, digits);
        digits += base64::digits_for(nb - from_b);
    }
    *digits = '\0';
}

size_t decoded_bytes(const char* text, size_t text_len, const char* type) {
    if (is_base64(text, text_len)) return base64::decoded_bytes(text + kPrefixBytes, text_len - kPrefixBytes, type);
    if (is_hex(text, text_len)) return hex::decoded_bytes(text, text_len, type);
    fail(Errc::invalid_text,
         "invalid input syntax for type %s: expected \"%s\" followed by base64, or \"\\x\" followed by hex digits", type,
         kPrefix);
}

void read_text(const char* text, size_t text_len, uint8_t* out, const char* type) {
    if (is_base64(text, text_len)) return base64::read_digits(text + kPrefixBytes, text_len - kPrefixBytes, out, type);
    hex::read_text(text, text_len, out, type);
}

}  // namespace sketch::filter_text
