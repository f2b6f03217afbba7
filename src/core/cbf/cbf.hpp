// Counting Bloom filter: m 4-bit counters saturating at 15, packed two per
// byte (counter i lives in byte i >> 1, the low nibble for even i), k probes
// per item derived from one XXH3-128 digest. The classic layout spreads them
// over the whole array by double hashing:
//   h1 = low 64 bits, h2 = high 64 bits | 1, probe i = (h1 + i * h2) & (m - 1);
// the block layout puts all k in one 64-byte line of 128 counters
// (cbf_block.hpp). cbf_layout.hpp names the layouts and sizes them.
//
// Every operation works on a raw span of counters plus a Geometry, never on an
// owning container, so the same code runs on a palloc'd SQL value and on a
// shared mmap'd file. The plain operations need exclusive access to the span;
// add_atomic / contains_atomic / count_of_atomic may run concurrently with
// each other (and with nothing else).
#pragma once

#include <cstddef>
#include <cstdint>

#include "cbf/cbf_block.hpp"
#include "error.hpp"
#include "fill_estimate.hpp"
#include "hash.hpp"

namespace sketch::cbf {

constexpr uint32_t kMinHashes = 1;
constexpr uint32_t kMaxHashes = 32;
constexpr uint64_t kMinCounters = 64;
// The core's own ceiling (a caller may impose a lower one): 2^36 counters,
// 32 GiB of counters; probe arithmetic is 64-bit so nothing overflows below it.
constexpr uint64_t kMaxCounters = uint64_t(1) << 36;
constexpr uint8_t kCounterMax = 15;

// How an item becomes probes. 1 = XXH3-128 of the canonical bytes with the
// geometry's seed, Kirsch-Mitzenmacher double hashing as described above
// (the classic layout). 2 = the same hash, all probes in one line of
// kLineCounters counters (the block layout, cbf_block.hpp).
constexpr uint8_t kSchemeXxh3DoubleHash = 1;
constexpr uint8_t kSchemeXxh3Block = 2;
// A line of the block layout: 128 counters, one 64-byte cache line.
constexpr uint64_t kLineCounters = 128;
constexpr size_t kLineBytes = 64;

struct Geometry {
    uint32_t k = 0;          // probes per item, 1..32
    uint64_t m = 0;          // counters: classic, a power of two >= 64; block, a multiple of 128
    uint64_t capacity = 0;   // the item count the filter was sized for
    double fpr = 0;          // the target false-positive rate at capacity
    uint64_t seed = 0;       // hash seed
    uint8_t scheme = kSchemeXxh3DoubleHash;

    size_t counter_bytes() const { return static_cast<size_t>(m / 2); }
    bool blocked() const { return scheme == kSchemeXxh3Block; }
    uint64_t lines() const { return m / kLineCounters; }  // block layout
    // Same m, k, seed and scheme (layout): counters mean the same thing, so filters merge.
    bool compatible(const Geometry& o) const {
        return k == o.k && m == o.m && seed == o.seed && scheme == o.scheme;
    }
};

// The classic layout's default sizing (cbf_layout.hpp sizes every layout):
// k = round(-log2 fpr) clamped to 1..32, m = next_pow2(ceil(capacity * k / ln 2)),
// at least 64. Throws invalid_parameter for capacity < 1 or fpr outside (0, 1)
// (NaN included), program_limit when m would exceed max_counters.
Geometry geometry_for(int64_t capacity, double fpr, uint64_t max_counters = kMaxCounters, uint64_t seed = 0);

// Validates a geometry read from storage (k, m, capacity, fpr, scheme; m
// fits the scheme's layout);
// throws `code` with a message naming the bad field.
void check_geometry(const Geometry& g, uint64_t max_counters, Errc code);

// ---- plain operations (exclusive access) ----

// Saturating increment of the item's k counters; true if any was 0 before
// (the item was probably new).
bool add(const Geometry& g, uint8_t* counters, const Hash128& h);
// add() for n items in a row, with the memory accesses of consecutive items
// overlapped (much faster than one at a time on a filter beyond the caches).
// Returns how many items were probably new.
size_t add_many(const Geometry& g, uint8_t* counters, const Hash128* hashes, size_t n);
// All k counters nonzero.
bool contains(const Geometry& g, const uint8_t* counters, const Hash128& h);
// The minimum of the item's k counters, 0..15.
unsigned count_of(const Geometry& g, const uint8_t* counters, const Hash128& h);
// If the item is present, decrements each of its counters that is below 15
// and returns true; otherwise changes nothing and returns false.
bool remove(const Geometry& g, uint8_t* counters, const Hash128& h);
// dst[i] = min(15, dst[i] + src[i]) for every counter; same geometry assumed
// (callers check compatible()).
void merge(const Geometry& g, uint8_t* dst, const uint8_t* src);
void clear(const Geometry& g, uint8_t* counters);

// Nonzero counters, and counters stuck at 15.
uint64_t counters_set(const Geometry& g, const uint8_t* counters);
uint64_t counters_saturated(const Geometry& g, const uint8_t* counters);
// Distinct items present: -(m/d) ln(1 - set/m), d the distinct counters an
// add sets in an empty filter (classic: k; block: 128 (1 - (127/128)^k),
// as draws within a line may coincide); with every counter set, the estimate
// at m - 1/2 set (a lower bound: the filter may hold any number more).
double estimate_count(const Geometry& g, uint64_t set);
// The rate the formula predicts after n distinct adds (cbf_layout.hpp's fpr_for).
double expected_fpr(const Geometry& g, double n);
// The rate of the filter as it is, the chance that the k probes of an item
// never added all land on nonzero counters: classic, (set/m)^k from the fill
// (set: counters_set); block, the mean over lines of (set in line / 128)^k,
// exact for the drawing with replacement (lines fill unevenly, so the
// overall fill would understate it).
double fill_fpr(const Geometry& g, const uint8_t* counters, uint64_t set);  // classic reads only set
// count and fpr of the filter as it is: estimate_count and fill_fpr over
// all the counters (one pass), or over kFillSampleLines lines evenly spread
// (fill_estimate.hpp; every line when the filter has no more).
FillEstimate fill(const Geometry& g, const uint8_t* counters);
FillEstimate sampled_fill(const Geometry& g, const uint8_t* counters);

// Projection onto a Bloom filter of the same m and k: writes all m/64 words
// of `bits` (bit i & 63 of word i >> 6 is set iff counter i is nonzero).
// Classic: the Bloom layout cbf<k>; block: block<uint64[2],k> with m/128
// positions (cbf_block.hpp).
void to_bits(const Geometry& g, const uint8_t* counters, uint64_t* bits);

// ---- concurrent forms (shared objects) ----
// add_atomic: each counter is bumped by compare-and-swap on its byte (block
// layout: each word of the item's line it touches, cbf_block.hpp), so
// concurrent adds never lose an increment and saturate exactly at 15. Returns
// "probably new" as add() does (a counter it saw at 0). contains_atomic and
// count_of_atomic read with relaxed atomic loads and may run concurrently
// with add_atomic. remove/merge/clear have no atomic form: run them under an
// exclusive lock.
bool add_atomic(const Geometry& g, uint8_t* counters, const Hash128& h);
bool contains_atomic(const Geometry& g, const uint8_t* counters, const Hash128& h);
unsigned count_of_atomic(const Geometry& g, const uint8_t* counters, const Hash128& h);
// merge() beside add_atomic: each word of src with a counter set goes into
// dst by one compare-and-swap of the counter-wise saturating sum (an aligned
// word and the bytes add_atomic swaps in it stay atomic to each other), so
// no concurrent add is lost. dst 8-byte aligned.
void merge_atomic(const Geometry& g, uint8_t* dst, const uint8_t* src);

// Counter i, for tests and tools.
inline unsigned counter_at(const uint8_t* counters, uint64_t i) {
    return (counters[i >> 1] >> ((i & 1) * 4)) & 15u;
}

// The classic layout's probe positions of an item; the k positions are pairwise distinct
// (h2 is odd, so it is invertible modulo the power of two m, and k <= 32 < m).
inline uint64_t probe(const Geometry& g, const Hash128& h, uint32_t i) {
    return (h.lo + static_cast<uint64_t>(i) * (h.hi | 1)) & (g.m - 1);
}

// Starts loading the item's counter lines (for writing), so that the cache
// misses of a large filter overlap each other and whatever the caller does next.
// (GCC finds a function made only of prefetches free of side effects and
// deletes its calls; the empty volatile asm keeps them.)
inline void prefetch(const Geometry& g, const uint8_t* counters, const Hash128& h) {
    if (g.blocked()) {
        const uint8_t* line = counters + block::line_of(g.lines(), h.lo) * kLineBytes;
        __builtin_prefetch(line, 1, 3);
        asm volatile("" : : "r"(line));
        return;
    }
    for (uint32_t i = 0; i < g.k; ++i) {
        const uint8_t* line = counters + (probe(g, h, i) >> 1);
        __builtin_prefetch(line, 1, 3);
        asm volatile("" : : "r"(line));
    }
}

}  // namespace sketch::cbf
