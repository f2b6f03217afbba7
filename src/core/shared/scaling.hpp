// The series of sub-filters of a scaling shared filter (Bloom or counting),
// and the accounting of the items it holds. Kind-independent: each kind
// sizes sub-filter i from the capacity and fpr given here.
//
// A scaling object starts with one sub-filter sized for n items; when the
// items it holds would pass the capacity of its sub-filters, a new one is
// added, `expansion` times larger than the last. Sub-filter i holds
//
//   n_i   = n * e^i                     items
//   fpr_i = fpr * (1 - r) * r^i         false-positive rate at n_i, r = 1/2
//
// An item never added is a false positive of the whole when any sub-filter
// answers "present", so with c sub-filters, each at its capacity, the rate is
//
//   1 - prod_{i<c} (1 - fpr_i)  <=  sum_{i<c} fpr_i  =  fpr * (1 - r^c)  <  fpr
//
// (a union bound), whatever the number of sub-filters: the whole stays
// within the fpr asked for. The price is the first sub-filter's tighter
// rate (fpr / 2) and each later one's extra bit or so per item. A fixed-size
// object (expansion 0) is one sub-filter at fpr itself, and refuses the adds
// that would pass its capacity.
#pragma once

#include <cstdint>

namespace sketch::shared {

// The ratio by which each sub-filter's fpr tightens on the one before.
constexpr double kTightening = 0.5;
// Bounds of the expansion argument: 0 (fixed size), or 1 (sub-filters of one
// size) to kMaxExpansion.
constexpr uint32_t kMaxExpansion = 16;
// The expansion of objects created without one.
constexpr uint32_t kDefaultExpansion = 2;
// Sub-filters an object may have. The byte size of the object is the real
// bound (checked by the caller against its limit); this one keeps every
// capacity and fpr of the series representable (r^64 is about 5e-20).
constexpr uint32_t kMaxSubfilters = 64;

struct Series {
    uint64_t n = 0;          // capacity of the first sub-filter
    double fpr = 0;          // the rate asked for, of the whole
    uint32_t expansion = 0;  // 0: fixed size

    bool scaling() const { return expansion != 0; }
};

// Throws invalid_parameter naming the argument for an expansion outside
// 0 and 1..kMaxExpansion.
void check_expansion(int64_t expansion);

// The capacity and fpr sub-filter i (< kMaxSubfilters; 0 for a fixed-size
// object) is sized for. Capacities saturate at UINT64_MAX.
uint64_t subfilter_capacity(const Series& s, uint32_t i);
double subfilter_fpr(const Series& s, uint32_t i);

// The items the first `count` sub-filters hold at their capacities
// (saturating).
uint64_t capacity_of(const Series& s, uint32_t count);

// The rate of the whole when each sub-filter i < count has the rate rates[i]
// (estimates of each sub-filter as it is): 1 - prod (1 - rates[i]).
double combined_fpr(const double* rates, uint32_t count);

// What an object of `count` sub-filters holding `held` items needs before it
// takes `more`: nothing (`fits`), `grow_to` sub-filters (a scaling object),
// or a refusal (`full`: a fixed-size object past its capacity, or a scaling
// one past kMaxSubfilters).
struct Room {
    enum Outcome { fits, grow, full } outcome = fits;
    uint32_t grow_to = 0;
};
Room room_for(const Series& s, uint32_t count, uint64_t held, uint64_t more);

// Sub-filters follow each other in the payload, the first at offset 0 (an
// object of one sub-filter is laid out as a fixed-size one), each later one
// at the next multiple of kSubfilterAlign after the one before (a page: a
// sub-filter never shares a page, so huge-page and cache-line alignment hold
// for every one as for the first).
constexpr uint64_t kSubfilterAlign = 4096;
inline uint64_t next_subfilter_offset(uint64_t offset, uint64_t bytes) {
    return (offset + bytes + kSubfilterAlign - 1) & ~(kSubfilterAlign - 1);
}

}  // namespace sketch::shared
