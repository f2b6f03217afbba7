#include "cbf/cbf_format.hpp"

#include <cstring>

namespace sketch::cbf {


namespace {

// Little-endian fields through memcpy: single loads and stores on the usual hosts.
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
inline uint32_t to_le(uint32_t v) { return __builtin_bswap32(v); }
inline uint64_t to_le(uint64_t v) { return __builtin_bswap64(v); }
#else
inline uint32_t to_le(uint32_t v) { return v; }
inline uint64_t to_le(uint64_t v) { return v; }
#endif
inline void put32(uint8_t* p, uint32_t v) {
    v = to_le(v);
    std::memcpy(p, &v, 4);
}
inline void put64(uint8_t* p, uint64_t v) {
    v = to_le(v);
    std::memcpy(p, &v, 8);
}
inline uint32_t get32(const uint8_t* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return to_le(v);
}
inline uint64_t get64(const uint8_t* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return to_le(v);
}

}  // namespace

void write_header(uint8_t* out, const Geometry& g, ItemClass item) {
    out[0] = item.known() ? 2 : 1;
    out[1] = static_cast<uint8_t>(g.k);
    out[2] = g.scheme;
    out[3] = 0;
    put32(out + 4, 0);
    out[4] = static_cast<uint8_t>(item.code);
    put64(out + 8, g.m);
    put64(out + 16, g.capacity);
    uint64_t fpr_bits;
    std::memcpy(&fpr_bits, &g.fpr, 8);
    put64(out + 24, fpr_bits);
    put64(out + 32, g.seed);
    put32(out + 40, item.type);
}

View read_value(uint8_t* data, size_t len, uint64_t max_counters, Errc code) {
    if (len < kHeaderBytes) fail(code, "counting Bloom filter value is %zu bytes, shorter than its %zu-byte header", len, kHeaderBytes);
    if (data[0] == 0 || data[0] > kFormatVersion)
        fail(code, "unsupported counting Bloom filter format version %u (this build reads versions 1 to %u)",
             static_cast<unsigned>(data[0]), static_cast<unsigned>(kFormatVersion));
    View v;
    v.g.k = data[1];
    v.g.scheme = data[2];
    v.g.m = get64(data + 8);
    v.g.capacity = get64(data + 16);
    const uint64_t fpr_bits = get64(data + 24);
    std::memcpy(&v.g.fpr, &fpr_bits, 8);
    v.g.seed = get64(data + 32);
    if (data[3] != 0) fail(code, "counting Bloom filter header has unknown flags 0x%02x", data[3]);
    const uint8_t item_code = data[4];
    const uint32_t item_type = get32(data + 40);
    if (data[5] != 0 || data[6] != 0 || data[7] != 0 || (data[0] == 1 && (item_code != 0 || item_type != 0)))
        fail(code, "counting Bloom filter header has nonzero reserved bytes");
    if (data[0] == 2 && (!decode_item_class(item_code, item_type, &v.item) || !v.item.known()))
        fail(code, "counting Bloom filter header has item class %u with type %u, not one this build knows",
             static_cast<unsigned>(item_code), static_cast<unsigned>(item_type));
    check_geometry(v.g, max_counters, code);
    const size_t expected = value_bytes(v.g);
    if (len != expected)
        fail(code, "counting Bloom filter value is %zu bytes, but %llu counters need %zu", len,
             static_cast<unsigned long long>(v.g.m), expected);
    v.counters = data + kHeaderBytes;
    return v;
}

}  // namespace sketch::cbf
