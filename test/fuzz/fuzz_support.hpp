// Shared by the fuzz targets (test/fuzz/fuzz_*.cpp): a check that fails
// loudly, item hashes drawn from the input, and what every decoded filter
// must survive. Each target feeds libFuzzer's bytes to one decoder of the
// core; an input it refuses must be refused with a sketch::Error, never by
// a crash, and an input it accepts must be safe to use.
#pragma once

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "bloom/bloom.hpp"
#include "cbf/cbf.hpp"
#include "hash.hpp"
#include "filter_text.hpp"
#include "hex.hpp"

namespace fuzz {

// A broken property: abort, so that libFuzzer keeps the input as a crash.
inline void require(bool ok, const char* property) {
    if (ok) return;
    std::fprintf(stderr, "fuzz: property broken: %s\n", property);
    std::abort();
}

// n item hashes seeded by the input, so that its bytes steer the probes too.
inline std::vector<sketch::Hash128> hashes_of(const uint8_t* data, size_t size, int n) {
    std::vector<sketch::Hash128> out;
    for (int i = 0; i < n; ++i) out.push_back(sketch::hash_bytes(data, size, uint64_t(i)));
    return out;
}

// The bytes of a filter's text form (either: "b64:" and base64, or 0.1.0's
// "\x" and hex digits), as the type's input function decodes them; throws
// sketch::Error naming `type`.
inline std::vector<uint8_t> decode_text(const uint8_t* data, size_t size, const char* type) {
    const char* text = reinterpret_cast<const char*>(data);
    std::vector<uint8_t> bytes(sketch::filter_text::decoded_bytes(text, size, type));
    sketch::filter_text::read_text(text, size, bytes.data(), type);
    return bytes;
}

// A value decoded from text prints (in base64) as text that reads back to
// it: exactly its input if that was base64 (one text per value), and its
// hex form is its input lowercased if that was hex.
inline void require_prints_as(const std::vector<uint8_t>& bytes, const uint8_t* text, size_t size) {
    namespace ft = sketch::filter_text;
    std::vector<char> out(ft::text_bytes(bytes.size()) + 1);
    ft::write_text(bytes.data(), bytes.size(), nullptr, 0, out.data());
    require(out.back() == '\0', "the text form ends with its NUL");
    require(decode_text(reinterpret_cast<const uint8_t*>(out.data()), out.size() - 1, "any") == bytes,
            "a decoded value prints as text that reads back to it");
    if (size >= ft::kPrefixBytes && std::memcmp(text, ft::kPrefix, ft::kPrefixBytes) == 0) {
        require(out.size() == size + 1 && std::memcmp(out.data(), text, size) == 0, "a base64 value prints as its input");
        return;
    }
    std::vector<char> hex(sketch::hex::text_bytes(bytes.size()) + 1);
    sketch::hex::write_text(bytes.data(), bytes.size(), hex.data());
    require(hex.size() == size + 1, "hex text and bytes agree in length");
    for (size_t i = 0; i < size; ++i) require(hex[i] == std::tolower(text[i]), "a hex value prints as its input");
}

// Every kernel path over a copy of a decoded bit array, in an allocation of
// exactly the bytes the kernels may touch (the array and its tail pad, up to
// a whole word), so AddressSanitizer sees any access past them.
inline void exercise_bloom(const sketch::bloom::Geometry& g, const uint8_t* bits,
                           const std::vector<sketch::Hash128>& items) {
    namespace sb = sketch::bloom;
    std::vector<uint64_t> words((g.bytes + sb::kTailPad + 7) / 8, 0);
    auto* array = reinterpret_cast<uint8_t*>(words.data());
    std::memcpy(array, bits, g.bytes);
    for (sb::Path p : {sb::Path::scalar, sb::Path::sse2, sb::Path::avx2}) {
        if (!sb::path_available(p)) continue;
        sb::contains_many(g, array, items.data(), items.size(), nullptr, p);
        for (const sketch::Hash128& h : items) {
            sb::insert(g, array, h, p);
            require(sb::contains(g, array, h, p), "an inserted item is found");
        }
        sb::insert_many(g, array, items.data(), items.size(), p);
    }
    for (const sketch::Hash128& h : items) {
        sb::insert_atomic(g, array, h);
        require(sb::contains_concurrent(g, array, h), "an item inserted atomically is found");
    }
    const uint64_t set = sb::count_bits(array, g.bytes);
    require(set <= g.bits(), "no more bits set than the array has");
    (void)sb::estimated_count(g, set);
    for (size_t i = g.bytes; i < g.bytes + sb::kTailPad; ++i) require(array[i] == 0, "the tail pad stays zero");
}

// Every operation on a decoded counter array (counters: exactly
// g.counter_bytes() bytes at the end of their allocation).
inline void exercise_cbf(const sketch::cbf::Geometry& g, uint8_t* counters, const std::vector<sketch::Hash128>& items) {
    namespace cbf = sketch::cbf;
    const std::vector<uint8_t> before(counters, counters + g.counter_bytes());
    for (const sketch::Hash128& h : items) {
        (void)cbf::count_of(g, counters, h);
        cbf::add(g, counters, h);
        require(cbf::contains(g, counters, h) && cbf::count_of(g, counters, h) >= 1, "an added item is found");
        require(cbf::remove(g, counters, h), "an added item can be removed");
        cbf::add_atomic(g, counters, h);
        require(cbf::contains_atomic(g, counters, h) && cbf::count_of_atomic(g, counters, h) >= 1,
                "an item added atomically is found");
    }
    cbf::add_many(g, counters, items.data(), items.size());
    const uint64_t set = cbf::counters_set(g, counters);
    require(set <= g.m && cbf::counters_saturated(g, counters) <= set, "counter tallies stay within m");
    (void)cbf::estimate_count(g, set);
    (void)cbf::expected_fpr(g, double(g.capacity));
    std::vector<uint64_t> bits(g.m / 64);
    cbf::to_bits(g, counters, bits.data());
    cbf::merge(g, counters, before.data());
}

}  // namespace fuzz
