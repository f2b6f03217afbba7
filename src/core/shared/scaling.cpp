#include "shared/scaling.hpp"

#include <cmath>

#include "error.hpp"

namespace sketch::shared {

namespace {

uint64_t saturating_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

uint64_t saturating_mul(uint64_t a, uint64_t b) { return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b; }

}  // namespace

void check_expansion(int64_t expansion) {
    if (expansion < 0 || expansion > int64_t(kMaxExpansion))
        fail(Errc::invalid_parameter, "expansion must be 0 (a fixed-size object) or between 1 and %u, not %lld",
             kMaxExpansion, static_cast<long long>(expansion));
}

uint64_t subfilter_capacity(const Series& s, uint32_t i) {
    uint64_t n = s.n;
    for (uint32_t j = 0; j < i; ++j) n = saturating_mul(n, s.expansion);
    return n;
}

double subfilter_fpr(const Series& s, uint32_t i) {
    if (!s.scaling()) return s.fpr;
    return s.fpr * (1 - kTightening) * std::pow(kTightening, double(i));
}

uint64_t capacity_of(const Series& s, uint32_t count) {
    uint64_t total = 0;
    for (uint32_t i = 0; i < count; ++i) total = saturating_add(total, subfilter_capacity(s, i));
    return total;
}

double combined_fpr(const double* rates, uint32_t count) {
    double none = 1;  // the chance that no sub-filter answers "present"
    for (uint32_t i = 0; i < count; ++i) none *= 1 - rates[i];
    return 1 - none;
}

Room room_for(const Series& s, uint32_t count, uint64_t held, uint64_t more) {
    const uint64_t wanted = saturating_add(held, more);
    if (wanted <= capacity_of(s, count)) return Room{Room::fits, count};
    if (!s.scaling()) return Room{Room::full, count};
    for (uint32_t c = count + 1; c <= kMaxSubfilters; ++c)
        if (wanted <= capacity_of(s, c)) return Room{Room::grow, c};
    return Room{Room::full, count};
}

}  // namespace sketch::shared
