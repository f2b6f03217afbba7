// Unit tests of the reservoir envelope decoders (src/core/reservoir_format).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "error.hpp"
#include "reservoir/reservoir_format.hpp"

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

// ---- the text form ----

namespace {

const char* kUniform = R"({"version": 1, "type": "bigint", "k": 3, "seen": 9, "weighted": false, "items": ["4", "8", "1"]})";

std::string text_refusal(const std::string& text) {
    try {
        read_text(text.data(), text.size());
    } catch (const sketch::Error& e) {
        EXPECT_EQ(e.code(), Errc::invalid_text);
        return e.what();
    }
    return "";
}

// The decoded contents of a string span, escaped code points as UTF-8.
std::string decode(const char* text, TextSpan span) {
    std::string out;
    TextStringReader reader(text, span);
    StringPiece piece;
    while (reader.next(piece)) {
        if (piece.length > 0) {
            out.append(piece.bytes, piece.length);
            continue;
        }
        const uint32_t c = piece.code_point;
        if (c < 0x80) {
            out += char(c);
        } else if (c < 0x800) {
            out += char(0xC0 | (c >> 6));
            out += char(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
            out += char(0xE0 | (c >> 12));
            out += char(0x80 | ((c >> 6) & 0x3F));
            out += char(0x80 | (c & 0x3F));
        } else {
            out += char(0xF0 | (c >> 18));
            out += char(0x80 | ((c >> 12) & 0x3F));
            out += char(0x80 | ((c >> 6) & 0x3F));
            out += char(0x80 | (c & 0x3F));
        }
    }
    return out;
}

std::vector<std::string> elements(const char* text, size_t at) {
    std::vector<std::string> out;
    TextArrayReader reader(text, at);
    TextSpan span;
    bool quoted;
    while (reader.next(span, quoted)) out.push_back((quoted ? "s:" : "n:") + decode(text, span));
    return out;
}

}  // namespace

TEST(ReservoirTextFormat, ReadsAUniformValue) {
    const TextEnvelope env = read_text(kUniform, std::strlen(kUniform));
    EXPECT_FALSE(env.weighted);
    EXPECT_EQ(env.k, 3);
    EXPECT_EQ(env.seen, 9);
    EXPECT_EQ(env.count, 3);
    EXPECT_EQ(decode(kUniform, env.type_name), "bigint");
    EXPECT_EQ(elements(kUniform, env.items_at), (std::vector<std::string>{"s:4", "s:8", "s:1"}));
}

TEST(ReservoirTextFormat, ReadsAWeightedValueInAnyOrderWithEscapes) {
    const std::string text =
        " {\"keys\" :[-0.5e1 , \"-Infinity\"],\"\\u0069tems\":[\"a\\\"b\\\\\\u00fc\\ud83d\\ude00\", \"\"],"
        "\"weighted\":true,\"seen\":2,\"k\":2,\"type\":\"app.\\\"odd\\\"\",\"version\":1}\n";
    const TextEnvelope env = read_text(text.data(), text.size());
    EXPECT_TRUE(env.weighted);
    EXPECT_EQ(env.count, 2);
    EXPECT_EQ(decode(text.data(), env.type_name), "app.\"odd\"");
    EXPECT_EQ(elements(text.data(), env.items_at),
              (std::vector<std::string>{"s:a\"b\\\xc3\xbc\xf0\x9f\x98\x80", "s:"}));
    EXPECT_EQ(elements(text.data(), env.keys_at), (std::vector<std::string>{"n:-0.5e1", "s:-Infinity"}));
}

TEST(ReservoirTextFormat, RefusesEveryTruncation) {
    const std::string full = kUniform;
    for (size_t n = 0; n < full.size(); ++n) EXPECT_NE(text_refusal(full.substr(0, n)), "") << n;
}

TEST(ReservoirTextFormat, RefusesBadFields) {
    auto with = [](const std::string& from, const std::string& to) {
        std::string t = kUniform;
        t.replace(t.find(from), from.size(), to);
        return text_refusal(t);
    };
    EXPECT_NE(with("\"version\": 1", "\"version\": 4294967297").find("Unsupported format version 4294967297 (this build reads version 1)"),
              std::string::npos);
    EXPECT_NE(with("\"k\": 3", "\"k\": 4294967299").find("k must be"), std::string::npos);
    EXPECT_NE(with("\"seen\": 9", "\"seen\": 9223372036854775808").find("out of range"), std::string::npos);
    EXPECT_NE(with("\"seen\": 9", "\"seen\": -9223372036854775808").find("negative"), std::string::npos);
    EXPECT_NE(with("\"k\": 3", "\"k\": 3.0").find("integer"), std::string::npos);
    EXPECT_NE(with("\"k\": 3", "\"k\": \"3\"").find("number"), std::string::npos);
    EXPECT_NE(with("\"k\": 3", "\"k\": 3, \"k\": 3").find("twice"), std::string::npos);
    EXPECT_NE(with("\"k\": 3", "\"k\": 3, \"bogus\": 3").find("Unknown field"), std::string::npos);
    EXPECT_NE(with("\"weighted\": false", "\"weighted\": 0").find("true or false"), std::string::npos);
    EXPECT_NE(with("\"weighted\": false, ", "").find("true or false"), std::string::npos);
    EXPECT_NE(with("\"type\": \"bigint\"", "\"type\": 20").find("\"type\""), std::string::npos);
    EXPECT_NE(with("\"4\"", "4").find("JSON string"), std::string::npos);
    EXPECT_NE(with("\"4\", ", "").find("min(seen, k)"), std::string::npos);
    EXPECT_NE(with("false", "true").find("\"keys\" must be an array"), std::string::npos);
    EXPECT_NE(with("false", "true, \"keys\": [-1]").find("one key per item"), std::string::npos);
    EXPECT_NE(with("false", "true, \"keys\": [-1, -2, null]").find("Keys must be numbers"), std::string::npos);
    EXPECT_NE(with("false,", "false, \"keys\": [],").find("no keys"), std::string::npos);
    EXPECT_EQ(with("false", "true, \"keys\": [-1, -2, \"-3\"]"), "");
}

TEST(ReservoirTextFormat, RefusesMalformedJson) {
    EXPECT_NE(text_refusal("[1, 2]").find("JSON object"), std::string::npos);
    EXPECT_NE(text_refusal("").find("JSON object"), std::string::npos);
    EXPECT_NE(text_refusal(std::string(kUniform) + " x").find("after the object"), std::string::npos);
    auto with = [](const std::string& from, const std::string& to) {
        std::string t = kUniform;
        t.replace(t.find(from), from.size(), to);
        return text_refusal(t);
    };
    for (const char* bad : {"\"\\u0000\"", "\"\\ude00\"", "\"\\ud800x\"", "\"\\ud800\\u0041\"", "\"\\x\"", "\"\\u12\"",
                            "\"a\tb\""})
        EXPECT_NE(with("\"8\"", bad).find("Malformed JSON"), std::string::npos) << bad;
    for (const char* bad : {"01", "-", "1.", "1e", "1x", "--1"})
        EXPECT_NE(with("\"seen\": 9", std::string("\"seen\": ") + bad), "") << bad;
    EXPECT_NE(with("\"k\": 3,", "\"k\": 3,,"), "");
    EXPECT_NE(with("\"k\": 3", "\"k\" 3"), "");
    EXPECT_NE(with("]}", "],}"), "");
    EXPECT_NE(with("\"1\"]", "\"1\",]"), "");
}
