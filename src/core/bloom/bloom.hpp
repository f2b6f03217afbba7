// The Bloom filter engine: kernels over a raw bit array (a palloc'd varlena
// payload, a heap buffer or an mmap'd file alike), dispatched once per call
// from a run-time Geometry to kernels compiled for that (layout, K').
//
//   Geometry g = capacity_for(n, fpr, parse_layout("fast_multiblock32<8>"));
//   Filter f(g);                       // or any zeroed array of g.bytes + kTailPad bytes,
//   f.insert(h);  f.contains(h);       // 8-byte aligned, with insert(g, bits, h) etc.
//
// The memory layout and bit order are described in bloom_layout.hpp.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "bloom/bloom_layout.hpp"
#include "hash.hpp"

namespace sketch {
namespace bloom {

// What a kernel needs to know about the array.
struct Span {
    uint8_t* bits;
    uint64_t positions;  // r (cbf: m - 1, the bit mask)
    uint32_t stride;     // bytes
    uint32_t k;
};

// One configuration's kernels.
struct Ops {
    bool (*insert_one)(const Span&, Hash128);                               // true if probably new
    void (*add_one)(const Span&, Hash128);                                  // insert_one, no answer to compute
    bool (*contains_one)(const Span&, Hash128);
    void (*insert_many)(const Span&, const Hash128*, size_t);              // prefetching batches
    size_t (*contains_many)(const Span&, const Hash128*, size_t, bool*);  // out may be null; returns hits
    bool (*insert_atomic)(const Span&, Hash128);                            // thread-safe, true if probably new
    bool (*contains_concurrent)(const Span&, Hash128);                      // safe beside insert_atomic
    void (*prefetch_one)(const Span&, Hash128);  // starts loading the item's lines (for writing)
};
// A family's kernels by K' (index K' - 1), compiled for one subarray per item
// (every layout's default but classic) and for K subarrays known at run time.
struct OpsRow {
    std::array<Ops, kMaxKp> one;
    std::array<Ops, kMaxKp> many;
};
// classic<K> (K*block<uint8,1>) kernels with K known at compile time, for
// K = 1 .. kClassicFixedK; larger K take the block row's run-time K kernels.
constexpr unsigned kClassicFixedK = 12;

// Code paths for the fast_multiblock layouts (the others are scalar only).
enum class Path { best, scalar, sse2, avx2 };
bool path_available(Path p);
Path best_path();  // by cpuid: avx2 if the CPU has it, else sse2
const char* path_name(Path p);

const Ops& ops_for(const Layout& resolved, Path path = Path::best);
Span span_for(const Geometry& g, uint8_t* bits);

// ---- operations on an array of g.bytes (+ kTailPad readable) bytes ----
inline bool insert(const Geometry& g, uint8_t* bits, Hash128 h, Path p = Path::best) {
    return ops_for(g.layout, p).insert_one(span_for(g, bits), h);
}
// insert without telling whether the item was new (cheaper where nobody asks).
inline void add(const Geometry& g, uint8_t* bits, Hash128 h, Path p = Path::best) {
    ops_for(g.layout, p).add_one(span_for(g, bits), h);
}
inline void insert_many(const Geometry& g, uint8_t* bits, const Hash128* hs, size_t n, Path p = Path::best) {
    ops_for(g.layout, p).insert_many(span_for(g, bits), hs, n);
}
inline bool contains(const Geometry& g, const uint8_t* bits, Hash128 h, Path p = Path::best) {
    return ops_for(g.layout, p).contains_one(span_for(g, const_cast<uint8_t*>(bits)), h);
}
inline size_t contains_many(const Geometry& g, const uint8_t* bits, const Hash128* hs, size_t n, bool* out,
                            Path p = Path::best) {
    return ops_for(g.layout, p).contains_many(span_for(g, const_cast<uint8_t*>(bits)), hs, n, out);
}
// Thread-safe insert (relaxed atomic fetch_or on 64-bit words; bits must be
// 8-byte aligned) and the lookup that may run beside it. Returns whether the
// item was probably new (some bit was clear).
inline bool insert_atomic(const Geometry& g, uint8_t* bits, Hash128 h) {
    return ops_for(g.layout, Path::scalar).insert_atomic(span_for(g, bits), h);
}
inline bool contains_concurrent(const Geometry& g, const uint8_t* bits, Hash128 h) {
    return ops_for(g.layout, Path::scalar).contains_concurrent(span_for(g, const_cast<uint8_t*>(bits)), h);
}

uint64_t count_bits(const uint8_t* bits, uint64_t bytes);
void union_into(uint8_t* dst, const uint8_t* src, uint64_t bytes);
// union_into beside insert_atomic: a relaxed fetch_or per word of src with a
// bit set. dst 8-byte aligned; a last partial word is taken whole, so both
// arrays need their tail pad (zero in src).
void union_into_atomic(uint8_t* dst, const uint8_t* src, uint64_t bytes);
void intersect_into(uint8_t* dst, const uint8_t* src, uint64_t bytes);

// ---- sizing (bloom_formulas.cpp) ----
// FPR after n distinct insertions into m bits (Boost.Bloom's formulas,
// including stride; cbf: the classic (1 - e^{-kn/m})^k). resolved layout.
double fpr_for(double n, double m_bits, const Layout& resolved);
// The smallest geometry of the layout whose fpr_for(n) <= fpr; a layout
// without K' (or classic without K) gets the value that needs the least
// memory. A null-like default (see default_layout) when `l` is nullptr.
Geometry capacity_for(uint64_t n, double fpr, const Layout& l);
// The layout bloom_empty uses when none is given: fast_multiblock32 (the
// fastest) with the K' that needs the least memory, unless fast_multiblock64
// needs at least 10% less memory (fpr below about 1e-4).
Layout default_layout(uint64_t n, double fpr);
// Expected distinct bits set per insertion into an empty array (used to
// estimate counts), and the estimate of distinct insertions from bits set.
double bits_per_insert(const Layout& resolved);
double estimated_count(const Geometry& g, uint64_t bits_set);
void check_n_fpr(double n, double fpr);  // n >= 1, 0 < fpr < 1, else invalid_parameter

// ---- cbf<K> (counting-filter projection target) ----
// An empty cbf<k> geometry of m bits (m a power of two, 64 <= m <= kMaxBits).
// Its array is bits[i >> 6] bit (i & 63) as little-endian uint64 words, so a
// projection sets bit i wherever counter i is nonzero.
Geometry cbf_geometry(unsigned k, uint64_t m_bits);

// An owning filter for tests, benchmarks and the core's users outside
// PostgreSQL (zeroed, 64-byte aligned, with the tail pad).
class Filter {
public:
    explicit Filter(const Geometry& g);
    Filter(const Filter& o);
    Filter(Filter&&) = default;
    Filter& operator=(const Filter&) = delete;
    const Geometry& geometry() const { return g_; }
    uint8_t* bits() { return data_; }
    const uint8_t* bits() const { return data_; }
    bool insert(Hash128 h, Path p = Path::best) { return bloom::insert(g_, data_, h, p); }
    bool contains(Hash128 h, Path p = Path::best) const { return bloom::contains(g_, data_, h, p); }
    bool operator==(const Filter& o) const;

private:
    Geometry g_;
    std::vector<uint64_t> storage_;
    uint8_t* data_;
};

}  // namespace bloom
}  // namespace sketch
