// The hex text form on its own (hex.hpp), whose decoder and encoder run 16
// bytes at a time with SSE2: decoding agrees with a byte-at-a-time reading
// (the same bytes, refused exactly when some pair is not a hex byte), and
// any bytes print and read back unchanged.
#include <algorithm>
#include <string>

#include "fuzz_support.hpp"

namespace hex = sketch::hex;

namespace {

int digit(uint8_t c) {
    const std::string digits = "0123456789abcdef";
    const size_t at = digits.find(char(std::tolower(c)));
    return at != std::string::npos ? int(at) : -1;
}

// The reference decoder, one pair at a time; false where it refuses.
bool reference_decode(const uint8_t* text, size_t size, std::vector<uint8_t>* out) {
    if (size < 2 || text[0] != '\\' || text[1] != 'x' || size % 2 != 0) return false;
    for (size_t i = 2; i < size; i += 2) {
        const int high = digit(text[i]), low = digit(text[i + 1]);
        if (high < 0 || low < 0) return false;
        out->push_back(uint8_t(high << 4 | low));
    }
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::vector<uint8_t> expected;
    const bool valid = reference_decode(data, size, &expected);
    try {
        const char* text = reinterpret_cast<const char*>(data);
        std::vector<uint8_t> bytes(hex::decoded_bytes(text, size, "bytes"));
        hex::read_text(text, size, bytes.data(), "bytes");
        fuzz::require(valid && bytes == expected, "the decoder reads what a pair-by-pair reading does");
    } catch (const sketch::Error&) {
        fuzz::require(!valid, "the decoder refuses only what a pair-by-pair reading does");
    }

    std::vector<char> text(hex::text_bytes(size) + 1);
    hex::write_text(data, size, text.data());
    fuzz::require(text[text.size() - 1] == '\0', "the text form ends with its NUL");
    std::vector<uint8_t> back(size);
    hex::read_text(text.data(), text.size() - 1, back.data(), "bytes");
    fuzz::require(std::equal(back.begin(), back.end(), data), "bytes print and read back unchanged");
    return 0;
}
