#include "cbf/cbf_block.hpp"

#include <array>
#include <cmath>
#include <cstring>
#include <utility>

#include "bloom/bloom_block_fpr.hpp"
#include "cbf/cbf.hpp"
#include "cbf/cbf_region_buckets.hpp"
#include "cbf/counter_words.hpp"

// The probes are Boost.Bloom's block<uint64[2],K> subfilter's: its field
// generation is reused, not restated, so the projection cannot drift.
#define BLOOM_KERNEL_NS cbf_block_probes
#include "bloom/bloom_kernels.hpp"

namespace sketch::cbf::block {

namespace {

namespace probes = bloom::cbf_block_probes;

// Adds the increments `add` (16 counters of 0..15) to the word by
// compare-and-swap, each counter saturating at 15; true if a counter that
// `add` raises was 0.
inline bool add_to_word_atomic(uint64_t* word, uint64_t add) {
    uint64_t seen = __atomic_load_n(word, __ATOMIC_RELAXED);
    for (;;) {
        const uint64_t next = words::saturating_add(seen, add);
        if (next == seen) return false;  // every counter it raises is at 15
        if (__atomic_compare_exchange_n(word, &seen, next, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            return (words::nonzero_mask(add) & ~words::nonzero_mask(seen)) != 0;
        // seen now holds the word another writer left; add to that
    }
}

inline unsigned load_counter(const uint8_t* l, unsigned c) {
    return (__atomic_load_n(l + (c >> 1), __ATOMIC_RELAXED) >> ((c & 1u) * 4)) & 15u;
}

template <unsigned K>
struct Kernels {
    using Sub = probes::BlockSub<uint64_t, 2, K>;

    // The item's line, and the hash its counters are drawn from.
    static inline __attribute__((always_inline)) uint64_t line(uint64_t lines, const Hash128& h, uint64_t* fields) {
        *fields = (h.lo | 1) * probes::kMcg;
        return line_of(lines, h.lo);
    }
    // f(counter index in the line) for each of the K draws.
    template <typename F>
    static inline __attribute__((always_inline)) void each(uint64_t fields, F&& f) {
        Sub::words(fields, [&](unsigned w, unsigned b) { f(w * 64u + b); });
    }
    static inline __attribute__((always_inline)) unsigned get(const uint8_t* l, unsigned c) {
        return (l[c >> 1] >> ((c & 1u) * 4)) & 15u;
    }
    // Saturating increment; true if the counter was 0.
    static inline __attribute__((always_inline)) bool bump(uint8_t* l, unsigned c) {
        const unsigned shift = (c & 1u) * 4, b = l[c >> 1], v = (b >> shift) & 15u;
        l[c >> 1] = static_cast<uint8_t>(b + (static_cast<unsigned>(v != kCounterMax) << shift));
        return v == 0;
    }

    static inline __attribute__((always_inline)) bool add_at(uint8_t* counters, uint64_t lines, const Hash128& h) {
        uint64_t fields;
        uint8_t* l = counters + line(lines, h, &fields) * kLineBytes;
        bool fresh = false;
        each(fields, [&](unsigned c) { fresh |= bump(l, c); });
        return fresh;
    }
    static bool add(uint8_t* counters, uint64_t lines, const Hash128& h) { return add_at(counters, lines, h); }

    static size_t add_many(uint8_t* counters, uint64_t lines, const Hash128* hashes, size_t n) {
        // One line per item: prefetching items far enough ahead keeps
        // about as many lines in flight as the core can track.
        constexpr size_t kAhead = 16;
        size_t fresh = 0;
        for (size_t i = 0; i < n; ++i) {
            if (i + kAhead < n) {
                uint64_t unused;
                __builtin_prefetch(counters + line(lines, hashes[i + kAhead], &unused) * kLineBytes, 1);
            }
            fresh += add_at(counters, lines, hashes[i]);
        }
        return fresh;
    }

    static void add_los(uint8_t* counters, uint64_t lines, const uint64_t* los, uint32_t n, const uint8_t* next,
                        size_t next_lines) {
        bump_prefetching_next(n, next, next_lines, [&](uint32_t i) { add_at(counters, lines, Hash128{los[i], 0}); });
    }

    // Read(line, c): counter c of the line, plainly or atomically.
    template <unsigned (*Read)(const uint8_t*, unsigned)>
    static bool contains_with(const uint8_t* counters, uint64_t lines, const Hash128& h) {
        uint64_t fields;
        const uint8_t* l = counters + line(lines, h, &fields) * kLineBytes;
        bool all = true;
        each(fields, [&](unsigned c) { all &= Read(l, c) != 0; });
        return all;
    }
    template <unsigned (*Read)(const uint8_t*, unsigned)>
    static unsigned count_of_with(const uint8_t* counters, uint64_t lines, const Hash128& h) {
        uint64_t fields;
        const uint8_t* l = counters + line(lines, h, &fields) * kLineBytes;
        unsigned least = kCounterMax;
        each(fields, [&](unsigned c) {
            const unsigned v = Read(l, c);
            least = v < least ? v : least;
        });
        return least;
    }
    static unsigned get_plain(const uint8_t* l, unsigned c) { return get(l, c); }

    // The item's increments, gathered on a zeroed copy of a line (a counter
    // drawn twice gets 2) while the line is loaded for writing, then added
    // word by word.
    static bool add_atomic(uint8_t* counters, uint64_t lines, const Hash128& h) {
        uint64_t fields;
        uint8_t* l = counters + line(lines, h, &fields) * kLineBytes;
        __builtin_prefetch(l, 1, 3);
        alignas(8) uint8_t increments[kLineBytes] = {};
        unsigned touched = 0;  // bit w: word w of the line gets an increment
        each(fields, [&](unsigned c) {
            bump(increments, c);
            touched |= 1u << (c >> 4);
        });
        bool fresh = false;
        for (; touched != 0; touched &= touched - 1) {
            const unsigned w = static_cast<unsigned>(__builtin_ctz(touched));
            uint64_t add;
            std::memcpy(&add, increments + w * 8, 8);
            fresh |= add_to_word_atomic(reinterpret_cast<uint64_t*>(l + w * 8), add);
        }
        return fresh;
    }

    // Takes back what add_at gave, on a copy of the line: a counter drawn
    // twice goes down twice, and one that would go below 0 means the item
    // was never added, so nothing changes. Counters at 15 stay.
    static bool remove(uint8_t* counters, uint64_t lines, const Hash128& h) {
        uint64_t fields;
        uint8_t* l = counters + line(lines, h, &fields) * kLineBytes;
        uint8_t copy[kLineBytes];
        std::memcpy(copy, l, kLineBytes);
        bool present = true;
        each(fields, [&](unsigned c) {
            const unsigned shift = (c & 1u) * 4, v = (copy[c >> 1] >> shift) & 15u;
            if (v == 0) present = false;
            else if (v != kCounterMax) copy[c >> 1] = static_cast<uint8_t>(copy[c >> 1] - (1u << shift));
        });
        if (present) std::memcpy(l, copy, kLineBytes);
        return present;
    }

    static constexpr Ops table() {
        return Ops{&add,
                   &add_many,
                   &add_los,
                   &contains_with<get_plain>,
                   &count_of_with<get_plain>,
                   &remove,
                   &add_atomic,
                   &contains_with<load_counter>,
                   &count_of_with<load_counter>};
    }
};

template <unsigned... I>
constexpr auto make_table(std::integer_sequence<unsigned, I...>) {
    return std::array<Ops, sizeof...(I)>{Kernels<I + 1>::table()...};
}
constexpr auto kOps = make_table(std::make_integer_sequence<unsigned, kMaxHashes>{});

}  // namespace

const Ops& ops(uint32_t k) { return kOps[k - 1]; }

double fpr_for(double n, double m, uint32_t k) {
    if (k <= 16) return bloom::block_fpr_distinct_draws(n, m, static_cast<double>(kLineCounters), k);
    bloom::Layout l;
    l.kind = bloom::Kind::block;
    l.block = bloom::BlockType::u64x2;
    l.k = 1;
    l.kp = k;
    return bloom::fpr_for(n, m, l);
}

double distinct_per_add(uint32_t k) {
    return static_cast<double>(kLineCounters) * -std::expm1(k * std::log1p(-1.0 / kLineCounters));
}

}  // namespace sketch::cbf::block
