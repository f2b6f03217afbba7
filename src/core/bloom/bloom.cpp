// Dispatch from a run-time layout to its compiled kernels, the cbf<K> kernels,
// and the whole-array operations.
#define BLOOM_KERNEL_NS kernels_cbf
#include "bloom/bloom.hpp"

#include "bloom/bloom_dispatch.hpp"
#include "bloom/bloom_kernels.hpp"

namespace sketch {
namespace bloom {

namespace BLOOM_KERNEL_NS {
namespace {

// cbf<K>: bit (lo + i * (hi | 1)) & mask, i = 0..K-1; s.positions holds the mask.
struct Cbf {
    template <typename F>
    static inline __attribute__((always_inline)) void probes(const Span& s, Hash128 h, F&& f) {
        const uint64_t step = h.hi | 1;
        uint64_t p = h.lo;
        for (uint32_t i = 0; i < s.k; ++i, p += step) f(p & s.positions);
    }
    static bool insert_one(const Span& s, Hash128 h) {
        uint64_t* w = reinterpret_cast<uint64_t*>(s.bits);
        bool changed = false;
        probes(s, h, [&](uint64_t b) {
            const uint64_t m = uint64_t(1) << (b & 63);
            changed |= (w[b >> 6] & m) == 0;
            w[b >> 6] |= m;
        });
        return changed;
    }
    static void add_one(const Span& s, Hash128 h) {
        uint64_t* w = reinterpret_cast<uint64_t*>(s.bits);
        probes(s, h, [&](uint64_t b) { w[b >> 6] |= uint64_t(1) << (b & 63); });
    }
    static bool contains_one(const Span& s, Hash128 h) {
        const uint64_t* w = reinterpret_cast<const uint64_t*>(s.bits);
        bool ok = true;
        probes(s, h, [&](uint64_t b) { ok &= ((w[b >> 6] >> (b & 63)) & 1) != 0; });
        return ok;
    }
    static void prefetch(const Span& s, Hash128 h) {
        probes(s, h, [&](uint64_t b) { __builtin_prefetch(s.bits + (b >> 3), 1, 3); });
    }
    static size_t chunk(const Span& s) { return s.k >= 16 ? 4 : 64 / s.k; }
    static void insert_many(const Span& s, const Hash128* hs, size_t n) {
        const size_t c = chunk(s);
        for (size_t start = 0; start < n; start += c) {
            const size_t end = start + c < n ? start + c : n;
            if (n >= 8)
                for (size_t i = start; i < end; ++i) prefetch(s, hs[i]);
            for (size_t i = start; i < end; ++i) insert_one(s, hs[i]);
        }
    }
    static size_t contains_many(const Span& s, const Hash128* hs, size_t n, bool* out) {
        const size_t c = chunk(s);
        size_t found = 0;
        for (size_t start = 0; start < n; start += c) {
            const size_t end = start + c < n ? start + c : n;
            if (n >= 8)
                for (size_t i = start; i < end; ++i) prefetch(s, hs[i]);
            for (size_t i = start; i < end; ++i) {
                bool hit = contains_one(s, hs[i]);
                if (out) out[i] = hit;
                found += hit;
            }
        }
        return found;
    }
    static bool insert_atomic(const Span& s, Hash128 h) {
        uint64_t* w = reinterpret_cast<uint64_t*>(s.bits);
        bool changed = false;
        probes(s, h, [&](uint64_t b) {
            const uint64_t m = uint64_t(1) << (b & 63);
            changed |= (__atomic_fetch_or(&w[b >> 6], m, __ATOMIC_RELAXED) & m) == 0;
        });
        return changed;
    }
    static bool contains_concurrent(const Span& s, Hash128 h) {
        const uint64_t* w = reinterpret_cast<const uint64_t*>(s.bits);
        bool ok = true;
        probes(s, h, [&](uint64_t b) { ok &= ((__atomic_load_n(&w[b >> 6], __ATOMIC_RELAXED) >> (b & 63)) & 1) != 0; });
        return ok;
    }
};

const Ops kCbfOps{&Cbf::insert_one, &Cbf::add_one, &Cbf::contains_one, &Cbf::insert_many, &Cbf::contains_many, &Cbf::insert_atomic,
                  &Cbf::contains_concurrent, &Cbf::prefetch};

}  // namespace
}  // namespace BLOOM_KERNEL_NS

using BLOOM_KERNEL_NS::load;
using BLOOM_KERNEL_NS::store;

const Ops& dispatch::cbf_ops() { return BLOOM_KERNEL_NS::kCbfOps; }

bool path_available(Path p) {
    switch (p) {
        case Path::best:
        case Path::scalar: return true;
#if defined(__x86_64__)
        case Path::sse2: return true;
        case Path::avx2: return dispatch::avx2_row(Kind::fast_multiblock32) != nullptr && __builtin_cpu_supports("avx2");
#else
        default: return false;
#endif
    }
    return false;
}

Path best_path() {
    static const Path best = path_available(Path::avx2) ? Path::avx2 : path_available(Path::sse2) ? Path::sse2 : Path::scalar;
    return best;
}

const char* path_name(Path p) {
    switch (p) {
        case Path::best: return path_name(best_path());
        case Path::scalar: return "scalar";
        case Path::sse2: return "sse2";
        case Path::avx2: return "avx2";
    }
    return "?";
}

const Ops& ops_for(const Layout& l, Path path) {
    if (l.kp < 1 || l.kp > kMaxKp || unsigned(l.block) >= kBlockTypes) fail(Errc::internal, "unresolved bloom layout");
    const unsigned i = l.kp - 1;
    const bool one = l.k == 1;
    switch (l.kind) {
        case Kind::block:
            if (is_classic(l))
                if (const Ops* fixed = dispatch::classic_ops(l.k)) return *fixed;
            return one ? dispatch::block_row(l.block).one[i] : dispatch::block_row(l.block).many[i];
        case Kind::multiblock: return one ? dispatch::multiblock_row(l.block).one[i] : dispatch::multiblock_row(l.block).many[i];
        case Kind::fast_multiblock32:
        case Kind::fast_multiblock64:
            if (path == Path::best) path = best_path();
            if (path == Path::avx2) {
                if (!path_available(Path::avx2)) fail(Errc::invalid_parameter, "this CPU has no AVX2");
                const OpsRow& row = *dispatch::avx2_row(l.kind);
                return one ? row.one[i] : row.many[i];
            }
            return one ? dispatch::fast_row(l.kind, path).one[i] : dispatch::fast_row(l.kind, path).many[i];
        case Kind::cbf: return dispatch::cbf_ops();
    }
    fail(Errc::internal, "unknown bloom layout kind");
}

Span span_for(const Geometry& g, uint8_t* bits) {
    Span s;
    s.bits = bits;
    s.k = g.layout.k;
    if (g.layout.kind == Kind::cbf) {
        s.positions = g.bits() - 1;
        s.stride = 0;
    } else {
        s.positions = g.positions;
        s.stride = stride_bytes(g.layout);
    }
    return s;
}

void union_into(uint8_t* dst, const uint8_t* src, uint64_t bytes) {
    uint64_t i = 0;
    for (; i + 8 <= bytes; i += 8) store<uint64_t>(dst + i, load<uint64_t>(dst + i) | load<uint64_t>(src + i));
    for (; i < bytes; ++i) dst[i] |= src[i];
}

void union_into_atomic(uint8_t* dst, const uint8_t* src, uint64_t bytes) {
    auto* words = reinterpret_cast<uint64_t*>(dst);
    for (uint64_t i = 0; i < bytes; i += 8) {
        const uint64_t w = load<uint64_t>(src + i);
        if (w != 0) __atomic_fetch_or(words + i / 8, w, __ATOMIC_RELAXED);
    }
}

void intersect_into(uint8_t* dst, const uint8_t* src, uint64_t bytes) {
    uint64_t i = 0;
    for (; i + 8 <= bytes; i += 8) store<uint64_t>(dst + i, load<uint64_t>(dst + i) & load<uint64_t>(src + i));
    for (; i < bytes; ++i) dst[i] &= src[i];
}

Geometry cbf_geometry(unsigned k, uint64_t m_bits) {
    Layout l;
    l.kind = Kind::cbf;
    l.block = BlockType::u64;
    l.k = k;
    l.kp = 1;
    l.stride = 0;
    if (m_bits < 64 || (m_bits & (m_bits - 1)) != 0)
        fail(Errc::invalid_parameter, "cbf bit array size must be a power of two of at least 64 bits, got %llu",
             static_cast<unsigned long long>(m_bits));
    return geometry_for_bits(l, m_bits);
}

Filter::Filter(const Geometry& g) : g_(g), storage_((g.bytes + kTailPad + 63) / 8 + 8, 0) {
    uintptr_t a = reinterpret_cast<uintptr_t>(storage_.data());
    data_ = reinterpret_cast<uint8_t*>((a + 63) & ~uintptr_t(63));
}

Filter::Filter(const Filter& o) : Filter(o.g_) { std::memcpy(data_, o.data_, g_.bytes); }

bool Filter::operator==(const Filter& o) const {
    return g_ == o.g_ && std::memcmp(data_, o.data_, g_.bytes) == 0;
}

}  // namespace bloom
}  // namespace sketch
