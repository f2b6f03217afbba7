#include "hex.hpp"

#include "error.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace sketch::hex {

namespace {

int digit_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

#if defined(__SSE2__)
// Nibbles 0..15 -> '0'..'9', 'a'..'f'.
inline __m128i ascii_of(__m128i v) {
    const __m128i letters = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8(9)), _mm_set1_epi8('a' - '0' - 10));
    return _mm_add_epi8(_mm_add_epi8(v, _mm_set1_epi8('0')), letters);
}

// 16 hex characters -> their values 0..15, and a mask of the lanes that are not hex digits.
inline __m128i values_of(__m128i c, __m128i* bad) {
    // Signed compares are enough: every hex digit is below 0x80.
    const __m128i is_digit = _mm_and_si128(_mm_cmpgt_epi8(c, _mm_set1_epi8('0' - 1)), _mm_cmplt_epi8(c, _mm_set1_epi8('9' + 1)));
    const __m128i lower = _mm_or_si128(c, _mm_set1_epi8(0x20));  // 'A'..'F' -> 'a'..'f'
    const __m128i is_letter = _mm_and_si128(_mm_cmpgt_epi8(lower, _mm_set1_epi8('a' - 1)), _mm_cmplt_epi8(lower, _mm_set1_epi8('f' + 1)));
    *bad = _mm_andnot_si128(_mm_or_si128(is_digit, is_letter), _mm_set1_epi8(-1));
    const __m128i from_digit = _mm_and_si128(is_digit, _mm_sub_epi8(c, _mm_set1_epi8('0')));
    const __m128i from_letter = _mm_and_si128(is_letter, _mm_sub_epi8(lower, _mm_set1_epi8('a' - 10)));
    return _mm_or_si128(from_digit, from_letter);
}

// 16 values (high nibble, low nibble, ...) -> 8 bytes in the low half of 8 16-bit lanes.
inline __m128i pair_up(__m128i v) {
    const __m128i high = _mm_and_si128(v, _mm_set1_epi16(0x00ff));
    const __m128i low = _mm_srli_epi16(v, 8);
    return _mm_or_si128(_mm_slli_epi16(high, 4), low);
}
#endif

}  // namespace

void write_digits(const uint8_t* data, size_t n, char* out) {
    size_t i = 0;
#if defined(__SSE2__)
    const __m128i nibble = _mm_set1_epi8(0x0f);
    for (; i + 16 <= n; i += 16) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + i));
        const __m128i high = _mm_and_si128(_mm_srli_epi16(x, 4), nibble);
        const __m128i low = _mm_and_si128(x, nibble);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 * i), ascii_of(_mm_unpacklo_epi8(high, low)));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 * i + 16), ascii_of(_mm_unpackhi_epi8(high, low)));
    }
#endif
    static const char digits[] = "0123456789abcdef";
    for (; i < n; ++i) {
        out[2 * i] = digits[data[i] >> 4];
        out[2 * i + 1] = digits[data[i] & 15];
    }
}

void write_text(const uint8_t* data, size_t n, char* out) {
    out[0] = '\\';
    out[1] = 'x';
    write_digits(data, n, out + 2);
    out[text_bytes(n)] = '\0';
}

size_t decoded_bytes(const char* text, size_t text_len, const char* type) {
    if (text_len < 2 || text[0] != '\\' || text[1] != 'x')
        fail(Errc::invalid_text, "invalid input syntax for type %s: expected \"\\x\" followed by hex digits", type);
    if ((text_len - 2) % 2 != 0) fail(Errc::invalid_text, "invalid input syntax for type %s: odd number of hex digits", type);
    return (text_len - 2) / 2;
}

void read_text(const char* text, size_t text_len, uint8_t* out, const char* type) {
    const size_t n = decoded_bytes(text, text_len, type);
    const char* digits = text + 2;
    size_t i = 0;
#if defined(__SSE2__)
    for (; i + 16 <= n; i += 16) {
        __m128i bad_a, bad_b;
        const __m128i a = values_of(_mm_loadu_si128(reinterpret_cast<const __m128i*>(digits + 2 * i)), &bad_a);
        const __m128i b = values_of(_mm_loadu_si128(reinterpret_cast<const __m128i*>(digits + 2 * i + 16)), &bad_b);
        if (_mm_movemask_epi8(_mm_or_si128(bad_a, bad_b)) != 0) break;  // the scalar loop names the pair
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm_packus_epi16(pair_up(a), pair_up(b)));
    }
#endif
    for (; i < n; ++i) {
        const int high = digit_value(digits[2 * i]), low = digit_value(digits[2 * i + 1]);
        if (high < 0 || low < 0)
            fail(Errc::invalid_text, "invalid input syntax for type %s: \"%c%c\" is not a hex byte", type, digits[2 * i],
                 digits[2 * i + 1]);
        out[i] = static_cast<uint8_t>(high << 4 | low);
    }
}

}  // namespace sketch::hex
