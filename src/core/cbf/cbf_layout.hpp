// Counting Bloom filter layouts: how an item's k counters are spread over the
// array, named by a layout string as the Bloom layouts are.
//
//   classic | classic<K>   k counters anywhere in the array (double hashing,
//                          cbf.hpp); m a power of two. Without K, k =
//                          round(-log2 fpr) and m = next_pow2(capacity k / ln 2),
//                          the sizing of every filter made before layouts;
//                          with K, the smallest m that meets the fpr.
//   block | block<K>       all k counters in one line of 128 counters (64
//                          bytes, one cache line): the counting form of
//                          Boost.Bloom's block<uint64[2],K> (cbf_block.hpp).
//                          Without K, the K that needs the fewest counters.
//
// A layout is stored in a value as its hash scheme (Geometry::scheme), so
// values of the classic layout keep the bytes they always had.
#pragma once

#include <cstdint>
#include <string>

#include "cbf/cbf.hpp"

namespace sketch::cbf {

enum class LayoutKind : uint8_t { classic, block };

struct Layout {
    LayoutKind kind = LayoutKind::classic;
    uint32_t k = 0;  // counters per item; 0 = chosen for the capacity and fpr
};

// Parses a layout string (case and spaces ignored); throws invalid_parameter
// naming what is wrong.
Layout parse_layout(const std::string& spec);
// The canonical string of a resolved layout (k given): "classic<7>", "block<8>".
std::string format_layout(const Layout& l);
// The layout of a filter.
Layout layout_of(const Geometry& g);

// The filter for `capacity` items at rate `fpr` in layout l (see above).
// Throws invalid_parameter for capacity < 1 or fpr outside (0, 1),
// program_limit when it would need more than max_counters counters.
Geometry geometry_for(int64_t capacity, double fpr, const Layout& l, uint64_t max_counters = kMaxCounters,
                      uint64_t seed = 0);
// Whether a stored filter's counters are the ones its layout's sizing gives
// its capacity, fpr and k: for the block layout, the fewest lines that meet
// the fpr (that many meet it, one line fewer does not), as every block filter
// is made. This is what tells a classic filter relabelled block, whose m may
// well be a multiple of 128 too. Classic filters pass unchecked: two sizings
// (classic and classic<K>) make them. The block sizing formula is thereby
// part of the format: a change to it must keep reading existing filters.
bool sized_by_its_layout(const Geometry& g);
// The rate the formulas predict after n distinct adds into m counters
// (classic: (1 - e^{-kn/m})^k; block: cbf_block.hpp); a layout without K
// gets the K with the lowest rate.
double fpr_for(double n, double m, const Layout& resolved);

}  // namespace sketch::cbf
