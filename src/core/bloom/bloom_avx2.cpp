// AVX2 kernels for fast_multiblock32/64, compiled with -mavx2 -mmove-max=256
// (Makefile) and reached only when cpuid reports AVX2. Bit selection as in
// bloom_kernels.hpp, eight words per hash: one _mm256_srlv picks the eight
// fields, one _mm256_sllv turns them into single-bit masks.
#define BLOOM_KERNEL_NS kernels_avx2
#include "bloom/bloom_dispatch.hpp"
#include "bloom/bloom_kernels.hpp"

#if defined(__x86_64__) && defined(__AVX2__)
#include <immintrin.h>

namespace sketch {
namespace bloom {
namespace BLOOM_KERNEL_NS {
namespace {

using Seq = std::make_integer_sequence<unsigned, kMaxKp>;

alignas(32) const int32_t kLaneMask32[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
alignas(32) const int64_t kLaneMask64[8] = {-1, -1, -1, -1, 0, 0, 0, 0};

inline __attribute__((always_inline)) __m256i lanes32(unsigned lanes) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kLaneMask32 + 8 - lanes));
}
inline __attribute__((always_inline)) __m256i lanes64(unsigned lanes) {  // lanes in 1..4
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kLaneMask64 + 4 - lanes));
}

template <unsigned KP>
struct Fast32Avx2 {
    static constexpr unsigned kUsed = 4 * KP;
    static inline __attribute__((always_inline)) __m256i pattern(uint64_t h, unsigned lanes) {
        // 32-bit lanes of set1_epi64x(h) alternate low and high halves of h.
        const __m256i shifts = _mm256_setr_epi32(1, 0, 6, 5, 11, 10, 16, 15);
        __m256i x = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi64x(int64_t(h)), shifts), _mm256_set1_epi32(31));
        __m256i m = _mm256_sllv_epi32(_mm256_set1_epi32(1), x);
        return lanes == 8 ? m : _mm256_and_si256(m, lanes32(lanes));
    }
    static inline __attribute__((always_inline)) bool mark(uint8_t* p, uint64_t h) {
        bool had = true;
        for (unsigned c = 0; c * 8 < KP; ++c) {
            const unsigned lanes = KP - c * 8 < 8 ? KP - c * 8 : 8;
            const __m256i m = pattern(h, lanes);
            __m256i* q = reinterpret_cast<__m256i*>(p + 32 * c);
            const __m256i old = _mm256_loadu_si256(q);
            had &= _mm256_testc_si256(old, m) != 0;
            _mm256_storeu_si256(q, _mm256_or_si256(old, m));
            h = mulx64(h);
        }
        return !had;
    }
    static inline __attribute__((always_inline)) bool check(const uint8_t* p, uint64_t h) {
        bool ok = true;
        for (unsigned c = 0; c * 8 < KP; ++c) {
            const unsigned lanes = KP - c * 8 < 8 ? KP - c * 8 : 8;
            const __m256i m = pattern(h, lanes);
            ok &= _mm256_testc_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32 * c)), m) != 0;
            h = mulx64(h);
        }
        return ok;
    }
};

template <unsigned KP>
struct Fast64Avx2 {
    static constexpr unsigned kUsed = 8 * KP;
    static inline __attribute__((always_inline)) void pattern(uint64_t h, unsigned lanes, __m256i& lo, __m256i& hi) {
        const __m256i v = _mm256_set1_epi64x(int64_t(h));
        const __m256i mask = _mm256_set1_epi64x(63), one = _mm256_set1_epi64x(1);
        lo = _mm256_sllv_epi64(one, _mm256_and_si256(_mm256_srlv_epi64(v, _mm256_setr_epi64x(1, 7, 13, 19)), mask));
        hi = _mm256_sllv_epi64(one, _mm256_and_si256(_mm256_srlv_epi64(v, _mm256_setr_epi64x(25, 31, 37, 43)), mask));
        if (lanes < 4) lo = _mm256_and_si256(lo, lanes64(lanes));
        if (lanes > 4 && lanes < 8) hi = _mm256_and_si256(hi, lanes64(lanes - 4));
    }
    static inline __attribute__((always_inline)) bool mark(uint8_t* p, uint64_t h) {
        bool had = true;
        for (unsigned c = 0; c * 8 < KP; ++c) {
            const unsigned lanes = KP - c * 8 < 8 ? KP - c * 8 : 8;
            __m256i lo, hi;
            pattern(h, lanes, lo, hi);
            __m256i* q = reinterpret_cast<__m256i*>(p + 64 * c);
            __m256i old = _mm256_loadu_si256(q);
            had &= _mm256_testc_si256(old, lo) != 0;
            _mm256_storeu_si256(q, _mm256_or_si256(old, lo));
            if (lanes > 4) {
                old = _mm256_loadu_si256(q + 1);
                had &= _mm256_testc_si256(old, hi) != 0;
                _mm256_storeu_si256(q + 1, _mm256_or_si256(old, hi));
            }
            h = mulx64(h);
        }
        return !had;
    }
    static inline __attribute__((always_inline)) bool check(const uint8_t* p, uint64_t h) {
        bool ok = true;
        for (unsigned c = 0; c * 8 < KP; ++c) {
            const unsigned lanes = KP - c * 8 < 8 ? KP - c * 8 : 8;
            __m256i lo, hi;
            pattern(h, lanes, lo, hi);
            const __m256i* q = reinterpret_cast<const __m256i*>(p + 64 * c);
            ok &= _mm256_testc_si256(_mm256_loadu_si256(q), lo) != 0;
            if (lanes > 4) ok &= _mm256_testc_si256(_mm256_loadu_si256(q + 1), hi) != 0;
            h = mulx64(h);
        }
        return ok;
    }
};

template <unsigned KP>
struct Make32 {
    using type = Driver<Fast32Avx2<KP>, FastSub<uint32_t, KP>>;
};
template <unsigned KP>
struct Make64 {
    using type = Driver<Fast64Avx2<KP>, FastSub<uint64_t, KP>>;
};
const OpsRow kFast32 = make_row<Make32>(Seq{});
const OpsRow kFast64 = make_row<Make64>(Seq{});

}  // namespace
}  // namespace BLOOM_KERNEL_NS

const OpsRow* dispatch::avx2_row(Kind kind) {
    return kind == Kind::fast_multiblock64 ? &BLOOM_KERNEL_NS::kFast64 : &BLOOM_KERNEL_NS::kFast32;
}

}  // namespace bloom
}  // namespace sketch

#else

namespace sketch {
namespace bloom {
const OpsRow* dispatch::avx2_row(Kind) { return nullptr; }
}  // namespace bloom
}  // namespace sketch

#endif
