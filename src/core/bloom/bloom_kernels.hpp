// Compile-time Bloom kernels: one instantiation per (subfilter, K'), reached
// through a table of function pointers (bloom.hpp's Ops) chosen once per call.
//
// Internal header of the core. Every translation unit that includes it must
// first define BLOOM_KERNEL_NS to a name of its own: the templates below are
// then distinct entities per TU, so the linker can never merge an AVX2-compiled
// instantiation into the baseline path (an ODR trap with per-file -mavx2).
//
// Probe generation (Boost.Bloom's implementation notes):
//   h <- hash.lo | 1                               (odd, for the MCG below)
//   for each of the K subarrays:
//     p <- high64(h * r)                           (fastrange: position in [0, r))
//     h <- h * 0xf1357aea2e62a9c5 mod 2^64         (multiplicative congruential step)
//     the subfilter at byte p * stride selects its bits from h:
//       block / multiblock: successive log2(b)-bit fields above bit 0,
//         (64 - log2 b) / log2 b of them per hash, then h <- mulx64(h)
//         (b = block width in bits; in a Block uint64[N], field value n is
//         bit n / N of word n % N)
//       fast_multiblock32: 8 words per hash, word j gets bit
//         (j even: h >> (1 + 5(j/2)), j odd: h >> (32 + 5(j/2))) & 31
//       fast_multiblock64: 8 words per hash, word j gets bit (h >> (1 + 6j)) & 63
//       then h <- mulx64(h) for the next 8 words.
// cbf<K>: bit (lo + i * (hi | 1)) mod m for i in [0, K).
#pragma once

#ifndef BLOOM_KERNEL_NS
#error "define BLOOM_KERNEL_NS before including bloom_kernels.hpp"
#endif

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "bloom/bloom.hpp"

namespace sketch {
namespace bloom {
namespace BLOOM_KERNEL_NS {

constexpr uint64_t kMcg = 0xf1357aea2e62a9c5ull;

#ifndef BLOOM_PREFETCH_LINES
#define BLOOM_PREFETCH_LINES 64
#endif
// Filters smaller than this are taken to stay in the L2 cache.
constexpr uint64_t kCachedBytes = uint64_t(256) << 10;

inline __attribute__((always_inline)) uint64_t mulhi(uint64_t a, uint64_t b) {
    return uint64_t((static_cast<unsigned __int128>(a) * b) >> 64);
}
inline __attribute__((always_inline)) uint64_t mulx64(uint64_t x) {
    unsigned __int128 r = static_cast<unsigned __int128>(x) * 0x9E3779B97F4A7C15ull;
    return uint64_t(r >> 64) ^ uint64_t(r);
}

template <typename W>
inline __attribute__((always_inline)) W load(const uint8_t* p) {
    W w;
    std::memcpy(&w, p, sizeof w);
    return w;
}
template <typename W>
inline __attribute__((always_inline)) void store(uint8_t* p, W w) {
    std::memcpy(p, &w, sizeof w);
}

constexpr unsigned log2u(unsigned x) { return x <= 1 ? 0 : 1 + log2u(x / 2); }

// Calls f(n) for each of KP log2(BW)-bit fields of h (BW = block width in bits).
template <unsigned BW, unsigned KP, typename F>
inline __attribute__((always_inline)) void fields(uint64_t h, F&& f) {
    constexpr unsigned shift = log2u(BW);
    constexpr uint64_t mask = BW - 1;
    constexpr unsigned per_hash = (64 - shift) / shift;
    uint64_t x = h;
    // Unrolled whole: the field count is known, and a loop left rolled
    // costs a Boost-style fixed kernel's time again in branches.
#pragma GCC unroll 64
    for (unsigned t = 0; t < KP; ++t) {
        if (t != 0 && t % per_hash == 0) x = h = mulx64(h);
        x >>= shift;
        f(x & mask);
    }
}

// ---- subfilters: mark/check one subarray at p; bits() lists bit offsets ----

// mark, check and bits of a subfilter that names its bits through
// Sub::words(h, f) as f(word index, bit in that word), words of type W: one
// read-modify-write (or test) per bit.
template <typename Sub, typename W>
struct WordBits {
    static constexpr unsigned kWordBits = sizeof(W) * 8;
    static inline __attribute__((always_inline)) bool mark(uint8_t* p, uint64_t h) {
        bool changed = false;
        Sub::words(h, [&](unsigned w, unsigned b) {
            const W old = load<W>(p + w * sizeof(W));
            const W now = W(old | W(W(1) << b));
            changed |= now != old;
            store<W>(p + w * sizeof(W), now);
        });
        return changed;
    }
    static inline __attribute__((always_inline)) bool check(const uint8_t* p, uint64_t h) {
        bool ok = true;
        Sub::words(h, [&](unsigned w, unsigned b) { ok &= ((load<W>(p + w * sizeof(W)) >> b) & 1) != 0; });
        return ok;
    }
    template <typename F>
    static inline __attribute__((always_inline)) void bits(uint64_t h, F&& f) {
        Sub::words(h, [&](unsigned w, unsigned b) { f(w * kWordBits + b); });
    }
};

// block<W[NW], KP>
template <typename W, unsigned NW, unsigned KP>
struct BlockSub : WordBits<BlockSub<W, NW, KP>, W> {
    using Base = WordBits<BlockSub<W, NW, KP>, W>;
    static constexpr unsigned kWidth = Base::kWordBits * NW;
    static constexpr unsigned kUsed = sizeof(W) * NW;

    template <typename F>
    static inline __attribute__((always_inline)) void words(uint64_t h, F&& f) {
        fields<kWidth, KP>(h, [&](uint64_t n) { f(unsigned(n % NW), unsigned(n / NW)); });
    }
    // One word: its bits as one mask, built in a register, and the word
    // touched once. Several words: a bit at a time (a mask array would live
    // on the stack and be walked word by word).
    static inline __attribute__((always_inline)) W mask(uint64_t h) {
        W m = 0;
        fields<kWidth, KP>(h, [&](uint64_t n) { m |= W(W(1) << n); });
        return m;
    }
    static inline __attribute__((always_inline)) bool mark(uint8_t* p, uint64_t h) {
        if (NW > 1) return Base::mark(p, h);
        const W m = mask(h), old = load<W>(p);
        store<W>(p, W(old | m));
        return (old | m) != old;
    }
    static inline __attribute__((always_inline)) bool check(const uint8_t* p, uint64_t h) {
        if (NW > 1) return Base::check(p, h);
        const W m = mask(h);
        return (load<W>(p) & m) == m;
    }
};

// multiblock<W[NW], KP>: field j sets one bit in block j.
template <typename W, unsigned NW, unsigned KP>
struct MultiblockSub : WordBits<MultiblockSub<W, NW, KP>, W> {
    static constexpr unsigned kWidth = sizeof(W) * 8 * NW;
    static constexpr unsigned kUsed = sizeof(W) * NW * KP;

    template <typename F>
    static inline __attribute__((always_inline)) void words(uint64_t h, F&& f) {
        unsigned j = 0;
        fields<kWidth, KP>(h, [&](uint64_t n) { f(unsigned(j++ * NW + n % NW), unsigned(n / NW)); });
    }
};

// fast_multiblock32<KP> / fast_multiblock64<KP>, portable bit selection.
inline __attribute__((always_inline)) unsigned fm32_bit(uint64_t h, unsigned j) {
    return unsigned(h >> ((j & 1) ? 32 + 5 * (j >> 1) : 1 + 5 * (j >> 1))) & 31;
}
inline __attribute__((always_inline)) unsigned fm64_bit(uint64_t h, unsigned j) { return unsigned(h >> (1 + 6 * j)) & 63; }

template <typename W, unsigned KP>
struct FastSub : WordBits<FastSub<W, KP>, W> {
    static constexpr unsigned kUsed = sizeof(W) * KP;
    static inline __attribute__((always_inline)) unsigned bit(uint64_t h, unsigned j) {
        return sizeof(W) == 4 ? fm32_bit(h, j) : fm64_bit(h, j);
    }
    template <typename F>
    static inline __attribute__((always_inline)) void words(uint64_t h, F&& f) {
        for (unsigned c = 0; c * 8 < KP; ++c) {
            const unsigned lanes = KP - c * 8 < 8 ? KP - c * 8 : 8;
            for (unsigned j = 0; j < lanes; ++j) f(c * 8 + j, bit(h, j));
            h = mulx64(h);
        }
    }
};

// ---- drivers over the K subarrays ----

// The drivers' per-subarray lambdas are always_inline, as the functions are.
// To GCC a lambda is an ordinary function: where K calls outgrow its
// inliner's budget, one stays out of line, and what it captures by reference
// must then live in memory (classic<8>'s add stored and reloaded its probe
// state around every byte store, and or-ed the answer nobody asked for into a
// stack byte). The subfilters' lambdas are left to the compiler: forced
// inline, multiblock<uint32,8>'s mark became eight scalar read-modify-writes
// where GCC otherwise makes it one 256-bit or.
//
// Sub provides mark/check (possibly SIMD); Ref provides bits() for atomics.
// The kernels take the subarray count KC and the stride S as template
// arguments where the table knows them (0: read them from the span), so the
// common configurations run fixed, unrolled loops: KC = 1 for every layout's
// default, and classic<K> (KC = K, S = 1) for K up to kClassicFixedK.
template <typename Sub, typename Ref = Sub>
struct Driver {
    template <unsigned KC>
    static inline __attribute__((always_inline)) uint32_t subarrays(const Span& s) {
        return KC != 0 ? KC : s.k;
    }
    // The start of the next subarray of the item whose probe state is h
    // (advances h to the state the subfilter reads its bits from).
    template <unsigned S>
    static inline __attribute__((always_inline)) uint8_t* next(const Span& s, uint64_t& h) {
        const uint64_t p = mulhi(h, s.positions);
        h *= kMcg;
        return s.bits + p * (S != 0 ? S : s.stride);
    }
    // Calls f() once per subarray, in order, while it returns true; true if
    // it always did. Written out KC times when KC is known.
    template <typename F, unsigned... I>
    static inline __attribute__((always_inline)) bool each_fixed(F& f, std::integer_sequence<unsigned, I...>) {
        return ((void(I), f()) && ...);
    }
    template <unsigned KC, typename F>
    static inline __attribute__((always_inline)) bool each_subarray(const Span& s, F&& f) {
        if constexpr (KC != 0) {
            return each_fixed(f, std::make_integer_sequence<unsigned, KC>{});
        } else {
            for (uint32_t i = 0; i < s.k; ++i)
                if (!f()) return false;
            return true;
        }
    }
    // Starts loading the lines of the subarray at q, for writing (RW = 1) or
    // reading (RW = 0).
    template <int RW>
    static inline __attribute__((always_inline)) void fetch(const uint8_t* q) {
        __builtin_prefetch(q, RW, 3);
        if (Sub::kUsed > 1) __builtin_prefetch(q + Sub::kUsed - 1, RW, 3);
    }
    static inline __attribute__((always_inline)) void prefetch_at(const uint8_t* q) { fetch<1>(q); }

    // Fetch: prefetch each subarray as soon as its address is known, before
    // its bits are derived, as Boost.Bloom does on every probe. The one-item
    // calls of one subarray per item ask for it: on a filter beyond the
    // caches each call waits on a miss, which the early fetch overlaps with
    // the bit derivation. classic<K>'s do not: its K independent loads
    // already overlap one another, and K prefetches on top only add
    // instructions. The batch loops do not: their window has prefetched the
    // item already.
    // s by value: the byte stores could alias the caller's span, which would
    // make every subarray reload its fields.
    template <unsigned KC, unsigned S, bool Fetch = false>
    static inline __attribute__((always_inline)) bool insert1(const Span s, uint64_t lo) {
        uint64_t h = lo | 1;
        bool changed = false;
        each_subarray<KC>(s, [&]() __attribute__((always_inline)) {
            uint8_t* p = next<S>(s, h);
            if (Fetch) fetch<1>(p);
            changed |= Sub::mark(p, h);
            return true;
        });
        return changed;
    }
    template <unsigned KC, unsigned S, bool Fetch = false>
    static inline __attribute__((always_inline)) bool contains1(const Span& s, uint64_t lo) {
        uint64_t h = lo | 1;
        return each_subarray<KC>(s, [&]() __attribute__((always_inline)) {
            const uint8_t* p = next<S>(s, h);
            if (Fetch) fetch<0>(p);
            return Sub::check(p, h);
        });
    }
    template <unsigned KC, unsigned S>
    static inline __attribute__((always_inline)) void prefetch1(const Span& s, uint64_t lo) {
        uint64_t h = lo | 1;
        each_subarray<KC>(s, [&]() __attribute__((always_inline)) {
            prefetch_at(next<S>(s, h));
            return true;
        });
    }

    // Prefetch distance in items: enough lines in flight to cover memory
    // latency, not more than the core can track (BLOOM_PREFETCH_LINES). None
    // for a batch too short to fill the window, or a filter that stays in L2
    // (there prefetching only repeats the position arithmetic).
    static size_t distance(const Span& s, size_t n) {
        if (n < 8 || s.positions * s.stride < kCachedBytes) return 0;
        size_t c = BLOOM_PREFETCH_LINES / (s.k * (Sub::kUsed > 1 ? 2 : 1));
        return c < 2 ? 2 : c;
    }

    template <unsigned KC, unsigned S>
    static bool insert_one(const Span& s, Hash128 h) {
        return insert1<KC, S, KC == 1>(s, h.lo);
    }
    template <unsigned KC, unsigned S>
    static void add_one(const Span& s, Hash128 h) {
        insert1<KC, S, KC == 1>(s, h.lo);
    }
    template <unsigned KC, unsigned S>
    static void prefetch_one(const Span& s, Hash128 h) {
        prefetch1<KC, S>(s, h.lo);
    }
    template <unsigned KC, unsigned S>
    static bool contains_one(const Span& s, Hash128 h) {
        return contains1<KC, S, KC == 1>(s, h.lo);
    }

    // The batch loops work on a copy of the span: their byte stores could
    // alias the caller's, which would make every item reload it.
    template <unsigned KC, unsigned S>
    static void insert_batch(const Span s, const Hash128* hs, size_t n) {
        // A sliding window: item i + d is prefetched as item i is inserted.
        const size_t d = distance(s, n);
        for (size_t i = 0; i < d && i < n; ++i) prefetch1<KC, S>(s, hs[i].lo);
        for (size_t i = 0; i < n; ++i) {
            if (d != 0 && i + d < n) prefetch1<KC, S>(s, hs[i + d].lo);
            insert1<KC, S>(s, hs[i].lo);
        }
    }
    template <unsigned KC, unsigned S>
    static void insert_many(const Span& s, const Hash128* hs, size_t n) {
        insert_batch<KC, S>(s, hs, n);
    }
    // One subarray per item: each item's lookup is one test, and the window
    // prefetches items ahead.
    template <unsigned S>
    static size_t contains_window(const Span s, const Hash128* hs, size_t n, bool* out) {
        size_t found = 0;
        const size_t d = distance(s, n);
        for (size_t i = 0; i < d && i < n; ++i) prefetch1<1, S>(s, hs[i].lo);
        for (size_t i = 0; i < n; ++i) {
            if (d != 0 && i + d < n) prefetch1<1, S>(s, hs[i + d].lo);
            const bool hit = contains1<1, S>(s, hs[i].lo);
            if (out) out[i] = hit;
            found += hit;
        }
        return found;
    }
    // Several subarrays per item: breadth first over groups of 64 items.
    // Round j tests subarray j of every item still alive and prefetches its
    // next one; an item leaves at its first clear bit. Item by item, the
    // early exit is a branch that no predictor can learn (a miss fails at a
    // random subarray); here it only clears a bit of the alive mask.
    template <unsigned KC, unsigned S>
    static size_t contains_rounds(const Span s, const Hash128* hs, size_t n, bool* out) {
        constexpr size_t kGroup = 64;
        uint64_t state[kGroup];
        const uint8_t* at[kGroup];
        size_t found = 0;
        for (size_t start = 0; start < n; start += kGroup) {
            const size_t m = n - start < kGroup ? n - start : kGroup;
            for (size_t i = 0; i < m; ++i) {
                state[i] = hs[start + i].lo | 1;
                at[i] = next<S>(s, state[i]);
                prefetch_at(at[i]);
            }
            uint64_t alive = m == kGroup ? ~uint64_t(0) : (uint64_t(1) << m) - 1;
            for (uint32_t j = 0; j < subarrays<KC>(s) && alive != 0; ++j) {
                const bool last = j + 1 == subarrays<KC>(s);
                for (uint64_t todo = alive; todo != 0; todo &= todo - 1) {
                    const unsigned i = unsigned(__builtin_ctzll(todo));
                    const bool ok = Sub::check(at[i], state[i]);
                    alive &= ~(uint64_t(!ok) << i);
                    if (!last) {
                        at[i] = next<S>(s, state[i]);
                        prefetch_at(at[i]);
                    }
                }
            }
            if (out)
                for (size_t i = 0; i < m; ++i) out[start + i] = (alive >> i) & 1;
            found += size_t(__builtin_popcountll(alive));
        }
        return found;
    }
    template <unsigned KC, unsigned S>
    static size_t contains_many(const Span& s, const Hash128* hs, size_t n, bool* out) {
        return KC == 1 ? contains_window<S>(s, hs, n, out) : contains_rounds<KC, S>(s, hs, n, out);
    }

    // Thread-safe: every bit is set by a relaxed fetch_or on its aligned
    // 64-bit word (s.bits must be 8-byte aligned).
    static bool insert_atomic(const Span& s, Hash128 hash) {
        uint64_t* words = reinterpret_cast<uint64_t*>(s.bits);
        uint64_t h = hash.lo | 1;
        bool changed = false;
        for (uint32_t i = 0; i < s.k; ++i) {
            const uint64_t base = uint64_t(next<0>(s, h) - s.bits) * 8;
            Ref::bits(h, [&](uint64_t off) __attribute__((always_inline)) {
                const uint64_t b = base + off;
                const uint64_t m = uint64_t(1) << (b & 63);
                changed |= (__atomic_fetch_or(&words[b >> 6], m, __ATOMIC_RELAXED) & m) == 0;
            });
        }
        return changed;
    }
    static bool contains_concurrent(const Span& s, Hash128 hash) {
        const uint64_t* words = reinterpret_cast<const uint64_t*>(s.bits);
        uint64_t h = hash.lo | 1;
        for (uint32_t i = 0; i < s.k; ++i) {
            const uint64_t base = uint64_t(next<0>(s, h) - s.bits) * 8;
            bool ok = true;
            Ref::bits(h, [&](uint64_t off) __attribute__((always_inline)) {
                const uint64_t b = base + off;
                ok &= ((__atomic_load_n(&words[b >> 6], __ATOMIC_RELAXED) >> (b & 63)) & 1) != 0;
            });
            if (!ok) return false;
        }
        return true;
    }

    template <unsigned KC, unsigned S>
    static constexpr Ops ops() {
        return Ops{&insert_one<KC, S>,    &add_one<KC, S>,     &contains_one<KC, S>, &insert_many<KC, S>,
                   &contains_many<KC, S>, &insert_atomic,      &contains_concurrent, &prefetch_one<KC, S>};
    }
};

// Table of Ops for K' = 1..kMaxKp of one subfilter family.
template <template <unsigned> class Make, unsigned... I>
constexpr OpsRow make_row(std::integer_sequence<unsigned, I...>) {
    return OpsRow{{{Make<I + 1>::type::template ops<1, 0>()...}}, {{Make<I + 1>::type::template ops<0, 0>()...}}};
}

// The rows of a block-based family (BlockSub or MultiblockSub), one per block
// type; each family's rows are instantiated in a translation unit of its own.
template <template <typename, unsigned, unsigned> class Sub>
struct BlockFamilyRows {
    template <typename W, unsigned NW>
    struct Family {
        template <unsigned KP>
        struct Make {
            using type = Driver<Sub<W, NW, KP>>;
        };
    };
    using Seq = std::make_integer_sequence<unsigned, kMaxKp>;
    static inline const OpsRow rows[kBlockTypes] = {
        make_row<Family<uint8_t, 1>::template Make>(Seq{}),  make_row<Family<uint16_t, 1>::template Make>(Seq{}),
        make_row<Family<uint32_t, 1>::template Make>(Seq{}), make_row<Family<uint64_t, 1>::template Make>(Seq{}),
        make_row<Family<uint64_t, 2>::template Make>(Seq{}), make_row<Family<uint64_t, 4>::template Make>(Seq{}),
        make_row<Family<uint64_t, 8>::template Make>(Seq{}),
    };
};

}  // namespace BLOOM_KERNEL_NS
}  // namespace bloom
}  // namespace sketch
