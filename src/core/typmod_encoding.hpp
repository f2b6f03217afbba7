// How the type modifiers of the filter types are encoded: `bloom(n, fpr[,
// layout])` and `cbf(capacity[, fpr])` fix the geometry of a column.
// PostgreSQL keeps a modifier as one non-negative int32, so the declared
// sizing is rounded to what 31 bits hold:
//
//   bits  0..9   the layout: 0 = none given (bloom_empty's default), else an
//                index into the layouts a modifier can name (layout_at)
//   bits 10..13  fpr digit d, 1..9      fpr = d * 10^-e: one significant digit
//   bits 14..17  fpr exponent e, 1..15
//   bits 18..27  n digits m, 1..999     n = m * 10^x: three significant digits
//   bits 28..30  n exponent x, 0..7     (n up to 9.99e9)
//
// A column then holds exactly the values whose geometry equals the one the
// rounded sizing gives (the face compares them).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bloom/bloom_layout.hpp"

namespace sketch::typmod {

struct Modifier {
    unsigned n_digits = 0;    // m of n = m * 10^x
    unsigned n_exponent = 0;  // x
    unsigned fpr_digit = 0;   // d of fpr = d * 10^-e
    unsigned fpr_exponent = 0;
    unsigned layout = 0;      // 0: none; else layout_at(layout)

    uint64_t n() const;
    // The double nearest d * 10^-e: the same a user typing it gets.
    double fpr() const;
    bool has_layout() const { return layout != 0; }
};

// What a type's modifiers look like.
struct Shape {
    const char* type;       // in messages: "bloom", "cbf"
    const char* n_name;     // in messages: "n", "capacity"
    unsigned min_args;      // n and fpr for bloom, capacity for cbf
    bool takes_layout;      // a third argument, the layout
    double default_fpr;     // when fpr is not given (min_args == 1)
};

// The modifier of the arguments as PostgreSQL passes them (their text);
// n and fpr rounded as above. Throws invalid_parameter saying what is wrong
// (count of arguments, n below 1 or not whole or too large, fpr outside
// (0, 1) or rounding to 0 or 1, a layout no modifier can name).
Modifier parse_modifier(const Shape& shape, const std::vector<std::string>& args);

int32_t encode(const Modifier& m);
// Throws invalid_parameter for an int32 that encode never returns.
Modifier decode(int32_t typmod);

// The arguments as SQL that parse_modifier reads back to the same modifier:
// "(1000000,0.01)", "(1000000,0.01,'fast_multiblock32<8>')".
std::string format_modifier(const Modifier& m);

// The layouts a modifier names: classic with K chosen or 1..32,
// fast_multiblock32/64 and every block<B>, multiblock<B> with K' chosen or
// 1..32 (K = 1 and the natural stride), and cbf<1..32>.
constexpr unsigned kLayouts = 1 + 33 * 3 + 7 * 33 * 2 + 32;
// Index 1..kLayouts-1 -> layout.
bloom::Layout layout_at(unsigned index);
// The index of a layout; throws invalid_parameter when no index names it.
unsigned layout_index(const bloom::Layout& l, const std::string& spec);

}  // namespace sketch::typmod
