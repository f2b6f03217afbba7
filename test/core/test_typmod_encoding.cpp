// Type modifiers of the filter types: rounding, the int32 encoding and its
// round trip through the SQL text, every layout index, bad arguments.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "error.hpp"
#include "typmod_encoding.hpp"

using namespace sketch;
using namespace sketch::typmod;

namespace {

const Shape kBloom{"bloom", "n", 2, true, 0};
const Shape kCbf{"cbf", "capacity", 1, false, 0.01};

Modifier bloom_of(std::vector<std::string> args) { return parse_modifier(kBloom, args); }

Errc bloom_error(std::vector<std::string> args) {
    try {
        bloom_of(args);
    } catch (const Error& e) {
        return e.code();
    }
    return Errc::internal;
}

}  // namespace

TEST(TypeModifier, RoundsNToThreeDigitsAndFprToOne) {
    Modifier m = bloom_of({"1234567", "0.025"});
    EXPECT_EQ(m.n(), 1230000u);
    EXPECT_EQ(m.fpr(), 0.03);  // the double nearest 0.025 is a little above it
    m = bloom_of({"1235000", "0.013"});
    EXPECT_EQ(m.n(), 1240000u);
    EXPECT_EQ(m.fpr(), 0.01);
    EXPECT_EQ(bloom_of({"999999", "0.9"}).n(), 1000000u);
    EXPECT_EQ(bloom_of({"7", "0.5"}).n(), 7u);
    EXPECT_EQ(bloom_of({"42", "0.5"}).n(), 42u);
    EXPECT_EQ(bloom_of({"1e6", "1e-3"}).n(), 1000000u);
    EXPECT_EQ(bloom_of({"1e6", "1e-3"}).fpr(), 0.001);
    EXPECT_EQ(bloom_of({"9990000000", "1e-15"}).n(), 9990000000u);
}

TEST(TypeModifier, EncodingRoundTrips) {
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"1000000", "0.01"}, {"1", "0.9"}, {"9990000000", "1e-15"}, {"123", "0.007", "classic"},
             {"5000", "0.01", "fast_multiblock64<11>"}, {"5000", "0.01", "multiblock<uint64[8],32>"}, {"5000", "0.01", "cbf<32>"}}) {
        const Modifier m = bloom_of(args);
        const int32_t t = encode(m);
        EXPECT_GT(t, 0);
        const Modifier d = decode(t);
        EXPECT_EQ(d.n(), m.n());
        EXPECT_EQ(d.fpr(), m.fpr());
        EXPECT_EQ(d.layout, m.layout);
        // The SQL text reads back to the same modifier.
        std::string text = format_modifier(d);
        std::vector<std::string> again;
        std::string cur;
        for (char c : text.substr(1, text.size() - 2)) {
            if (c == ',' && (again.size() < 2)) {
                again.push_back(cur);
                cur.clear();
            } else if (c != '\'') {
                cur += c;
            }
        }
        again.push_back(cur);
        EXPECT_EQ(encode(bloom_of(again)), t) << text;
    }
    EXPECT_EQ(format_modifier(bloom_of({"1000000", "0.01"})), "(1000000,0.01)");
}

TEST(TypeModifier, EveryLayoutIndexNamesItself) {
    for (unsigned i = 1; i < kLayouts; ++i) {
        const bloom::Layout l = layout_at(i);
        const unsigned first = layout_index(l, "x");
        EXPECT_EQ(layout_at(first), l) << i;
        EXPECT_LE(first, i);
    }
    EXPECT_EQ(bloom::format_layout(layout_at(kLayouts - 1)), "cbf<32>");
}

TEST(TypeModifier, BadArguments) {
    EXPECT_EQ(bloom_error({"1000"}), Errc::invalid_parameter);                                // fpr missing
    EXPECT_EQ(bloom_error({"1000", "0.01", "classic", "4"}), Errc::invalid_parameter);        // too many
    EXPECT_EQ(bloom_error({"0", "0.01"}), Errc::invalid_parameter);
    EXPECT_EQ(bloom_error({"-5", "0.01"}), Errc::invalid_parameter);
    EXPECT_EQ(bloom_error({"10.5", "0.01"}), Errc::invalid_parameter);
    EXPECT_EQ(bloom_error({"1e10", "0.01"}), Errc::invalid_parameter);
    EXPECT_EQ(bloom_error({"abc", "0.01"}), Errc::invalid_parameter);
    EXPECT_EQ(bloom_error({"1000", "0"}), Errc::invalid_parameter);
    EXPECT_EQ(bloom_error({"1000", "1"}), Errc::invalid_parameter);
    EXPECT_EQ(bloom_error({"1000", "-0.1"}), Errc::invalid_parameter);
    EXPECT_EQ(bloom_error({"1000", "0.97"}), Errc::invalid_parameter);    // rounds to 1
    EXPECT_EQ(bloom_error({"1000", "1e-16"}), Errc::invalid_parameter);
    EXPECT_EQ(bloom_error({"1000", "nan"}), Errc::invalid_parameter);
    EXPECT_EQ(bloom_error({"1000", "0.01", "nope"}), Errc::invalid_parameter);
    EXPECT_EQ(bloom_error({"1000", "0.01", "2*block<uint64>"}), Errc::invalid_parameter);
    EXPECT_EQ(bloom_error({"1000", "0.01", "block<uint64,3>/4"}), Errc::invalid_parameter);
    EXPECT_THROW(decode(0), Error);
    EXPECT_THROW(decode(-1), Error);
}

TEST(TypeModifier, CbfTakesCapacityAndAnOptionalFpr) {
    const Modifier m = parse_modifier(kCbf, {"1000"});
    EXPECT_EQ(m.n(), 1000u);
    EXPECT_EQ(m.fpr(), 0.01);
    EXPECT_FALSE(m.has_layout());
    EXPECT_EQ(parse_modifier(kCbf, {"1000", "0.001"}).fpr(), 0.001);
    EXPECT_THROW(parse_modifier(kCbf, {"1000", "0.01", "classic"}), Error);
    EXPECT_THROW(parse_modifier(kCbf, {}), Error);
}
