// What a private copy of one sub-filter of a shared Bloom or counting filter
// needs: the sub-filter's geometry, to add and look up items in the copy as
// in the sub-filter itself, and to merge the copy into the shared array.
//
// A transaction that adds many new items to an object gathers them in such
// a copy (sketch_pg's transactional adds) and merges it at commit in one
// pass over the array, where adding them one by one would take a random
// line each. Merging a copy is adding its items: Bloom bits are or-ed, and a
// counter's saturating sum is what its adds one by one would leave.
#pragma once

#include <cstdint>

#include "bloom/bloom.hpp"
#include "cbf/cbf.hpp"
#include "hash.hpp"

namespace sketch::shared {

class SubfilterCopy {
  public:
    static SubfilterCopy of_bloom(const bloom::Geometry& g);
    static SubfilterCopy of_cbf(const cbf::Geometry& g);

    // Bytes a copy takes (the array, and the kernels' tail pad), zeroed
    // before its first add.
    uint64_t bytes() const { return bytes_; }

    void add(uint8_t* copy, const Hash128& h) const;
    bool contains(const uint8_t* copy, const Hash128& h) const;
    // Starts loading the item's lines of the copy.
    void prefetch(const uint8_t* copy, const Hash128& h) const;
    // Adds the copy's items to the shared sub-filter `into` (its mapped
    // array), beside other processes' atomic adds.
    void merge_into(uint8_t* into, const uint8_t* copy) const;

  private:
    bool counting_ = false;
    uint64_t bytes_ = 0;
    cbf::Geometry cbf_{};
    bloom::Geometry bloom_{};
    const bloom::Ops* ops_ = nullptr;
    bloom::Span span_{};  // bits filled in per call
    bloom::Span span(const uint8_t* copy) const {
        bloom::Span s = span_;
        s.bits = const_cast<uint8_t*>(copy);
        return s;
    }
};

}  // namespace sketch::shared
