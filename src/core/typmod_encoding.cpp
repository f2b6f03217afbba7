// Type modifiers of the filter types: parsing, rounding, the int32 encoding.
#include "typmod_encoding.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "error.hpp"

namespace sketch::typmod {

namespace {

constexpr unsigned kLayoutBits = 10, kFprDigitBits = 4, kFprExponentBits = 4, kNDigitsBits = 10, kNExponentBits = 3;
constexpr unsigned kFprDigitShift = kLayoutBits;
constexpr unsigned kFprExponentShift = kFprDigitShift + kFprDigitBits;
constexpr unsigned kNDigitsShift = kFprExponentShift + kFprExponentBits;
constexpr unsigned kNExponentShift = kNDigitsShift + kNDigitsBits;
static_assert(kNExponentShift + kNExponentBits == 31, "a modifier is a non-negative int32");
static_assert(kLayouts <= (1u << kLayoutBits), "layout indexes fit their field");

constexpr unsigned kMaxFprExponent = (1u << kFprExponentBits) - 1;  // fpr down to 1e-15
constexpr unsigned kMaxNExponent = (1u << kNExponentBits) - 1;      // n up to 9.99e9
constexpr unsigned kGroup = 33;  // a family's entries: K (or K') chosen, then 1..32

unsigned field(int32_t typmod, unsigned shift, unsigned bits) { return (uint32_t(typmod) >> shift) & ((1u << bits) - 1); }

// A number argument: the whole text must be a finite decimal.
double number_arg(const Shape& shape, const char* name, const std::string& text) {
    errno = 0;
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(v))
        fail(Errc::invalid_parameter, "%s type modifier %s must be a number, got \"%s\"", shape.type, name, text.c_str());
    return v;
}

// n to three significant digits, from the decimal form printf rounds to.
void set_n(const Shape& shape, const std::string& text, Modifier* m) {
    const double n = number_arg(shape, shape.n_name, text);
    if (n < 1 || n != std::floor(n))
        fail(Errc::invalid_parameter, "%s type modifier %s must be a whole number of at least 1, got %s", shape.type,
             shape.n_name, text.c_str());
    char digits[32];
    snprintf(digits, sizeof digits, "%.2e", n);  // "d.dde+XX"
    unsigned m3 = unsigned(digits[0] - '0') * 100 + unsigned(digits[2] - '0') * 10 + unsigned(digits[3] - '0');
    int exponent = std::atoi(digits + 5) - 2;
    for (; exponent < 0; ++exponent) m3 /= 10;  // below 100: exact
    if (exponent > int(kMaxNExponent))
        fail(Errc::invalid_parameter, "%s type modifier %s must be at most 9.99e9, got %s", shape.type, shape.n_name,
             text.c_str());
    m->n_digits = m3;
    m->n_exponent = unsigned(exponent);
}

// fpr to one significant digit.
void set_fpr(const Shape& shape, const std::string& text, Modifier* m) {
    const double fpr = number_arg(shape, "fpr", text);
    if (!(fpr > 0 && fpr < 1))
        fail(Errc::invalid_parameter, "%s type modifier fpr must be between 0 and 1 (exclusive), got %s", shape.type,
             text.c_str());
    char digits[32];
    snprintf(digits, sizeof digits, "%.0e", fpr);  // "de-XX"
    const unsigned d = unsigned(digits[0] - '0');
    const int exponent = -std::atoi(digits + 2);
    if (exponent < 1)
        fail(Errc::invalid_parameter, "%s type modifier fpr %s rounds to 1 at one significant digit", shape.type,
             text.c_str());
    if (exponent > int(kMaxFprExponent))
        fail(Errc::invalid_parameter, "%s type modifier fpr must be at least 1e-15, got %s", shape.type, text.c_str());
    m->fpr_digit = d;
    m->fpr_exponent = unsigned(exponent);
}

// The spec of layout index i (1-based), for parse_layout: in each family the
// first entry leaves K (classic) or K' chosen, the next 32 give it.
std::string spec_at(unsigned index) {
    static const char* const kBlocks[7] = {"uint8", "uint16", "uint32", "uint64", "uint64[2]", "uint64[4]", "uint64[8]"};
    auto chosen_or = [](unsigned v, const char* open, const char* close) {
        return v == 0 ? std::string() : open + std::to_string(v) + close;
    };
    unsigned i = index - 1;
    if (i < kGroup) return "classic" + chosen_or(i, "<", ">");
    i -= kGroup;
    for (const char* family : {"fast_multiblock32", "fast_multiblock64"}) {
        if (i < kGroup) return family + chosen_or(i, "<", ">");
        i -= kGroup;
    }
    for (const char* family : {"block<", "multiblock<"}) {
        if (i < 7 * kGroup) return family + std::string(kBlocks[i / kGroup]) + chosen_or(i % kGroup, ",", "") + ">";
        i -= 7 * kGroup;
    }
    return "cbf<" + std::to_string(i + 1) + ">";
}

}  // namespace

uint64_t Modifier::n() const {
    uint64_t n = n_digits;
    for (unsigned i = 0; i < n_exponent; ++i) n *= 10;
    return n;
}

double Modifier::fpr() const {
    char text[16];
    snprintf(text, sizeof text, "%ue-%u", fpr_digit, fpr_exponent);
    return std::strtod(text, nullptr);
}

bloom::Layout layout_at(unsigned index) {
    if (index == 0 || index >= kLayouts) fail(Errc::invalid_parameter, "no type modifier layout has index %u", index);
    return bloom::parse_layout(spec_at(index));
}

unsigned layout_index(const bloom::Layout& l, const std::string& spec) {
    for (unsigned i = 1; i < kLayouts; ++i)
        if (layout_at(i) == l) return i;
    fail(Errc::invalid_parameter,
         "bloom layout \"%s\" cannot be a type modifier: a modifier names a layout with K = 1 (no \"K*\") and the "
         "natural stride",
         spec.c_str());
}

Modifier parse_modifier(const Shape& shape, const std::vector<std::string>& args) {
    const size_t max_args = shape.takes_layout ? 3 : 2;
    if (args.size() < shape.min_args || args.size() > max_args)
        fail(Errc::invalid_parameter, "%s type modifiers are (%s%s%s), got %zu argument%s", shape.type, shape.n_name,
             shape.min_args == 1 ? "[, fpr" : ", fpr", shape.takes_layout ? "[, layout]" : (shape.min_args == 1 ? "]" : ""),
             args.size(), args.size() == 1 ? "" : "s");
    Modifier m;
    set_n(shape, args[0], &m);
    if (args.size() > 1) {
        set_fpr(shape, args[1], &m);
    } else {
        char text[32];
        snprintf(text, sizeof text, "%.17g", shape.default_fpr);
        set_fpr(shape, text, &m);
    }
    if (args.size() > 2) m.layout = layout_index(bloom::parse_layout(args[2]), args[2]);
    return m;
}

int32_t encode(const Modifier& m) {
    return int32_t(m.layout | m.fpr_digit << kFprDigitShift | m.fpr_exponent << kFprExponentShift |
                   m.n_digits << kNDigitsShift | m.n_exponent << kNExponentShift);
}

Modifier decode(int32_t typmod) {
    Modifier m;
    m.layout = field(typmod, 0, kLayoutBits);
    m.fpr_digit = field(typmod, kFprDigitShift, kFprDigitBits);
    m.fpr_exponent = field(typmod, kFprExponentShift, kFprExponentBits);
    m.n_digits = field(typmod, kNDigitsShift, kNDigitsBits);
    m.n_exponent = field(typmod, kNExponentShift, kNExponentBits);
    if (typmod < 0 || m.layout >= kLayouts || m.fpr_digit < 1 || m.fpr_digit > 9 || m.fpr_exponent < 1 ||
        m.n_digits < 1 || m.n_digits > 999)
        fail(Errc::invalid_parameter, "invalid filter type modifier %d", int(typmod));
    return m;
}

std::string format_modifier(const Modifier& m) {
    std::string out = "(" + std::to_string(m.n()) + ",0.";
    out.append(m.fpr_exponent - 1, '0');
    out += std::to_string(m.fpr_digit);
    if (m.has_layout()) out += ",'" + bloom::format_layout(layout_at(m.layout)) + "'";
    return out + ")";
}

}  // namespace sketch::typmod
