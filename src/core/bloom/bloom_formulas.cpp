// Sizing formulas: Boost.Bloom's FPR estimates (fpr_estimation appendix,
// including overlapping strides), capacity search, the choice of K', and the
// estimate of distinct insertions from the fill of the array.
#include <cmath>
#include <cstring>

#include "bloom/bloom.hpp"
#include "bloom/bloom_fill.hpp"
#include "bloom/bloom_block_fpr.hpp"

namespace sketch {
namespace bloom {

namespace {

// The per-subarray terms of the Poisson sums, evaluated at i = i0, i0 + 1, ...
// (powers kept incrementally, so a term costs no transcendental call).

// (1 - q^i)^power. Boost's block term: q = (1 - 1/w)^K', power K'; its
// multiblock term: q = 1 - K'/w, power K'.
struct ClassicTerm {
    double q, power, qi = 0;
    ClassicTerm(double q_, double power_) : q(q_), power(power_) {}
    void start(double i0) { qi = std::pow(q, i0); }
    double next() {
        const double v = std::pow(1.0 - qi, power);
        qi *= q;
        return v;
    }
};

// Beyond Boost, for blocks of at most 64 bits and K' <= 16: the K' bits of a
// probe are drawn with replacement from only b bits, so they often coincide,
// and the query then needs fewer bits set; Boost's per-block term ignores this
// and underestimates the FPR of block<uint8..uint32> by 10-20%. Exact instead:
// P(j distinct bits among K' draws from b), times the probability that j
// given bits of a w-bit window are all set after i insertions of K' bits each
// (inclusion-exclusion; coefficients stay small for j <= 16).
struct SmallBlockTerm {
    double p_distinct[kMaxKp + 1] = {};
    double x[kMaxKp + 1] = {};   // (1 - t/w)^K'
    double xi[kMaxKp + 1] = {};  // x[t]^i
    double binom[kMaxKp + 1][kMaxKp + 1] = {};
    unsigned kp;
    SmallBlockTerm(double b, unsigned kp_, double w) : kp(kp_) {
        p_distinct[0] = 1.0;
        for (unsigned d = 0; d < kp; ++d) {
            for (unsigned j = d + 1; j >= 1; --j) p_distinct[j] = p_distinct[j] * (j / b) + p_distinct[j - 1] * ((b - (j - 1)) / b);
            p_distinct[0] = 0.0;
        }
        for (unsigned t = 0; t <= kp; ++t) x[t] = std::pow(1.0 - double(t) / w, double(kp));
        for (unsigned j = 0; j <= kp; ++j) {
            binom[j][0] = 1.0;
            for (unsigned t = 1; t <= j; ++t) binom[j][t] = binom[j][t - 1] * (j - t + 1) / t;
        }
    }
    void start(double i0) {
        for (unsigned t = 0; t <= kp; ++t) xi[t] = std::pow(x[t], i0);
    }
    double next() {
        double total = 0.0;
        for (unsigned j = 1; j <= kp; ++j) {
            if (p_distinct[j] == 0.0) continue;
            double all_set = 0.0;
            for (unsigned t = 0; t <= j; ++t) all_set += ((t & 1) ? -binom[j][t] : binom[j][t]) * xi[t];
            total += p_distinct[j] * all_set;
        }
        for (unsigned t = 0; t <= kp; ++t) xi[t] *= x[t];
        return std::max(0.0, total);
    }
};

// Terms summed one by one at most. A wider window (a load of millions of
// items per subarray, as bloom_fpr_for can be asked) is sampled instead.
constexpr int kMaxPoissonTerms = 4096;

// sum_i Pois(i, lambda) * term(i), over the window that holds all the mass
// (8 standard deviations each side), probabilities by recurrence. A window
// too wide to walk is sampled at evenly spaced points weighted by the normal
// density: there the Poisson is a normal to within O(1/sqrt(lambda)), the
// array is saturated (the term is 1 to many digits), and the weights are
// normalised, as the Poisson's own would lose every digit to cancellation.
template <typename Term>
double poisson_sum(double lambda, Term& term) {
    if (lambda <= 0) {
        term.start(0.0);
        return term.next();
    }
    const double sd = std::sqrt(lambda);
    const double spread = 8.0 * sd + 10.0;
    const double lo = std::max(0.0, std::floor(lambda - spread));
    const double hi = std::ceil(lambda + spread);
    double sum = 0.0;
    if (hi - lo > kMaxPoissonTerms) {
        const double step = (hi - lo) / kMaxPoissonTerms;
        double weights = 0.0;
        for (int j = 0; j <= kMaxPoissonTerms; ++j) {
            const double i = std::floor(lo + j * step);
            const double z = (i - lambda) / sd;
            const double w = std::exp(-0.5 * z * z);
            term.start(i);
            sum += w * term.next();
            weights += w;
        }
        return sum / weights;
    }
    double p = std::exp(lo * std::log(lambda) - lambda - std::lgamma(lo + 1.0));
    term.start(lo);
    for (double i = lo; i <= hi; i += 1.0) {
        sum += p * term.next();
        p *= lambda / (i + 1.0);
    }
    return sum;
}

[[noreturn]] void too_big(uint64_t n, double fpr, const Layout& l) {
    fail(Errc::program_limit,
         "a bloom filter for %llu items at fpr %g with layout %s needs more than the maximum of %llu bits (%s)",
         static_cast<unsigned long long>(n), fpr, format_layout(l).c_str(), static_cast<unsigned long long>(kMaxBits),
         kMaxBitsNote);
}

Geometry capacity_resolved(uint64_t n, double fpr, const Layout& l) {
    validate_layout(l);
    if (l.kind == Kind::cbf) {
        for (uint64_t m = 64; m <= kMaxBits; m <<= 1)
            if (fpr_for(double(n), double(m), l) <= fpr) return geometry_for_bits(l, m);
        too_big(n, fpr, l);
    }
    const uint64_t stride = stride_bytes(l), used = used_bytes(l);
    const uint64_t r_max = (kMaxBytes - used) / stride + 1;
    auto ok = [&](uint64_t r) { return fpr_for(double(n), double(((r - 1) * stride + used) * 8), l) <= fpr; };
    // Bracket from the classic optimum (every layout needs between a fraction
    // and a few times its bits), so no evaluation sees a saturated array.
    const double m0 = double(n) * -std::log(fpr) / (M_LN2 * M_LN2);
    const double r0 = std::max(1.0, (m0 / 8.0 - double(used)) / double(stride) + 1.0);
    uint64_t hi = r0 >= double(r_max) ? r_max : uint64_t(r0), lo;
    if (ok(hi)) {
        lo = hi;
        while (lo > 1 && ok(lo)) lo /= 2;
        if (lo == 1 && ok(1)) return geometry_for_positions(l, 1);
        hi = std::min(hi, lo * 2);
        while (!ok(hi)) ++hi;  // never: ok(2 lo) held; guards rounding
    } else {
        if (!ok(r_max)) too_big(n, fpr, l);
        lo = hi;
        while (!ok(hi)) {
            lo = hi;
            hi = hi * 2 < r_max ? hi * 2 : r_max;
        }
    }
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (ok(mid)) hi = mid; else lo = mid;
    }
    return geometry_for_positions(l, hi);
}

}  // namespace

double block_fpr_distinct_draws(double n, double m, double b, unsigned kp) {
    if (m <= 0) return 1.0;
    if (n <= 0) return 0.0;
    SmallBlockTerm term(b, kp, b);
    return std::min(1.0, std::max(0.0, poisson_sum(n * b / m, term)));
}

void check_n_fpr(double n, double fpr) {
    if (!(n >= 1)) fail(Errc::invalid_parameter, "bloom n (the expected number of items) must be at least 1, got %g", n);
    if (!(fpr > 0.0 && fpr < 1.0)) fail(Errc::invalid_parameter, "bloom fpr must be between 0 and 1 (exclusive), got %g", fpr);
}

double fpr_for(double n, double m, const Layout& l) {
    if (m <= 0) return 1.0;
    if (n <= 0) return 0.0;
    const double K = l.k, kp = l.kp;
    double fpr = 1.0;
    switch (l.kind) {
        case Kind::cbf: fpr = std::pow(-std::expm1(-K * n / m), K); break;
        case Kind::block: {
            const double b = block_bytes(l.block) * 8.0, s = stride_bytes(l) * 8.0;
            const double w = 2 * b - s;
            if (b <= 64 && l.kp <= 16) {
                SmallBlockTerm term(b, l.kp, w);
                fpr = std::pow(poisson_sum(n * w * K / m, term), K);
            } else {
                ClassicTerm term(std::pow(1.0 - 1.0 / w, kp), kp);
                fpr = std::pow(poisson_sum(n * w * K / m, term), K);
            }
            break;
        }
        case Kind::multiblock:
        case Kind::fast_multiblock32:
        case Kind::fast_multiblock64: {
            const double b = l.kind == Kind::fast_multiblock32 ? 32.0 : l.kind == Kind::fast_multiblock64 ? 64.0
                                                                                                           : block_bytes(l.block) * 8.0;
            const double s = stride_bytes(l) * 8.0;
            const double w = 2 * b * kp - s;
            ClassicTerm term(1.0 - kp / w, kp);
            fpr = std::pow(poisson_sum(n * w * K / m, term), K);
            break;
        }
    }
    return std::min(1.0, std::max(0.0, fpr));
}

Geometry capacity_for(uint64_t n, double fpr, const Layout& given) {
    check_n_fpr(double(n), fpr);
    const bool choose_k = given.k == 0, choose_kp = given.kp == 0;
    if (!choose_k && !choose_kp) {
        Layout l = given;
        if (l.stride != 0 && l.stride == used_bytes(l)) l.stride = 0;
        if (l.stride > used_bytes(l))
            fail(Errc::invalid_parameter, "bloom stride must be between 1 and %u bytes for layout %s", used_bytes(l), format_layout(l).c_str());
        return capacity_resolved(n, fpr, l);
    }
    bool found = false;
    Geometry best;
    unsigned worse = 0;
    for (unsigned v = 1; v <= (choose_k ? kMaxK : kMaxKp); ++v) {
        Layout l = given;
        if (choose_k) l.k = v; else l.kp = v;
        if (l.stride != 0) {
            if (l.stride > used_bytes(l)) continue;
            if (l.stride == used_bytes(l)) l.stride = 0;
        }
        try {
            Geometry g = capacity_resolved(n, fpr, l);
            if (!found || g.bytes < best.bytes) {
                best = g;
                found = true;
                worse = 0;
            } else if (++worse >= 4) {
                break;  // the memory needed is unimodal in K'
            }
        } catch (const Error& e) {
            if (e.code() != Errc::program_limit) throw;
        }
    }
    if (!found) too_big(n, fpr, given);
    return best;
}

Layout default_layout(uint64_t n, double fpr) {
    Layout a;
    a.kind = Kind::fast_multiblock32;
    a.block = BlockType::u32;
    a.k = 1;
    a.kp = 0;
    Layout b = a;
    b.kind = Kind::fast_multiblock64;
    b.block = BlockType::u64;
    // fast_multiblock32 is the fastest layout (28-32 byte subarrays rarely
    // straddle a cache line); fast_multiblock64 needs less memory at low fpr
    // (3% at 0.01, 9% at 1e-4, 13% at 1e-6) and wins once that reaches 10%.
    Geometry ga = capacity_for(n, fpr, a), gb = capacity_for(n, fpr, b);
    return double(gb.bytes) <= 0.9 * double(ga.bytes) ? gb.layout : ga.layout;
}

double bits_per_insert(const Layout& l) {
    switch (l.kind) {
        case Kind::block: {
            const double b = block_bytes(l.block) * 8.0;
            return l.k * b * -std::expm1(l.kp * std::log1p(-1.0 / b));
        }
        case Kind::multiblock:
        case Kind::fast_multiblock32:
        case Kind::fast_multiblock64: return double(l.k) * l.kp;
        case Kind::cbf: return double(l.k);
    }
    return 1.0;
}

double estimated_count(const Geometry& g, uint64_t bits_set) {
    if (bits_set == 0) return 0.0;
    const double m = double(g.bits());
    const double x = bits_set >= g.bits() ? m - 0.5 : double(bits_set);
    return -std::log1p(-x / m) * m / bits_per_insert(g.layout);
}

uint64_t count_bits(const uint8_t* bits, uint64_t bytes) {
    uint64_t n = 0, i = 0;
    for (; i + 8 <= bytes; i += 8) {
        uint64_t w;
        std::memcpy(&w, bits + i, 8);
        n += uint64_t(__builtin_popcountll(w));
    }
    for (; i < bytes; ++i) n += uint64_t(__builtin_popcount(bits[i]));
    return n;
}

FillEstimate fill(const Geometry& g, uint64_t bits_set) {
    const double count = estimated_count(g, bits_set);
    return {count, fpr_for(count, double(g.bits()), g.layout)};
}

FillEstimate sampled_fill(const Geometry& g, const uint8_t* bits) {
    const uint64_t lines = g.bytes / kFillSampleLineBytes;
    if (lines <= kFillSampleLines) return fill(g, count_bits(bits, g.bytes));
    uint64_t set = 0;
    for (uint64_t i = 0; i < kFillSampleLines; ++i)
        set += count_bits(bits + (i * lines / kFillSampleLines) * kFillSampleLineBytes, kFillSampleLineBytes);
    const double share = double(set) / double(kFillSampleLines * kFillSampleLineBytes * 8);
    return fill(g, uint64_t(std::llround(share * double(g.bits()))));
}

}  // namespace bloom
}  // namespace sketch
