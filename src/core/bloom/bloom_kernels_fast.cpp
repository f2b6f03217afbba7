// fast_multiblock32/64 kernels for the baseline ISA: portable scalar code for
// both, and SSE2 for fast_multiblock32 (SSE2 is part of x86-64). Same bits as
// the AVX2 kernels in bloom_avx2.cpp (tested).
#define BLOOM_KERNEL_NS kernels_fast
#include "bloom/bloom_dispatch.hpp"
#include "bloom/bloom_kernels.hpp"

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

namespace sketch {
namespace bloom {
namespace BLOOM_KERNEL_NS {
namespace {

using Seq = std::make_integer_sequence<unsigned, kMaxKp>;

template <unsigned KP>
struct Fast32Scalar {
    using type = Driver<FastSub<uint32_t, KP>>;
};
template <unsigned KP>
struct Fast64Scalar {
    using type = Driver<FastSub<uint64_t, KP>>;
};

const OpsRow kFast32Scalar = make_row<Fast32Scalar>(Seq{});
const OpsRow kFast64Scalar = make_row<Fast64Scalar>(Seq{});

#if defined(__x86_64__)
alignas(16) const int32_t kLaneMask[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};

// SSE2 has no per-lane variable shift: 2^x comes from the float whose
// exponent field is x + 127, truncated back to an integer (x = 31 yields
// 0x80000000, the "integer indefinite", which is exactly 2^31).
template <unsigned KP>
struct Fast32Sse2 {
    static constexpr unsigned kUsed = 4 * KP;

    template <typename F>
    static inline __attribute__((always_inline)) bool chunks(uint64_t h, F&& f) {
        bool result = true;
        for (unsigned c = 0; c * 8 < KP; ++c) {
            const unsigned lanes = KP - c * 8 < 8 ? KP - c * 8 : 8;
            alignas(16) int32_t x[8];
            for (unsigned j = 0; j < 8; ++j) x[j] = int32_t((fm32_bit(h, j) + 127u) << 23);
            __m128i lo = _mm_cvttps_epi32(_mm_castsi128_ps(_mm_load_si128(reinterpret_cast<const __m128i*>(x))));
            __m128i hi = _mm_cvttps_epi32(_mm_castsi128_ps(_mm_load_si128(reinterpret_cast<const __m128i*>(x + 4))));
            lo = _mm_and_si128(lo, _mm_loadu_si128(reinterpret_cast<const __m128i*>(kLaneMask + 8 - lanes)));
            hi = _mm_and_si128(hi, _mm_loadu_si128(reinterpret_cast<const __m128i*>(lanes > 4 ? kLaneMask + 12 - lanes : kLaneMask + 8)));
            result &= f(c, lanes, lo, hi);
            h = mulx64(h);
        }
        return result;
    }
    static inline __attribute__((always_inline)) bool covers(__m128i x, __m128i m) {
        return _mm_movemask_epi8(_mm_cmpeq_epi32(_mm_and_si128(x, m), m)) == 0xFFFF;
    }
    static inline __attribute__((always_inline)) bool mark(uint8_t* p, uint64_t h) {
        return !chunks(h, [&](unsigned c, unsigned lanes, __m128i lo, __m128i hi) {
            __m128i* q = reinterpret_cast<__m128i*>(p + 32 * c);
            __m128i old = _mm_loadu_si128(q);
            bool had = covers(old, lo);
            _mm_storeu_si128(q, _mm_or_si128(old, lo));
            if (lanes > 4) {
                old = _mm_loadu_si128(q + 1);
                had &= covers(old, hi);
                _mm_storeu_si128(q + 1, _mm_or_si128(old, hi));
            }
            return had;
        });
    }
    static inline __attribute__((always_inline)) bool check(const uint8_t* p, uint64_t h) {
        return chunks(h, [&](unsigned c, unsigned lanes, __m128i lo, __m128i hi) {
            const __m128i* q = reinterpret_cast<const __m128i*>(p + 32 * c);
            bool ok = covers(_mm_loadu_si128(q), lo);
            if (lanes > 4) ok &= covers(_mm_loadu_si128(q + 1), hi);
            return ok;
        });
    }
};
template <unsigned KP>
struct Fast32Sse2Make {
    using type = Driver<Fast32Sse2<KP>, FastSub<uint32_t, KP>>;
};
const OpsRow kFast32Sse2 = make_row<Fast32Sse2Make>(Seq{});
#endif

}  // namespace
}  // namespace BLOOM_KERNEL_NS

const OpsRow& dispatch::fast_row(Kind kind, Path p) {
    using namespace BLOOM_KERNEL_NS;
    if (kind == Kind::fast_multiblock64) return kFast64Scalar;
#if defined(__x86_64__)
    if (p == Path::sse2) return kFast32Sse2;
#else
    (void)p;
#endif
    return kFast32Scalar;
}

}  // namespace bloom
}  // namespace sketch
