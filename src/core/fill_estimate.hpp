// What a filter value's fill says about it, and the one rule both value
// types (bloom, cbf) use to decide that an add took a value past its
// capacity (the WARNING of their adds and aggregates).
#pragma once

#include <cstdint>

namespace sketch {

// Estimated from the bits or counters set: the distinct items the filter
// holds, and the false-positive rate it answers with now.
struct FillEstimate {
    double count = 0;
    double fpr = 0;
};

// Past its capacity: both estimates above what the filter was sized for,
// the count by more than kCapacityMargin. The rate alone could pass the
// target below the capacity where a layout fills its lines unevenly, which is
// the layout's doing, not too many items; the count alone passes early when
// the memory was rounded up (a power of two), where the filter still answers
// within the rate asked for. The margin keeps a filter holding what it was
// sized for quiet: a Bloom layout sized exactly has its rate at the target
// there, and the count estimated from the fill is off by a standard error of
// about 2.5% at a capacity of 100 (under 1% from 1,000; 1.6% from the
// sample below), so 5% is two of them at 100 and more above.
constexpr double kCapacityMargin = 1.05;
inline bool past_capacity(const FillEstimate& e, uint64_t capacity, double fpr) {
    return e.fpr > fpr && e.count > kCapacityMargin * static_cast<double>(capacity);
}

// The per-add check reads this many 64-byte lines of a larger filter, evenly
// spread, rather than all of it: its cost stays that of 64 cache lines
// whatever the filter's size (a 13 MB filter is 200,000 lines). Items
// spread uniformly over the lines, so the sample's fill estimates the whole
// one's: 8,192 counters (cbf) or 32,768 bits (bloom) put the fill within
// about 0.006 (one standard error at a fill of one half).
constexpr uint64_t kFillSampleLines = 64;
constexpr uint64_t kFillSampleLineBytes = 64;

}  // namespace sketch
