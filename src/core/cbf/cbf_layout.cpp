#include "cbf/cbf_layout.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "cbf/cbf_block.hpp"

namespace sketch::cbf {

namespace {

[[noreturn]] void bad_layout(const std::string& spec, const char* what) {
    fail(Errc::invalid_parameter,
         "invalid counting Bloom filter layout \"%s\": %s (expected 'classic', 'classic<7>', 'block' or 'block<8>')",
         spec.c_str(), what);
}

[[noreturn]] void too_many_counters(int64_t capacity, double fpr, const Layout& l, uint64_t limit) {
    fail(Errc::program_limit, "a counting Bloom filter of layout %s for capacity %lld at fpr %g needs more than the limit of %llu counters",
         l.k != 0 ? format_layout(l).c_str() : l.kind == LayoutKind::block ? "block" : "classic",
         static_cast<long long>(capacity), fpr, static_cast<unsigned long long>(limit));
}

bool meets(double n, double fpr, uint32_t k, uint64_t lines) {
    return lines != 0 && block::fpr_for(n, double(lines * kLineCounters), k) <= fpr;
}

// Where the doubling of lines_for starts: the largest power of two below a
// quarter of the classic filter's optimal lines (a blocked layout needs more
// than that optimum), or most. Every count of lines below it fails by far, so
// starting there skips evaluations at loads of millions of items a line,
// whose rate is a sampled sum of thousands of terms, and takes the same
// steps as a doubling from one line from there on.
uint64_t first_doubling(double n, double fpr, uint64_t most) {
    const double optimal_lines = n * -std::log(fpr) / (M_LN2 * M_LN2) / double(kLineCounters);
    uint64_t p = 1;
    while (p < most && double(p) * 8 <= optimal_lines) p *= 2;
    return std::min(p, most);
}

// The count of lines the doubling tried before hi (a power of two, or most).
uint64_t doubling_before(uint64_t hi) { return (hi & (hi - 1)) == 0 ? hi / 2 : uint64_t(1) << (63 - __builtin_clzll(hi)); }

// Lines of 128 counters: the fewest that meet fpr with k per item, or 0 when
// more than `most` would be needed. The rate falls as lines are added, so a
// bisection finds them below `known` (a count of lines known to meet fpr),
// or without one, below the first power of two (or most) that meets it. The
// answer must not change (objects and values are sized by it again when
// read), and where the rate's computed value is not monotone (an fpr within
// about 1e-6 of 1 at billions of items, where a line changes the rate by less
// than its rounding) it depends on the counts tried: these are those of a
// doubling from one line, started at first_doubling.
uint64_t lines_for(double n, double fpr, uint32_t k, uint64_t most, uint64_t known = 0) {
    uint64_t hi = known;
    if (hi == 0) {
        hi = first_doubling(n, fpr, most);
        if (meets(n, fpr, k, hi)) {
            while (hi > 1 && meets(n, fpr, k, doubling_before(hi))) hi = doubling_before(hi);
        } else {
            while (!meets(n, fpr, k, hi)) {
                if (hi >= most) return 0;
                hi = std::min(most, hi * 2);
            }
        }
    }
    uint64_t lo = known != 0 ? 0 : hi / 2;  // fails (or 0)
    while (hi - lo > 1) {
        const uint64_t mid = lo + (hi - lo) / 2;
        (meets(n, fpr, k, mid) ? hi : lo) = mid;
    }
    return hi;
}

Geometry block_geometry(int64_t capacity, double fpr, uint32_t k, uint64_t max_counters) {
    const uint64_t most = max_counters / kLineCounters;
    const double n = static_cast<double>(capacity);
    uint64_t lines = 0;
    if (k != 0) {
        lines = lines_for(n, fpr, k, most);
    } else {
        // The k that needs the fewest lines; the lines needed fall then rise
        // with k, so the search stops a few past the best. A k beats the best
        // so far only if one line less meets fpr with it: one evaluation of
        // the rate (a sum over line loads, the cost of sizing) rules most out.
        unsigned worse = 0;
        for (uint32_t v = kMinHashes; v <= kMaxHashes && worse < 4; ++v) {
            if (lines != 0 && !meets(n, fpr, v, lines - 1)) {
                ++worse;
                continue;
            }
            const uint64_t l = lines_for(n, fpr, v, most, lines != 0 ? lines - 1 : 0);
            if (l != 0) {
                lines = l;
                k = v;
                worse = 0;
            }
        }
    }
    if (lines == 0) too_many_counters(capacity, fpr, Layout{LayoutKind::block, k}, max_counters);
    Geometry g;
    g.k = k;
    g.m = lines * kLineCounters;
    g.scheme = kSchemeXxh3Block;
    return g;
}

// classic<K>: the smallest power of two that meets fpr with k per item.
Geometry classic_geometry(int64_t capacity, double fpr, uint32_t k, uint64_t max_counters) {
    const double n = static_cast<double>(capacity);
    uint64_t m = kMinCounters;
    while (fpr_for(n, double(m), Layout{LayoutKind::classic, k}) > fpr) {
        if (m >= max_counters || m >= kMaxCounters) too_many_counters(capacity, fpr, Layout{LayoutKind::classic, k}, max_counters);
        m <<= 1;
    }
    if (m > max_counters) too_many_counters(capacity, fpr, Layout{LayoutKind::classic, k}, max_counters);
    Geometry g;
    g.k = k;
    g.m = m;
    g.scheme = kSchemeXxh3DoubleHash;
    return g;
}

}  // namespace

Layout parse_layout(const std::string& spec) {
    std::string s;
    for (char c : spec)
        if (!std::isspace(static_cast<unsigned char>(c))) s += char(std::tolower(static_cast<unsigned char>(c)));
    Layout l;
    std::string rest;
    if (s.compare(0, 7, "classic") == 0) {
        l.kind = LayoutKind::classic;
        rest = s.substr(7);
    } else if (s.compare(0, 5, "block") == 0) {
        l.kind = LayoutKind::block;
        rest = s.substr(5);
    } else {
        bad_layout(spec, s.empty() ? "empty layout" : "unknown layout");
    }
    if (rest.empty()) return l;
    if (rest.front() != '<') bad_layout(spec, "unknown layout");
    if (rest.size() < 3 || rest.front() != '<' || rest.back() != '>') bad_layout(spec, "K in angle brackets expected after the name");
    const std::string digits = rest.substr(1, rest.size() - 2);
    uint64_t k = 0;
    for (char c : digits) {
        if (!std::isdigit(static_cast<unsigned char>(c))) bad_layout(spec, "K must be a number");
        if (k <= kMaxHashes) k = k * 10 + unsigned(c - '0');
    }
    if (k < kMinHashes || k > kMaxHashes)
        fail(Errc::invalid_parameter, "invalid counting Bloom filter layout \"%s\": K must be between %u and %u, got %s",
             spec.c_str(), kMinHashes, kMaxHashes, digits.c_str());
    l.k = static_cast<uint32_t>(k);
    return l;
}

std::string format_layout(const Layout& l) {
    return std::string(l.kind == LayoutKind::block ? "block<" : "classic<") + std::to_string(l.k) + ">";
}

bool sized_by_its_layout(const Geometry& g) {
    if (!g.blocked()) return true;
    const double n = static_cast<double>(g.capacity);
    return meets(n, g.fpr, g.k, g.lines()) && !meets(n, g.fpr, g.k, g.lines() - 1);
}

Layout layout_of(const Geometry& g) { return Layout{g.blocked() ? LayoutKind::block : LayoutKind::classic, g.k}; }

Geometry geometry_for(int64_t capacity, double fpr, const Layout& l, uint64_t max_counters, uint64_t seed) {
    if (l.kind == LayoutKind::classic && l.k == 0) return geometry_for(capacity, fpr, max_counters, seed);
    if (capacity < 1) fail(Errc::invalid_parameter, "cbf capacity must be at least 1 (got %lld)", static_cast<long long>(capacity));
    if (!(fpr > 0.0 && fpr < 1.0)) fail(Errc::invalid_parameter, "cbf fpr must be strictly between 0 and 1 (got %g)", fpr);
    if (max_counters > kMaxCounters) max_counters = kMaxCounters;
    Geometry g = l.kind == LayoutKind::block ? block_geometry(capacity, fpr, l.k, max_counters)
                                             : classic_geometry(capacity, fpr, l.k, max_counters);
    g.capacity = static_cast<uint64_t>(capacity);
    g.fpr = fpr;
    g.seed = seed;
    return g;
}

double fpr_for(double n, double m, const Layout& l) {
    if (m <= 0) return 1.0;
    if (n <= 0) return 0.0;
    if (l.k == 0) {
        double best = 1.0;
        for (uint32_t k = kMinHashes; k <= kMaxHashes; ++k) best = std::min(best, fpr_for(n, m, Layout{l.kind, k}));
        return best;
    }
    if (l.kind == LayoutKind::block) return block::fpr_for(n, m, l.k);
    return std::pow(-std::expm1(-static_cast<double>(l.k) * n / m), l.k);
}

}  // namespace sketch::cbf
