// Shared helpers of the bloom unit tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bloom/bloom.hpp"

namespace bloom_test {

inline uint64_t splitmix(uint64_t& s) {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

inline std::vector<sketch::Hash128> keys(size_t n, uint64_t seed) {
    std::vector<sketch::Hash128> out(n);
    for (auto& h : out) {
        h.lo = splitmix(seed);
        h.hi = splitmix(seed);
    }
    return out;
}

// A representative spec of every layout family (every block type, several
// K', K > 1, overlapping strides, the SIMD layouts, classic and cbf).
inline std::vector<std::string> layout_specs() {
    std::vector<std::string> out = {"classic<1>", "classic<3>", "classic<7>", "cbf<1>", "cbf<7>", "cbf<32>"};
    const char* blocks[] = {"uint8", "uint16", "uint32", "uint64", "uint64[2]", "uint64[4]", "uint64[8]"};
    for (const char* b : blocks) {
        for (int kp : {1, 2, 5, 8, 13, 32}) {
            out.push_back(std::string("block<") + b + "," + std::to_string(kp) + ">");
            out.push_back(std::string("multiblock<") + b + "," + std::to_string(kp) + ">");
        }
        out.push_back(std::string("2*block<") + b + ",3>");
        out.push_back(std::string("3*multiblock<") + b + ",2>");
    }
    for (int kp = 1; kp <= 32; ++kp) {
        out.push_back("fast_multiblock32<" + std::to_string(kp) + ">");
        out.push_back("fast_multiblock64<" + std::to_string(kp) + ">");
    }
    out.insert(out.end(), {"block<uint64,5>/1", "block<uint64[8],7>/8", "block<uint32,4>/2", "multiblock<uint32,8>/4",
                           "multiblock<uint64,5>/1", "multiblock<uint8,11>/3", "fast_multiblock32<8>/4",
                           "fast_multiblock32<5>/1", "fast_multiblock64<5>/1", "fast_multiblock64<11>/8",
                           "2*fast_multiblock32<7>", "2*fast_multiblock64<9>/3", "4*fast_multiblock32<13>/2"});
    return out;
}

}  // namespace bloom_test
