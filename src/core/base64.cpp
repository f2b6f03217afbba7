// Base64 digits, a group of 3 bytes (4 digits) at a time through tables.
#include "base64.hpp"

#include <cstring>

#include "error.hpp"

namespace sketch::base64 {

namespace {

const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr uint32_t kBad = uint32_t(1) << 31;

// The two digits of each 12-bit value: two lookups per group of 3 bytes.
struct PairTable {
    char pair[4096][2];
    PairTable() {
        for (unsigned v = 0; v < 4096; ++v) {
            pair[v][0] = kAlphabet[v >> 6];
            pair[v][1] = kAlphabet[v & 63];
        }
    }
};

// Per position in a group, each character's 6 bits already shifted into
// place, or kBad: a group is the OR of four lookups.
struct DigitTables {
    uint32_t at[4][256];
    DigitTables() {
        for (auto& position : at)
            for (uint32_t& v : position) v = kBad;
        for (unsigned d = 0; d < 64; ++d)
            for (unsigned p = 0; p < 4; ++p) at[p][uint8_t(kAlphabet[d])] = uint32_t(d) << (18 - 6 * p);
    }
};

const PairTable kPairs;
const DigitTables kDigits;

inline uint32_t group_value(const char* g, unsigned digits) {
    uint32_t v = 0;
    for (unsigned p = 0; p < digits; ++p) v |= kDigits.at[p][uint8_t(g[p])];
    return v;
}

[[noreturn]] void not_base64(const char* group, const char* type) {
    fail(Errc::invalid_text, "invalid input syntax for type %s: \"%.4s\" is not a group of base64 digits", type, group);
}

size_t padding_of(const char* digits, size_t len) {
    if (len == 0) return 0;
    return digits[len - 1] != '=' ? 0 : digits[len - 2] != '=' ? 1 : 2;
}

}  // namespace

// The 4 digits of a group of 3 bytes (v: the first byte highest).
static inline void write_group(uint32_t v, char* out) {
    std::memcpy(out, kPairs.pair[v >> 12], 2);
    std::memcpy(out + 2, kPairs.pair[v & 0xfff], 2);
}

void write_digits(const uint8_t* data, size_t n, char* out) {
    size_t i = 0;
    // Two groups a step, from one 8-byte load (while 8 bytes can be read).
    for (; i + 8 <= n; i += 6, out += 8) {
        uint64_t word;
        std::memcpy(&word, data + i, 8);
        const uint64_t bytes = __builtin_bswap64(word) >> 16;  // data[i..i+5], the first byte highest
        write_group(uint32_t(bytes >> 24), out);
        write_group(uint32_t(bytes & 0xffffff), out + 4);
    }
    for (; i + 3 <= n; i += 3, out += 4) {
        write_group(uint32_t(data[i]) << 16 | uint32_t(data[i + 1]) << 8 | data[i + 2], out);
    }
    if (i == n) return;
    const bool two = n - i == 2;
    const uint32_t v = uint32_t(data[i]) << 16 | (two ? uint32_t(data[i + 1]) << 8 : 0);
    out[0] = kAlphabet[v >> 18];
    out[1] = kAlphabet[(v >> 12) & 63];
    out[2] = two ? kAlphabet[(v >> 6) & 63] : '=';
    out[3] = '=';
}

size_t decoded_bytes(const char* digits, size_t len, const char* type) {
    if (len % 4 != 0)
        fail(Errc::invalid_text, "invalid input syntax for type %s: base64 digits come in groups of 4, got %zu digits",
             type, len);
    return len / 4 * 3 - padding_of(digits, len);
}

void read_digits(const char* digits, size_t len, uint8_t* out, const char* type) {
    decoded_bytes(digits, len, type);  // the length and padding checks
    const size_t pad = padding_of(digits, len);
    const size_t full = len / 4 - (pad != 0 ? 1 : 0);
    uint32_t seen = 0;  // a bad digit anywhere sets kBad: checked once, after the loop
    size_t g = 0;
    // Two groups a step, their 6 bytes stored as one 8-byte word (the 2 bytes
    // past them are rewritten by the next step): while 8 bytes fit in out.
    for (; g + 3 <= full; g += 2) {
        const uint32_t v = group_value(digits + 4 * g, 4), w = group_value(digits + 4 * g + 4, 4);
        seen |= v | w;
        const uint64_t bytes = uint64_t(__builtin_bswap32(v << 8)) | uint64_t(__builtin_bswap32(w << 8)) << 24;
        std::memcpy(out + 3 * g, &bytes, 8);
    }
    for (; g < full; ++g) {
        const uint32_t v = group_value(digits + 4 * g, 4);
        seen |= v;
        out[3 * g] = uint8_t(v >> 16);
        out[3 * g + 1] = uint8_t(v >> 8);
        out[3 * g + 2] = uint8_t(v);
    }
    if (seen & kBad) {
        for (size_t bad = 0;; ++bad)
            if (group_value(digits + 4 * bad, 4) & kBad) not_base64(digits + 4 * bad, type);
    }
    if (pad == 0) return;
    // The last group: 2 or 3 digits, then padding; the bits past the bytes
    // they give must be zero (one text per byte string).
    const char* last = digits + 4 * full;
    const uint32_t v = group_value(last, unsigned(4 - pad));
    if ((v & kBad) || (v & (pad == 2 ? 0xffffu : 0xffu)) != 0) not_base64(last, type);
    out[3 * full] = uint8_t(v >> 16);
    if (pad == 1) out[3 * full + 1] = uint8_t(v >> 8);
}

}  // namespace sketch::base64
