// Prints the table docs/fpr.svg is drawn from (scripts/fpr_chart.sh): for
// each amount of memory per item, the false-positive rate of every layout
// family at its best K' (classic: best K), as bloom_fpr_for and the counting
// filter's formula compute it. A counting filter spends 4 bits per counter,
// so its memory per item buys a quarter of the counters.
#include <cmath>
#include <cstdio>
#include <limits>

#include "bloom/bloom.hpp"
#include "cbf/cbf.hpp"

namespace {

constexpr double kItems = 1e6;

// The lowest rate a layout reaches over its K' (or classic K) at m_bits bits.
double best_fpr(const char* spec, double m_bits) {
    using namespace sketch::bloom;
    Layout base = parse_layout(spec);
    double best = std::numeric_limits<double>::infinity();
    for (unsigned v = 1; v <= kMaxKp; ++v) {
        Layout l = base;
        if (is_classic(base) || base.kind == Kind::cbf) l.k = v; else l.kp = v;
        try {
            validate_layout(l);
        } catch (const sketch::Error&) {
            continue;
        }
        best = std::fmin(best, fpr_for(kItems, m_bits, l));
    }
    return best;
}

double best_counting_fpr(double m_bits) {
    sketch::cbf::Geometry g;
    g.m = static_cast<uint64_t>(m_bits / 4);
    double best = std::numeric_limits<double>::infinity();
    for (g.k = 1; g.k <= 32; ++g.k) best = std::fmin(best, sketch::cbf::expected_fpr(g, kItems));
    return best;
}

}  // namespace

int main() {
    const char* specs[] = {"classic", "block<uint32>", "block<uint64>", "block<uint64[8]>",
                           "fast_multiblock32", "fast_multiblock64"};
    std::printf("bits_per_item");
    for (const char* s : specs) std::printf("\t%s", s);
    std::printf("\tcbf (counting)\n");
    for (int q = 8; q <= 256; ++q) {  // 2 to 64 bits per item, in quarters
        double c = q / 4.0;
        std::printf("%.2f", c);
        for (const char* s : specs) std::printf("\t%.6e", best_fpr(s, c * kItems));
        std::printf("\t%.6e\n", best_counting_fpr(c * kItems));
    }
}
