// The base64 digits on their own (base64.hpp), whose decoder reads groups
// through tables and checks for bad digits once at the end: decoding agrees
// with a digit-at-a-time reading (the same bytes, refused exactly when it
// refuses), and any bytes print and read back unchanged.
#include <algorithm>
#include <string>

#include "base64.hpp"
#include "fuzz_support.hpp"

namespace b64 = sketch::base64;

namespace {

int digit(uint8_t c) {
    const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const size_t at = alphabet.find(char(c));
    return c != 0 && at != std::string::npos ? int(at) : -1;
}

// The reference decoder, one digit at a time; false where it refuses (a
// length not a multiple of 4, a bad digit, padding other than one or two
// '=' at the end, or bits set past the last byte).
bool reference_decode(const uint8_t* text, size_t size, std::vector<uint8_t>* out) {
    if (size % 4 != 0) return false;
    size_t pad = 0;
    while (pad < 2 && pad < size && text[size - 1 - pad] == '=') ++pad;
    uint32_t bits = 0;
    unsigned held = 0;
    for (size_t i = 0; i < size - pad; ++i) {
        const int d = digit(text[i]);
        if (d < 0) return false;
        bits = bits << 6 | uint32_t(d);
        held += 6;
        if (held >= 8) {
            held -= 8;
            out->push_back(uint8_t(bits >> held));
            bits &= (1u << held) - 1;
        }
    }
    return bits == 0;  // what is left over must be zero
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::vector<uint8_t> expected;
    const bool valid = reference_decode(data, size, &expected);
    const char* text = reinterpret_cast<const char*>(data);
    try {
        std::vector<uint8_t> bytes(b64::decoded_bytes(text, size, "bytes"));
        b64::read_digits(text, size, bytes.data(), "bytes");
        fuzz::require(valid && bytes == expected, "the decoder reads what a digit-at-a-time reading does");
    } catch (const sketch::Error&) {
        fuzz::require(!valid, "the decoder refuses only what a digit-at-a-time reading does");
    }

    std::vector<char> digits(b64::digits_for(size));
    b64::write_digits(data, size, digits.data());
    std::vector<uint8_t> back(b64::decoded_bytes(digits.data(), digits.size(), "bytes"));
    fuzz::require(back.size() == size, "bytes and their digits agree in length");
    b64::read_digits(digits.data(), digits.size(), back.data(), "bytes");
    fuzz::require(std::equal(back.begin(), back.end(), data), "bytes print and read back unchanged");
    return 0;
}
