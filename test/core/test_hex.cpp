// The hex text form shared by `bloom` and `cbf`: the vector paths (16 bytes
// at a time) against a byte-at-a-time reference, at every length around the
// vector width, and every kind of bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "error.hpp"
#include "hex.hpp"

using namespace sketch;

namespace {

std::string reference_text(const std::vector<uint8_t>& bytes) {
    static const char digits[] = "0123456789abcdef";
    std::string s = "\\x";
    for (uint8_t b : bytes) {
        s += digits[b >> 4];
        s += digits[b & 15];
    }
    return s;
}

Errc read_error(const std::string& text) {
    try {
        std::vector<uint8_t> out(text.size());
        hex::read_text(text.data(), text.size(), out.data(), "bloom");
    } catch (const Error& e) {
        return e.code();
    }
    return Errc::internal;
}

}  // namespace

TEST(Hex, KnownBytes) {
    const uint8_t bytes[] = {0x01, 0xab, 0xff, 0x00};
    char text[16];
    hex::write_text(bytes, 4, text);
    EXPECT_STREQ(text, "\\x01abff00");
    EXPECT_EQ(hex::text_bytes(4), 10u);
    uint8_t back[4];
    EXPECT_EQ(hex::decoded_bytes(text, std::strlen(text), "cbf"), 4u);
    hex::read_text("\\x01ABFF00", 10, back, "cbf");
    EXPECT_EQ(std::memcmp(back, bytes, 4), 0);
}

TEST(Hex, EveryLengthRoundTripsAndMatchesTheReference) {
    std::mt19937_64 rng(7);
    for (size_t n = 0; n <= 100; ++n) {
        std::vector<uint8_t> bytes(n);
        for (auto& b : bytes) b = uint8_t(rng());
        std::string text(hex::text_bytes(n) + 1, '?');
        hex::write_text(bytes.data(), n, text.data());
        ASSERT_EQ(text.back(), '\0') << n;
        text.pop_back();
        ASSERT_EQ(text, reference_text(bytes)) << n;
        // upper case on input is the same bytes
        std::string upper = text;
        for (size_t i = 2; i < upper.size(); ++i) upper[i] = char(toupper(upper[i]));
        for (const std::string& t : {text, upper}) {
            std::vector<uint8_t> back(n + 1, 0x5a);
            hex::read_text(t.data(), t.size(), back.data(), "cbf");
            ASSERT_TRUE(std::equal(bytes.begin(), bytes.end(), back.begin())) << n;
            ASSERT_EQ(back[n], 0x5a) << "wrote past the end at n = " << n;
        }
    }
}

TEST(Hex, EveryByteValue) {
    std::vector<uint8_t> bytes(256);
    for (int i = 0; i < 256; ++i) bytes[i] = uint8_t(i);
    std::string text(hex::text_bytes(256) + 1, '?');
    hex::write_text(bytes.data(), 256, text.data());
    text.pop_back();
    EXPECT_EQ(text, reference_text(bytes));
}

TEST(Hex, BadInputIsRefusedWhereverItSits) {
    EXPECT_EQ(read_error(""), Errc::invalid_text);
    EXPECT_EQ(read_error("01ab"), Errc::invalid_text);
    EXPECT_EQ(read_error("\\x0"), Errc::invalid_text);
    // One bad character at every position of a text longer than two vector
    // blocks, with each kind of neighbour of the digit ranges.
    const std::string good = reference_text(std::vector<uint8_t>(40, 0x3c));
    for (char c : {'g', 'G', '/', ':', '@', '`', ' ', '\x80', '\xff', 'x'}) {
        for (size_t pos = 2; pos < good.size(); ++pos) {
            std::string t = good;
            t[pos] = c;
            ASSERT_EQ(read_error(t), Errc::invalid_text) << "char " << int(c) << " at " << pos;
        }
    }
    try {
        std::string t = good;
        t[51] = 'z';
        std::vector<uint8_t> out(40);
        hex::read_text(t.data(), t.size(), out.data(), "bloom");
        FAIL() << "accepted";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "invalid input syntax for type bloom: \"3z\" is not a hex byte");
    }
}
