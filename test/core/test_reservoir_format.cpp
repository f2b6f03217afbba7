// Unit tests of the reservoir envelope decoders (src/core/reservoir_format).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "error.hpp"
#include "reservoir_format.hpp"

using namespace sketch::reservoir;
using sketch::Errc;

namespace {

// Builds binary forms field by field, in network byte order.
struct Bytes {
    std::vector<uint8_t> b;
    Bytes& u8(uint8_t v) { b.push_back(v); return *this; }
    Bytes& be(uint64_t v, int n) {
        for (int i = n - 1; i >= 0; --i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
        return *this;
    }
    Bytes& i32(int32_t v) { return be(static_cast<uint32_t>(v), 4); }
    Bytes& i64(int64_t v) { return be(static_cast<uint64_t>(v), 8); }
    Bytes& f64(double v) {
        uint64_t bits;
        std::memcpy(&bits, &v, 8);
        return be(bits, 8);
    }
    Bytes& str(const char* s) {
        b.insert(b.end(), s, s + std::strlen(s) + 1);
        return *this;
    }
    Bytes& raw(const std::string& s) {
        b.insert(b.end(), s.begin(), s.end());
        return *this;
    }
    Bytes& header(int32_t k, int64_t seen, int32_t count, bool weighted = false, const char* type = "bigint") {
        return u8(1).u8(weighted ? 1 : 0).i32(k).i64(seen).str(type).i32(count);
    }
};

BinaryHeader read(const Bytes& x) { return read_binary(x.b.data(), x.b.size()); }

// The decoder's complaint about x, or "" when it accepts it.
std::string refusal(const Bytes& x) {
    try {
        read(x);
    } catch (const sketch::Error& e) {
        EXPECT_EQ(e.code(), Errc::invalid_binary);
        return e.what();
    }
    return "";
}

}  // namespace

TEST(ReservoirFormat, ReadsAValidUniformValue) {
    Bytes x;
    x.header(3, 2, 2, false, "app.mood").i32(2).raw("ok").i32(0);
    const BinaryHeader h = read(x);
    EXPECT_FALSE(h.weighted);
    EXPECT_EQ(h.k, 3);
    EXPECT_EQ(h.seen, 2);
    EXPECT_EQ(h.count, 2);
    EXPECT_STREQ(h.type_name, "app.mood");
    size_t pos = h.items_offset;
    BinaryItem a = next_binary_item(x.b.data(), pos, false);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(x.b.data() + a.offset), a.length), "ok");
    BinaryItem b = next_binary_item(x.b.data(), pos, false);
    EXPECT_EQ(b.length, 0u);
    EXPECT_EQ(pos, x.b.size());
}

TEST(ReservoirFormat, ReadsAValidWeightedValueWithItsKeys) {
    Bytes x;
    const double inf = std::numeric_limits<double>::infinity();
    x.header(2, 5, 2, true).f64(-0.25).i32(1).raw("a").f64(-inf).i32(1).raw("b");
    const BinaryHeader h = read(x);
    EXPECT_TRUE(h.weighted);
    size_t pos = h.items_offset;
    EXPECT_EQ(next_binary_item(x.b.data(), pos, true).key, -0.25);
    EXPECT_EQ(next_binary_item(x.b.data(), pos, true).key, -inf);
    EXPECT_EQ(pos, x.b.size());
}

TEST(ReservoirFormat, RefusesEveryTruncation) {
    Bytes full;
    full.header(2, 5, 2, true).f64(-0.5).i32(3).raw("abc").f64(-1).i32(2).raw("de");
    ASSERT_EQ(refusal(full), "");
    for (size_t n = 0; n < full.b.size(); ++n) {
        Bytes cut;
        cut.b.assign(full.b.begin(), full.b.begin() + n);
        EXPECT_NE(refusal(cut), "") << "accepted the first " << n << " bytes";
    }
}

TEST(ReservoirFormat, RefusesBadHeaders) {
    EXPECT_NE(refusal(Bytes().u8(2).u8(0).i32(3).i64(0).str("int").i32(0)).find("version"), std::string::npos);
    EXPECT_NE(refusal(Bytes().u8(1).u8(2).i32(3).i64(0).str("int").i32(0)).find("flags"), std::string::npos);
    EXPECT_NE(refusal(Bytes().header(0, 0, 0)).find("k must be"), std::string::npos);
    EXPECT_NE(refusal(Bytes().header(10000001, 0, 0)).find("k must be"), std::string::npos);
    EXPECT_NE(refusal(Bytes().header(3, -1, 0)).find("seen"), std::string::npos);
    EXPECT_NE(refusal(Bytes().header(3, 9, 2)).find("min(seen, k)"), std::string::npos);
    // the type name's NUL missing, or the name empty
    EXPECT_NE(refusal(Bytes().u8(1).u8(0).i32(3).i64(0).raw("bigint")).find("NUL"), std::string::npos);
    EXPECT_NE(refusal(Bytes().u8(1).u8(0).i32(3).i64(0).str("").i32(0)).find("empty"), std::string::npos);
}

TEST(ReservoirFormat, RefusesBytesLeftOverOrMissing) {
    EXPECT_NE(refusal(Bytes().header(3, 1, 1).i32(1).raw("ab")).find("Trailing"), std::string::npos);
    EXPECT_NE(refusal(Bytes().header(3, 1, 1).i32(3).raw("ab")).find("out of range"), std::string::npos);
    EXPECT_NE(refusal(Bytes().header(3, 1, 1).i32(-1)).find("out of range"), std::string::npos);
}

TEST(ReservoirFormat, RefusesBadKeys) {
    EXPECT_NE(refusal(Bytes().header(3, 1, 1, true).f64(0.5).i32(0)).find("Keys"), std::string::npos);
    EXPECT_NE(refusal(Bytes().header(3, 1, 1, true).f64(std::nan("")).i32(0)).find("Keys"), std::string::npos);
    EXPECT_EQ(refusal(Bytes().header(3, 1, 1, true).f64(0.0).i32(0)), "");
}

// Ten million items declared in a few bytes: refused by the count against
// the input's length, before any item is walked (let alone allocated for).
TEST(ReservoirFormat, RefusesACountTheBytesCannotHold) {
    for (bool weighted : {false, true}) {
        Bytes x;
        x.header(10000000, 10000000, 10000000, weighted, "int").raw(std::string(8, '\xaa'));
        const std::string why = refusal(x);
        EXPECT_NE(why.find("10000000 items need at least"), std::string::npos) << why;
    }
}

TEST(ReservoirFormat, EnvelopeChecksTakeWideFields) {
    // A version or k that only truncation into 32 bits would bring into range.
    EXPECT_THROW(check_envelope(4294967297LL, 0, 3, 0, 0, Errc::invalid_text), sketch::Error);
    EXPECT_THROW(check_envelope(1, 0, 4294967299LL, 0, 0, Errc::invalid_text), sketch::Error);
    EXPECT_THROW(check_envelope(1, 4294967296LL, 3, 0, 0, Errc::invalid_text), sketch::Error);
    EXPECT_NO_THROW(check_envelope(1, 1, 3, 2, 2, Errc::invalid_text));
    try {
        check_envelope(1, 0, 3, 9, 1, Errc::invalid_text);
        FAIL();
    } catch (const sketch::Error& e) {
        EXPECT_EQ(e.code(), Errc::invalid_text);
    }
}
