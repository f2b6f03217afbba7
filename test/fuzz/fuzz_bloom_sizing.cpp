// The sizing of filters from what a user asks for (bloom_capacity_for,
// bloom_fpr_for, bloom_empty, cbf_empty): n, fpr and a bits count of any
// value, and a layout spec. A geometry sized for (n, fpr) meets fpr by the
// formula it was sized with, and nothing overflows on the way.
//
// Input: n (8 bytes), fpr (8 bytes, a double), a size in bits (8 bytes),
// then the layout spec.
#include <cmath>
#include <string>

#include "fuzz_support.hpp"

namespace sb = sketch::bloom;

namespace {

constexpr size_t kSpecAt = 24;

template <typename T>
T field(const uint8_t* data, size_t at) {
    T v;
    std::memcpy(&v, data + at, sizeof v);
    return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < kSpecAt) return 0;
    const uint64_t n = field<uint64_t>(data, 0);
    const double fpr = field<double>(data, 8);
    const uint64_t bits = field<uint64_t>(data, 16);
    try {
        const sketch::cbf::Geometry g = sketch::cbf::geometry_for(int64_t(n), fpr);
        (void)sketch::cbf::expected_fpr(g, double(n));
    } catch (const sketch::Error&) {
    }
    sb::Layout l;
    try {
        l = sb::parse_layout(std::string(reinterpret_cast<const char*>(data) + kSpecAt, size - kSpecAt));
    } catch (const sketch::Error&) {
        return 0;
    }
    if (l.resolved()) {
        const double rate = sb::fpr_for(double(n), double(bits), l);
        fuzz::require(rate >= 0.0 && rate <= 1.0, "a false-positive rate is a probability");
    }
    try {
        const sb::Geometry g = sb::capacity_for(n, fpr, l);
        fuzz::require(sb::fpr_for(double(n), double(g.bits()), g.layout) <= fpr, "a sized filter meets its rate");
        (void)sb::estimated_count(g, bits % (g.bits() + 1));
    } catch (const sketch::Error&) {
    }
    try {
        (void)sb::default_layout(n, fpr);
    } catch (const sketch::Error&) {
    }
    return 0;
}
