// Kernels of the blocked counting filter layout (cbf_layout.hpp: block<K>).
//
// The array is L lines of 128 4-bit counters, 64 bytes each (counter c of
// line p in byte 64p + c/2, the low nibble for even c). An item's probes are
// those of Boost.Bloom's block<uint64[2],K> (bloom_kernels.hpp), read as
// counters instead of bits:
//   h <- lo | 1;  p <- high64(h * L);  h <- h * 0xf1357aea2e62a9c5
//   K fields of 7 bits from h (then from mulx64(h), 8 per hash), field n
//   naming bit n/2 of word n%2 of the 128-bit block: counter 64(n%2) + n/2.
// So the bit array "counter > 0" of a blocked filter is, bit for bit, the
// Bloom filter of layout block<uint64[2],K> with L positions of the same
// items (cbf::to_bits writes it), and answers exactly as the counting filter.
//
// The K fields are drawn with replacement: a counter drawn twice for an item
// counts that item twice, and remove takes both back.
//
// Internal to the core: cbf.cpp dispatches here when a geometry is blocked.
#pragma once

#include <cstddef>
#include <cstdint>

#include "hash.hpp"

namespace sketch::cbf::block {

// The line of an item whose hash has low word lo: high64((lo | 1) * lines).
// Its counters too derive from lo alone.
inline uint64_t line_of(uint64_t lines, uint64_t lo) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(lo | 1) * lines) >> 64);
}

struct Ops {
    bool (*add)(uint8_t* counters, uint64_t lines, const Hash128& h);  // true if a counter was 0
    size_t (*add_many)(uint8_t* counters, uint64_t lines, const Hash128* hashes, size_t n);
    // The adds of n items given their hashes' low words, on lines in cache
    // (a region of RegionBatch, cbf_regions.hpp), prefetching meanwhile the
    // next_lines lines from next (null: none).
    void (*add_los)(uint8_t* counters, uint64_t lines, const uint64_t* los, uint32_t n, const uint8_t* next,
                    size_t next_lines);
    bool (*contains)(const uint8_t* counters, uint64_t lines, const Hash128& h);
    unsigned (*count_of)(const uint8_t* counters, uint64_t lines, const Hash128& h);
    bool (*remove)(uint8_t* counters, uint64_t lines, const Hash128& h);
    // The concurrent forms (cbf.hpp's add_atomic and its lookups). An add
    // takes the item's line once: its increments are gathered into the
    // line's 64-bit words of 16 counters first, then each word it touches
    // changes by one compare-and-swap of a saturating add, so concurrent
    // adds never lose a count and stop exactly at 15. The lookups read
    // counters with relaxed atomic loads. The counters must be 8-byte aligned.
    bool (*add_atomic)(uint8_t* counters, uint64_t lines, const Hash128& h);
    bool (*contains_atomic)(const uint8_t* counters, uint64_t lines, const Hash128& h);
    unsigned (*count_of_atomic)(const uint8_t* counters, uint64_t lines, const Hash128& h);
};

// The kernels for k counters per item, 1..kMaxHashes.
const Ops& ops(uint32_t k);

// The formula's rate after n distinct adds into m counters (L = m / 128
// lines), k per item. An item's line is uniform, so a line's load is
// Binomial(n, 1/L), about Poisson(n / L). Boost.Bloom's block formula then
// takes a line holding j items to have each counter still 0 with probability
// (1 - 1/128)^{kj} and a query's k counters to be set independently:
//   FPR = sum_j Poisson(j; n/L) (1 - (1 - 1/128)^{kj})^k.
// That understates the rate (3-5% at k = 6-8, 12% at k = 12, measured)
// because a query's k draws with replacement often coincide, needing fewer
// counters set. So for k <= 16 the per-load term is exact instead: the
// chance the draws hit d distinct counters, times the chance d given
// counters are all nonzero after j adds (inclusion-exclusion over them):
//   FPR = sum_j Poisson(j; n/L) sum_d P(d distinct of k draws from 128)
//         sum_t (-1)^t C(d,t) (1 - t/128)^{kj}
// (bloom::block_fpr_distinct_draws); above 16, Boost's.
double fpr_for(double n, double m, uint32_t k);

// Expected distinct counters an add sets in an empty line: 128 (1 - (127/128)^k).
double distinct_per_add(uint32_t k);

}  // namespace sketch::cbf::block
