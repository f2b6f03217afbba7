#include "cbf_format.hpp"

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

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

}  // namespace

void write_header(uint8_t* out, const Geometry& g) {
    out[0] = kFormatVersion;
    out[1] = static_cast<uint8_t>(g.k);
    out[2] = g.scheme;
    out[3] = 0;
    put32(out + 4, 0);
    put64(out + 8, g.m);
    put64(out + 16, g.capacity);
    uint64_t fpr_bits;
    std::memcpy(&fpr_bits, &g.fpr, 8);
    put64(out + 24, fpr_bits);
    put64(out + 32, g.seed);
    put32(out + 40, 0);
}

View read_value(uint8_t* data, size_t len, uint64_t max_counters, Errc code) {
    if (len < kHeaderBytes) fail(code, "counting Bloom filter value is %zu bytes, shorter than its %zu-byte header", len, kHeaderBytes);
    if (data[0] != kFormatVersion)
        fail(code, "unsupported counting Bloom filter format version %u (this build reads version %u)",
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
    if (get32(data + 4) != 0 || get32(data + 40) != 0) fail(code, "counting Bloom filter header has nonzero reserved bytes");
    check_geometry(v.g, max_counters, code);
    const size_t expected = value_bytes(v.g);
    if (len != expected)
        fail(code, "counting Bloom filter value is %zu bytes, but %llu counters need %zu", len,
             static_cast<unsigned long long>(v.g.m), expected);
    v.counters = data + kHeaderBytes;
    return v;
}

size_t hex_text_bytes(size_t value_len) { return 2 + 2 * value_len; }

void write_hex(const uint8_t* data, size_t len, char* out) {
    static const char digits[] = "0123456789abcdef";
    *out++ = '\\';
    *out++ = 'x';
    for (size_t i = 0; i < len; ++i) {
        *out++ = digits[data[i] >> 4];
        *out++ = digits[data[i] & 15];
    }
    *out = '\0';
}

size_t hex_decoded_bytes(const char* text, size_t text_len) {
    if (text_len < 2 || text[0] != '\\' || text[1] != 'x')
        fail(Errc::invalid_text, "invalid input syntax for type cbf: expected \"\\x\" followed by hex digits");
    if ((text_len - 2) % 2 != 0) fail(Errc::invalid_text, "invalid input syntax for type cbf: odd number of hex digits");
    return (text_len - 2) / 2;
}

void read_hex(const char* text, size_t text_len, uint8_t* out) {
    const size_t n = hex_decoded_bytes(text, text_len);
    for (size_t i = 0; i < n; ++i) {
        const int hi = hex_digit(text[2 + 2 * i]), lo = hex_digit(text[3 + 2 * i]);
        if (hi < 0 || lo < 0)
            fail(Errc::invalid_text, "invalid input syntax for type cbf: \"%c%c\" is not a hex byte", text[2 + 2 * i],
                 text[3 + 2 * i]);
        out[i] = static_cast<uint8_t>(hi << 4 | lo);
    }
}

}  // namespace sketch::cbf
