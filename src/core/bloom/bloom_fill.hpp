// What a Bloom filter's bits say about it (fill_estimate.hpp): bloom_info's
// estimated_count and estimated_fpr, and the past-capacity check of
// bloom_agg, bloom_add and bloom_add_many.
#pragma once

#include <cstdint>

#include "bloom/bloom.hpp"
#include "fill_estimate.hpp"

namespace sketch {
namespace bloom {

// From the bits set (count_bits over the whole array): estimated_count, and
// fpr_for at that count.
FillEstimate fill(const Geometry& g, uint64_t bits_set);

// The same from kFillSampleLines lines of kFillSampleLineBytes, evenly
// spread, for a filter larger than that (else from all its bits): the bits
// set in the sample, scaled to the whole array, give the count.
FillEstimate sampled_fill(const Geometry& g, const uint8_t* bits);

}  // namespace bloom
}  // namespace sketch
