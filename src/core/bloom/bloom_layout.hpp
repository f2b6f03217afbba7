// Bloom filter layouts: Boost.Bloom's filter<T, K, Subfilter, Stride> chosen
// at run time, plus `cbf<K>`, the classic bit array a counting filter
// projects to. A Layout names the configuration; a Geometry adds the size.
//
// Memory layout of every filter (the same in a varlena, a heap buffer or an
// mmap'd file): a bit array of `bytes` bytes, followed by kTailPad bytes that
// kernels may read (SIMD loads past a short subarray) but never set, kept
// zero. Bit order is little endian throughout: bit j of the array is bit
// (j & 7) of byte j >> 3, i.e. bit (j & 63) of the little-endian uint64 word
// j >> 6. A subfilter word of type uintN at byte offset o holds array bits
// 8o .. 8o + N - 1 (x86-64 is little endian; the core requires it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "error.hpp"

namespace sketch {
namespace bloom {

enum class Kind : uint8_t {
    block = 0,              // block<Block, K'>: K' bits in one Block
    multiblock = 1,         // multiblock<Block, K'>: one bit in each of K' consecutive Blocks
    fast_multiblock32 = 2,  // multiblock<uint32, K'> semantics, SIMD bit selection
    fast_multiblock64 = 3,  // multiblock<uint64, K'> semantics, SIMD bit selection
    cbf = 4,                // classic m-bit array, probes lo + i * (hi | 1) mod m (counting filter projection)
};

// Block types: an unsigned integer or an array of 2^N uint64 (N <= 3).
enum class BlockType : uint8_t { u8 = 0, u16 = 1, u32 = 2, u64 = 3, u64x2 = 4, u64x4 = 5, u64x8 = 6 };
constexpr unsigned kBlockTypes = 7;

constexpr unsigned kMaxK = 32;       // subarrays per insertion (classic: bits per insertion)
constexpr unsigned kMaxKp = 32;      // K': bits (or blocks) per subarray
// The largest bit array: 512 MiB less 4 KiB, so that a value's text form
// (two hex digits a byte, and the header) fits PostgreSQL's 1 GB allocation
// limit, and a value can always be output, copied and dumped.
constexpr uint64_t kMaxBytes = (uint64_t(1) << 29) - 4096;
constexpr uint64_t kMaxBits = kMaxBytes * 8;
// How error messages name that limit.
constexpr const char* kMaxBitsNote = "512 MiB less 4 KiB, so that its text form fits in 1 GB";
constexpr size_t kTailPad = 32;

struct Layout {
    Kind kind = Kind::fast_multiblock32;
    BlockType block = BlockType::u32;  // fast_multiblock32: u32, fast_multiblock64 and cbf: u64
    unsigned k = 1;       // 0 = not given (classic only: chosen for n and fpr)
    unsigned kp = 0;      // 0 = not given (chosen for n and fpr); cbf: always 1
    unsigned stride = 0;  // bytes; 0 = natural (the subarray's size); cbf: 0

    bool resolved() const { return k != 0 && kp != 0; }
    bool operator==(const Layout& o) const {
        return kind == o.kind && block == o.block && k == o.k && kp == o.kp && stride == o.stride;
    }
    bool operator!=(const Layout& o) const { return !(*this == o); }
};

// Parses a layout spec (spaces ignored, case-insensitive):
//   classic | classic<K>                       K bits per insertion (= K*block<uint8,1>)
//   [K*]block<B[,K']>[/S]                      B: uint8 uint16 uint32 uint64 uint64[2] uint64[4] uint64[8]
//   [K*]multiblock<B[,K']>[/S]
//   [K*]fast_multiblock32[<K'>][/S]
//   [K*]fast_multiblock64[<K'>][/S]
//   cbf<K>                                     counting-filter projection, m a power of two
// K defaults to 1 (classic: chosen), K' to "chosen for n and fpr", S (stride
// in bytes, 1 .. subarray size) to the subarray size. Throws invalid_parameter.
Layout parse_layout(const std::string& spec);
// The canonical spec: parse_layout(format_layout(l)) == l.
std::string format_layout(const Layout& l);

unsigned block_bytes(BlockType b);
const char* block_name(BlockType b);
bool is_classic(const Layout& l);  // K*block<uint8,1>, natural stride
// Bytes of one subarray (requires kp), and the effective stride in bytes.
unsigned used_bytes(const Layout& l);
unsigned stride_bytes(const Layout& l);
// Checks ranges of a resolved layout (k, kp, stride, block for the kind).
void validate_layout(const Layout& l);

struct Geometry {
    Layout layout;           // resolved
    uint64_t bytes = 0;      // bit array size
    uint64_t positions = 0;  // r: subarray start positions (cbf: 0)

    uint64_t bits() const { return bytes * 8; }
    bool operator==(const Geometry& o) const { return layout == o.layout && bytes == o.bytes; }
    bool operator!=(const Geometry& o) const { return !(*this == o); }
};

// The smallest geometry with at least `bits` bits (cbf: the next power of two,
// at least 64). Throws program_limit beyond kMaxBits.
Geometry geometry_for_bits(const Layout& l, uint64_t bits);
// The geometry with r subarray positions: bytes = (r - 1) * stride + used.
Geometry geometry_for_positions(const Layout& l, uint64_t r);
// Rebuilds the geometry of a stored array of `bytes` bytes; throws `code` if
// no geometry of layout l has exactly that size.
Geometry geometry_for_bytes(const Layout& l, uint64_t bytes, Errc code);

}  // namespace bloom
}  // namespace sketch
