#include "cbf/cbf.hpp"

#include "cbf/cbf_block.hpp"
#include "cbf/cbf_layout.hpp"
#include "cbf/counter_words.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace sketch::cbf {

namespace {

// Words of 16 counters, read and written as little-endian so that counter i
// of a word sits at bits 4i..4i+3 whatever the host order.
inline uint64_t load_word(const uint8_t* p) {
    uint64_t w;
    std::memcpy(&w, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    return w;
}

inline void store_word(uint8_t* p, uint64_t w) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    std::memcpy(p, &w, 8);
}

using namespace words;

// Gathers bits 0, 4, 8, ..., 60 into bits 0..15, in order.
inline uint64_t gather_nibble_bits(uint64_t x) {
    x = (x | x >> 3) & 0x0303030303030303ULL;
    x = (x | x >> 6) & 0x000F000F000F000FULL;
    x = (x | x >> 12) & 0x000000FF000000FFULL;
    x = (x | x >> 24) & 0xFFFFULL;
    return x;
}

inline bool is_pow2(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

// Probes of one item: positions computed (and their bytes prefetched) before
// any counter is touched, so the k cache misses of a large filter overlap.
struct Probes {
    uint64_t pos[kMaxHashes];
    uint32_t k;
    Probes(const Geometry& g, const Hash128& h, const uint8_t* counters) : k(g.k) {
        const uint64_t mask = g.m - 1, step = h.hi | 1;
        uint64_t p = h.lo;
        for (uint32_t i = 0; i < k; ++i, p += step) {
            pos[i] = p & mask;
            __builtin_prefetch(counters + (pos[i] >> 1));
        }
    }
};

inline unsigned get(const uint8_t* c, uint64_t i) { return (c[i >> 1] >> ((i & 1) * 4)) & 15u; }

}  // namespace

Geometry geometry_for(int64_t capacity, double fpr, uint64_t max_counters, uint64_t seed) {
    if (capacity < 1) fail(Errc::invalid_parameter, "cbf capacity must be at least 1 (got %lld)", static_cast<long long>(capacity));
    if (!(fpr > 0.0 && fpr < 1.0)) fail(Errc::invalid_parameter, "cbf fpr must be strictly between 0 and 1 (got %g)", fpr);
    if (max_counters > kMaxCounters) max_counters = kMaxCounters;
    double k = std::round(-std::log2(fpr));
    // Below 2^-32 the hashes stop at 32, and counters for the optimal k no
    // longer reach fpr: such a filter is sized as classic<32> is, so that it
    // meets the rate it records, or is refused as too large.
    if (k > kMaxHashes) return geometry_for(capacity, fpr, Layout{LayoutKind::classic, kMaxHashes}, max_counters, seed);
    Geometry g;
    g.k = static_cast<uint32_t>(k < kMinHashes ? kMinHashes : k > kMaxHashes ? kMaxHashes : k);
    const double raw = std::ceil(static_cast<double>(capacity) * g.k / std::log(2.0));
    if (!(raw <= static_cast<double>(max_counters)))
        fail(Errc::program_limit,
             "a counting Bloom filter for capacity %lld at fpr %g needs %.0f counters, more than the limit of %llu",
             static_cast<long long>(capacity), fpr, raw, static_cast<unsigned long long>(max_counters));
    uint64_t m = kMinCounters;
    while (static_cast<double>(m) < raw) m <<= 1;
    if (m > max_counters)
        fail(Errc::program_limit,
             "a counting Bloom filter for capacity %lld at fpr %g needs %llu counters, more than the limit of %llu",
             static_cast<long long>(capacity), fpr, static_cast<unsigned long long>(m),
             static_cast<unsigned long long>(max_counters));
    g.m = m;
    g.capacity = static_cast<uint64_t>(capacity);
    g.fpr = fpr;
    g.seed = seed;
    g.scheme = kSchemeXxh3DoubleHash;
    return g;
}

void check_geometry(const Geometry& g, uint64_t max_counters, Errc code) {
    if (g.scheme != kSchemeXxh3DoubleHash && g.scheme != kSchemeXxh3Block)
        fail(code, "counting Bloom filter has an unknown hash scheme %u", static_cast<unsigned>(g.scheme));
    if (g.k < kMinHashes || g.k > kMaxHashes) fail(code, "counting Bloom filter has %u hashes, outside 1..32", g.k);
    if (g.blocked()) {
        if (g.m == 0 || g.m % kLineCounters != 0)
            fail(code, "counting Bloom filter of layout block has %llu counters, not a positive multiple of 128",
                 static_cast<unsigned long long>(g.m));
    } else if (!is_pow2(g.m)) {
        fail(code, "counting Bloom filter has %llu counters, not a power of two", static_cast<unsigned long long>(g.m));
    } else if (g.m < kMinCounters) {
        fail(code, "counting Bloom filter has %llu counters, fewer than 64", static_cast<unsigned long long>(g.m));
    }
    if (g.m > max_counters || g.m > kMaxCounters)
        fail(code, "counting Bloom filter has %llu counters, more than the limit of %llu",
             static_cast<unsigned long long>(g.m), static_cast<unsigned long long>(std::min(max_counters, kMaxCounters)));
    if (g.capacity < 1 || g.capacity > static_cast<uint64_t>(INT64_MAX))
        fail(code, "counting Bloom filter has an invalid capacity %llu", static_cast<unsigned long long>(g.capacity));
    if (!(g.fpr > 0.0 && g.fpr < 1.0)) fail(code, "counting Bloom filter has an invalid fpr %g", g.fpr);
}

bool add(const Geometry& g, uint8_t* counters, const Hash128& h) {
    if (g.blocked()) return block::ops(g.k).add(counters, g.lines(), h);
    const Probes p(g, h, counters);
    bool fresh = false;
    for (uint32_t i = 0; i < p.k; ++i) {
        uint8_t& byte = counters[p.pos[i] >> 1];
        const unsigned shift = (p.pos[i] & 1) * 4;
        const unsigned v = (byte >> shift) & 15u;
        fresh |= v == 0;
        if (v != kCounterMax) byte = static_cast<uint8_t>(byte + (1u << shift));
    }
    return fresh;
}

size_t add_many(const Geometry& g, uint8_t* counters, const Hash128* hashes, size_t n) {
    if (g.blocked()) return block::ops(g.k).add_many(counters, g.lines(), hashes, n);
    // Software pipeline: the probes of item i + kAhead are prefetched while
    // item i is applied, so a large filter's cache misses overlap across items.
    // The update is branch-free (a saturated counter gets +0), which keeps
    // the loop short: it runs k times per row of cbf_agg.
    constexpr size_t kAhead = 4;
    const uint64_t mask = g.m - 1;
    const uint32_t k = g.k;
    size_t fresh_items = 0;
    for (size_t i = 0; i < n; ++i) {
        if (i + kAhead < n) {
            const Hash128& next = hashes[i + kAhead];
            uint64_t p = next.lo;
            const uint64_t step = next.hi | 1;
            for (uint32_t j = 0; j < k; ++j, p += step) __builtin_prefetch(counters + ((p & mask) >> 1), 1);
        }
        uint64_t p = hashes[i].lo;
        const uint64_t step = hashes[i].hi | 1;
        unsigned fresh = 0;
        for (uint32_t j = 0; j < k; ++j, p += step) {
            const uint64_t pos = p & mask;
            uint8_t* byte = counters + (pos >> 1);
            const unsigned shift = static_cast<unsigned>(pos & 1) * 4;
            const unsigned b = *byte;
            const unsigned v = (b >> shift) & 15u;
            fresh |= v == 0;
            *byte = static_cast<uint8_t>(b + (static_cast<unsigned>(v != kCounterMax) << shift));
        }
        fresh_items += fresh;
    }
    return fresh_items;
}

bool contains(const Geometry& g, const uint8_t* counters, const Hash128& h) {
    if (g.blocked()) return block::ops(g.k).contains(counters, g.lines(), h);
    // All k loads are issued before any result is used (no early exit), so
    // a large filter's k cache misses overlap; the loop runs once per row of
    // cbf_contains, so it is kept to a few instructions per probe.
    const uint64_t mask = g.m - 1, step = h.hi | 1;
    uint64_t p = h.lo;
    unsigned missing = 0;
    for (uint32_t i = 0; i < g.k; ++i, p += step) {
        const uint64_t pos = p & mask;
        missing |= ((counters[pos >> 1] >> (static_cast<unsigned>(pos & 1) * 4)) & 15u) == 0;
    }
    return missing == 0;
}

unsigned count_of(const Geometry& g, const uint8_t* counters, const Hash128& h) {
    if (g.blocked()) return block::ops(g.k).count_of(counters, g.lines(), h);
    const Probes p(g, h, counters);
    unsigned least = kCounterMax;
    for (uint32_t i = 0; i < p.k; ++i) {
        const unsigned v = get(counters, p.pos[i]);
        if (v < least) least = v;
    }
    return least;
}

bool remove(const Geometry& g, uint8_t* counters, const Hash128& h) {
    if (g.blocked()) return block::ops(g.k).remove(counters, g.lines(), h);
    const Probes p(g, h, counters);
    for (uint32_t i = 0; i < p.k; ++i)
        if (get(counters, p.pos[i]) == 0) return false;
    for (uint32_t i = 0; i < p.k; ++i) {
        uint8_t& byte = counters[p.pos[i] >> 1];
        const unsigned shift = (p.pos[i] & 1) * 4;
        if (((byte >> shift) & 15u) != kCounterMax) byte = static_cast<uint8_t>(byte - (1u << shift));
    }
    return true;
}

void merge(const Geometry& g, uint8_t* dst, const uint8_t* src) {
    const size_t bytes = g.counter_bytes();  // a multiple of 32 (m: a power of two >= 64, or lines of 128)
    for (size_t off = 0; off < bytes; off += 8) {
        const uint64_t a = load_word(dst + off), b = load_word(src + off);
        if (b == 0) continue;
        store_word(dst + off, saturating_add(a, b));
    }
}

void clear(const Geometry& g, uint8_t* counters) { std::memset(counters, 0, g.counter_bytes()); }

// Sum over `words` words (at most 15) of the bits of Mask(word) (bits 4j
// only). Without a popcount instruction in the baseline ISA,
// __builtin_popcountll is a library call per word; instead the masks are
// added nibble-wise (each nibble counts 0..15) and the nibbles summed once.
template <uint64_t (*Mask)(uint64_t)>
inline uint64_t masked_in(const uint8_t* p, size_t words) {
    uint64_t acc = 0;
    for (size_t w = 0; w < words; ++w) acc += Mask(load_word(p + w * 8));
    const uint64_t bytes = (acc & kByteLow4) + ((acc >> 4) & kByteLow4);  // 8 lanes of 0..30
    return (bytes * kByteBit0) >> 56;                                      // their sum, at most 240
}

template <uint64_t (*Mask)(uint64_t)>
uint64_t count_masked(const Geometry& g, const uint8_t* counters) {
    const size_t words = g.counter_bytes() / 8;
    uint64_t n = 0;
    for (size_t w = 0; w < words; w += 15) n += masked_in<Mask>(counters + w * 8, std::min<size_t>(15, words - w));
    return n;
}

uint64_t counters_set(const Geometry& g, const uint8_t* counters) { return count_masked<nonzero_mask>(g, counters); }

uint64_t counters_saturated(const Geometry& g, const uint8_t* counters) { return count_masked<saturated_mask>(g, counters); }

double estimate_count(const Geometry& g, uint64_t set) {
    const double m = static_cast<double>(g.m);
    // Every counter set: the formula diverges. Half a counter short of full is
    // the least the fill can mean (as bloom's estimated_count takes it), so a
    // full filter reads as far past its capacity, never as at it.
    const double x = set >= g.m ? m - 0.5 : static_cast<double>(set);
    const double per_add = g.blocked() ? block::distinct_per_add(g.k) : static_cast<double>(g.k);
    return -(m / per_add) * std::log1p(-x / m);
}

double expected_fpr(const Geometry& g, double n) { return fpr_for(n, static_cast<double>(g.m), layout_of(g)); }

double fill_fpr(const Geometry& g, const uint8_t* counters, uint64_t set) {
    if (!g.blocked()) return std::pow(static_cast<double>(set) / static_cast<double>(g.m), g.k);
    double total = 0;
    for (uint64_t line = 0; line < g.lines(); ++line) {
        const uint64_t in_line = masked_in<nonzero_mask>(counters + line * kLineBytes, kLineBytes / 8);
        total += std::pow(static_cast<double>(in_line) / kLineCounters, g.k);
    }
    return total / static_cast<double>(g.lines());
}

FillEstimate fill(const Geometry& g, const uint8_t* counters) {
    const uint64_t set = counters_set(g, counters);
    return {estimate_count(g, set), fill_fpr(g, counters, set)};
}

FillEstimate sampled_fill(const Geometry& g, const uint8_t* counters) {
    static_assert(kFillSampleLineBytes == kLineBytes, "a sampled line is a block layout's line");
    const uint64_t lines = g.counter_bytes() / kLineBytes;
    if (lines <= kFillSampleLines) return fill(g, counters);
    uint64_t set = 0;
    double line_rates = 0;  // the block layout's rate, line by line (fill_fpr)
    for (uint64_t i = 0; i < kFillSampleLines; ++i) {
        const uint64_t in_line = masked_in<nonzero_mask>(counters + (i * lines / kFillSampleLines) * kLineBytes, kLineBytes / 8);
        set += in_line;
        line_rates += std::pow(static_cast<double>(in_line) / kLineCounters, g.k);
    }
    const double share = static_cast<double>(set) / static_cast<double>(kFillSampleLines * kLineCounters);
    const double rate = g.blocked() ? line_rates / kFillSampleLines : std::pow(share, g.k);
    return {estimate_count(g, static_cast<uint64_t>(std::llround(share * static_cast<double>(g.m)))), rate};
}

void to_bits(const Geometry& g, const uint8_t* counters, uint64_t* bits) {
    const uint64_t words = g.m / 64;  // each output word covers 64 counters, 32 bytes
    for (uint64_t w = 0; w < words; ++w) {
        const uint8_t* base = counters + w * 32;
        uint64_t out = 0;
        for (int part = 0; part < 4; ++part)
            out |= gather_nibble_bits(nonzero_mask(load_word(base + part * 8))) << (16 * part);
        bits[w] = out;
    }
}

bool add_atomic(const Geometry& g, uint8_t* counters, const Hash128& h) {
    if (g.blocked()) return block::ops(g.k).add_atomic(counters, g.lines(), h);
    const Probes p(g, h, counters);
    bool fresh = false;
    for (uint32_t i = 0; i < p.k; ++i) {
        uint8_t* byte = counters + (p.pos[i] >> 1);
        const unsigned shift = (p.pos[i] & 1) * 4;
        uint8_t seen = __atomic_load_n(byte, __ATOMIC_RELAXED);
        for (;;) {
            const unsigned v = (seen >> shift) & 15u;
            if (v == kCounterMax) break;  // saturated: stays at 15
            const uint8_t next = static_cast<uint8_t>(seen + (1u << shift));
            if (__atomic_compare_exchange_n(byte, &seen, next, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
                fresh |= v == 0;
                break;
            }
            // seen now holds the byte another writer left; retry from it
        }
    }
    return fresh;
}

bool contains_atomic(const Geometry& g, const uint8_t* counters, const Hash128& h) {
    if (g.blocked()) return block::ops(g.k).contains_atomic(counters, g.lines(), h);
    const Probes p(g, h, counters);
    for (uint32_t i = 0; i < p.k; ++i) {
        const uint8_t byte = __atomic_load_n(counters + (p.pos[i] >> 1), __ATOMIC_RELAXED);
        if (((byte >> ((p.pos[i] & 1) * 4)) & 15u) == 0) return false;
    }
    return true;
}

unsigned count_of_atomic(const Geometry& g, const uint8_t* counters, const Hash128& h) {
    if (g.blocked()) return block::ops(g.k).count_of_atomic(counters, g.lines(), h);
    const Probes p(g, h, counters);
    unsigned least = kCounterMax;
    for (uint32_t i = 0; i < p.k; ++i) {
        const uint8_t byte = __atomic_load_n(counters + (p.pos[i] >> 1), __ATOMIC_RELAXED);
        const unsigned v = (byte >> ((p.pos[i] & 1) * 4)) & 15u;
        if (v < least) least = v;
    }
    return least;
}

void merge_atomic(const Geometry& g, uint8_t* dst, const uint8_t* src) {
    const size_t bytes = g.counter_bytes();
    auto* words = reinterpret_cast<uint64_t*>(dst);
    for (size_t off = 0; off < bytes; off += 8) {
        uint64_t add;
        std::memcpy(&add, src + off, 8);  // both words in the host's order: saturating_add works on lanes alike
        if (add == 0) continue;
        uint64_t* word = words + off / 8;
        uint64_t seen = __atomic_load_n(word, __ATOMIC_RELAXED);
        while (!__atomic_compare_exchange_n(word, &seen, saturating_add(seen, add), true, __ATOMIC_RELAXED,
                                            __ATOMIC_RELAXED)) {
        }
    }
}

}  // namespace sketch::cbf
