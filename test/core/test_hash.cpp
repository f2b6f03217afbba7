// The canonical forms and the vectors of docs/hashing.md's table.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "hash.hpp"

namespace {

std::string hex(const sketch::Hash128& h) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    for (uint8_t b : sketch::canonical_bytes(h)) {
        out += digits[b >> 4];
        out += digits[b & 15];
    }
    return out;
}

TEST(Hash, TextVectorsMatchXxhsum) {
    EXPECT_EQ(hex(sketch::hash_bytes("hello", 5)), "b5e9c1ad071b3e7fc779cfaa5e523818");
    EXPECT_EQ(hex(sketch::hash_bytes("", 0)), "99aa06d3014798d86001c324468d497f");
}

TEST(Hash, IntegersHashAsLittleEndianInt64) {
    EXPECT_EQ(hex(sketch::hash_int(42)), "9bab3e2f55e1fe8661c2164e8b895a45");
    const uint8_t le42[8] = {42, 0, 0, 0, 0, 0, 0, 0};
    EXPECT_EQ(sketch::hash_int(42), sketch::hash_bytes(le42, 8));
    const uint8_t le_minus1[8] = {255, 255, 255, 255, 255, 255, 255, 255};
    EXPECT_EQ(sketch::hash_int(-1), sketch::hash_bytes(le_minus1, 8));
}

TEST(Hash, FloatsFoldNegativeZeroAndNaN) {
    EXPECT_EQ(sketch::hash_float(0.0), sketch::hash_float(-0.0));
    EXPECT_EQ(sketch::hash_float(std::nan("")), sketch::hash_float(-std::nan("1")));
    EXPECT_EQ(sketch::hash_float(std::numeric_limits<double>::quiet_NaN()),
              sketch::hash_float(static_cast<double>(std::numeric_limits<float>::quiet_NaN())));
    EXPECT_FALSE(sketch::hash_float(1.0) == sketch::hash_float(-1.0));
    double one = 1.5;
    uint8_t bytes[8];
    std::memcpy(bytes, &one, 8);  // little-endian machine
    EXPECT_EQ(sketch::hash_float(1.5), sketch::hash_bytes(bytes, 8));
    EXPECT_EQ(sketch::hash_float(1.5f), sketch::hash_float(1.5));
}

TEST(Hash, BoolIsOneByte) {
    const uint8_t t = 1, f = 0;
    EXPECT_EQ(sketch::hash_bool(true), sketch::hash_bytes(&t, 1));
    EXPECT_EQ(sketch::hash_bool(false), sketch::hash_bytes(&f, 1));
}

TEST(Hash, SeedChangesTheDigest) {
    EXPECT_FALSE(sketch::hash_bytes("hello", 5, 1) == sketch::hash_bytes("hello", 5, 0));
    EXPECT_EQ(sketch::hash_bytes("hello", 5, 7), sketch::hash_bytes("hello", 5, 7));
}

TEST(Hash, CanonicalBytesAreHighThenLowBigEndian) {
    sketch::Hash128 h{0x0102030405060708ULL, 0x1112131415161718ULL};
    EXPECT_EQ(hex(h), "11121314151617180102030405060708");
}

}  // namespace
