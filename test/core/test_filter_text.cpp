// The text form of the filter types: base64 out (any split of a value into
// header and array prints alike), either form in, and every kind of bad input.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "base64.hpp"
#include "error.hpp"
#include "filter_text.hpp"
#include "hex.hpp"

using namespace sketch;

namespace {

// RFC 4648's encoding, one bit at a time.
std::string reference_base64(const std::vector<uint8_t>& bytes) {
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string s;
    uint32_t bits = 0;
    unsigned held = 0;
    for (uint8_t b : bytes) {
        bits = bits << 8 | b;
        held += 8;
        while (held >= 6) {
            held -= 6;
            s += alphabet[(bits >> held) & 63];
        }
    }
    if (held > 0) s += alphabet[(bits << (6 - held)) & 63];
    while (s.size() % 4 != 0) s += '=';
    return s;
}

std::string text_of(const std::vector<uint8_t>& bytes, size_t split) {
    std::vector<char> out(filter_text::text_bytes(bytes.size()) + 1, '?');
    filter_text::write_text(bytes.data(), split, bytes.data() + split, bytes.size() - split, out.data());
    EXPECT_EQ(out.back(), '\0');
    return std::string(out.data());
}

std::vector<uint8_t> read(const std::string& text) {
    std::vector<uint8_t> out(filter_text::decoded_bytes(text.data(), text.size(), "bloom"));
    filter_text::read_text(text.data(), text.size(), out.data(), "bloom");
    return out;
}

Errc read_error(const std::string& text) {
    try {
        read(text);
    } catch (const Error& e) {
        return e.code();
    }
    return Errc::internal;
}

}  // namespace

TEST(FilterText, PrintsBase64AtEverySplitAndReadsItBack) {
    std::mt19937_64 rng(7);
    for (size_t n = 0; n <= 70; ++n) {
        std::vector<uint8_t> bytes(n);
        for (auto& b : bytes) b = uint8_t(rng());
        const std::string expected = "b64:" + reference_base64(bytes);
        for (size_t split = 0; split <= n; ++split) ASSERT_EQ(text_of(bytes, split), expected) << n << " " << split;
        EXPECT_EQ(expected.size(), filter_text::text_bytes(n));
        EXPECT_EQ(read(expected), bytes);
    }
}

TEST(FilterText, ReadsTheHexFormOf010) {
    EXPECT_EQ(read("\\x00ffA0"), (std::vector<uint8_t>{0x00, 0xff, 0xa0}));
    EXPECT_EQ(read("\\x"), std::vector<uint8_t>{});
    EXPECT_EQ(read("b64:AP+g"), (std::vector<uint8_t>{0x00, 0xff, 0xa0}));
    EXPECT_EQ(read("b64:"), std::vector<uint8_t>{});
}

TEST(FilterText, RefusesBadText) {
    for (const char* bad : {"", "AP+g", "x00", "b64", "B64:AP+g", "b64:AP+", "b64:AP+g=", "b64:AP=g", "b64:A===",
                                   "b64:====", "b64:AP g", "b64:AP-g", "b64:AB==", "b64:AAB=", "b64:AP+g\n", "\\x0",
                                   "\\xzz"})
        EXPECT_EQ(read_error(bad), Errc::invalid_text) << bad;
    // a bad digit past the first groups is named, wherever it is
    std::string long_text = "b64:" + std::string(400, 'A');
    long_text[302] = '*';
    try {
        read(long_text);
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("\"AA*A\""), std::string::npos) << e.what();
    }
}
