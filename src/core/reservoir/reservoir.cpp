#include "reservoir/reservoir.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "error.hpp"

namespace sketch::reservoir {

void check_k(int64_t k) {
    if (k < 1 || k > kMaxK)
        fail(Errc::invalid_parameter, "reservoir size k must be between 1 and %d, not %lld", static_cast<int>(kMaxK),
             static_cast<long long>(k));
}

void bad_weight(double weight) {
    char shown[32];
    if (std::isnan(weight))
        snprintf(shown, sizeof shown, "NaN");
    else if (std::isinf(weight))
        snprintf(shown, sizeof shown, "%s", weight > 0 ? "infinity" : "-infinity");
    else
        snprintf(shown, sizeof shown, "%g", weight);
    fail(Errc::invalid_parameter, "reservoir weight must be between %g and %g, not %s", kMinWeight, kMaxWeight, shown);
}

uint64_t splitmix64(uint64_t& state) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t mix_seed(uint64_t a, uint64_t b, uint64_t c) {
    uint64_t s = a;
    uint64_t h = splitmix64(s);
    s = h ^ b;
    h = splitmix64(s);
    s = h ^ c;
    return splitmix64(s);
}

void Rng::seed(uint64_t seed_value) {
    uint64_t s = seed_value;
    for (uint64_t& word : s_) word = splitmix64(s);
    // xoshiro must not start from all zeros; splitmix64 never yields four.
}

Rng Rng::with_state(const uint64_t s[4]) {
    Rng r{Unseeded{}};
    for (int i = 0; i < 4; ++i) r.s_[i] = s[i];
    if ((r.s_[0] | r.s_[1] | r.s_[2] | r.s_[3]) == 0) r.seed(0);
    return r;
}

uint64_t Rng::below(uint64_t n) {
    // Lemire's multiply-shift with rejection: exact, usually one draw.
    __uint128_t m = static_cast<__uint128_t>(next()) * n;
    uint64_t low = static_cast<uint64_t>(m);
    if (low < n) {
        const uint64_t threshold = (0 - n) % n;
        while (low < threshold) {
            m = static_cast<__uint128_t>(next()) * n;
            low = static_cast<uint64_t>(m);
        }
    }
    return static_cast<uint64_t>(m >> 64);
}

double Rng::normal() {
    // Marsaglia's polar method (the second variate is discarded).
    for (;;) {
        const double u = 2.0 * uniform() - 1.0;
        const double v = 2.0 * uniform() - 1.0;
        const double s = u * u + v * v;
        if (s > 0.0 && s < 1.0) return u * std::sqrt(-2.0 * std::log(s) / s);
    }
}

double Rng::gamma(double shape) {
    if (shape < 1.0) {
        // Gamma(a) = Gamma(a + 1) * U^(1/a).
        return gamma(shape + 1.0) * std::pow(uniform(), 1.0 / shape);
    }
    const double d = shape - 1.0 / 3.0;
    const double c = 1.0 / std::sqrt(9.0 * d);
    for (;;) {
        double x, v;
        do {
            x = normal();
            v = 1.0 + c * x;
        } while (v <= 0.0);
        v = v * v * v;
        const double u = uniform();
        if (u < 1.0 - 0.0331 * x * x * x * x) return d * v;
        if (std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v;
    }
}

double Rng::beta(double a, double b) {
    const double x = gamma(a);
    const double y = gamma(b);
    return x / (x + y);
}

// ---- Algorithm L ----

void UniformSampler::draw_next(Rng& rng) {
    // The number of items skipped before the next one whose key falls below
    // the threshold is geometric with success probability W.
    const double denominator = std::log1p(-threshold_);
    double gap = std::floor(std::log(rng.uniform()) / denominator);
    const double room = static_cast<double>(std::numeric_limits<int64_t>::max() - next_) - 2.0;
    if (!(gap < room)) {  // also catches NaN and +inf (threshold underflowed to 0)
        next_ = std::numeric_limits<int64_t>::max();
        return;
    }
    next_ += static_cast<int64_t>(gap) + 1;
}

int64_t UniformSampler::accept_slow(Rng& rng) {
    // Here seen_ > k_ and seen_ >= next_.
    if (!valid_) {
        // The threshold is the k-th smallest of `before` uniform keys:
        // U^(1/k) right after the fill, Beta(k, before - k + 1) after a merge.
        const int64_t before = seen_ - 1;
        if (before == k_)
            threshold_ = std::exp(std::log(rng.uniform()) / k_);
        else
            threshold_ = rng.beta(k_, static_cast<double>(before - k_ + 1));
        valid_ = true;
        next_ = before;
        draw_next(rng);
        if (seen_ < next_) return -1;
    }
    const int64_t slot = static_cast<int64_t>(rng.below(static_cast<uint64_t>(k_)));
    threshold_ *= std::exp(std::log(rng.uniform()) / k_);
    next_ = seen_;
    draw_next(rng);
    return slot;
}

// ---- A-ExpJ ----

double weighted_key(double weight, Rng& rng) { return std::log(rng.uniform()) / weight; }

void heap_sift_up(const double* keys, int32_t* heap, int32_t pos) {
    const int32_t slot = heap[pos];
    const double key = keys[slot];
    while (pos > 0) {
        const int32_t parent = (pos - 1) / 2;
        if (!(key < keys[heap[parent]])) break;
        heap[pos] = heap[parent];
        pos = parent;
    }
    heap[pos] = slot;
}

void heap_sift_down(const double* keys, int32_t* heap, int32_t n, int32_t pos) {
    const int32_t slot = heap[pos];
    const double key = keys[slot];
    for (;;) {
        int32_t child = 2 * pos + 1;
        if (child >= n) break;
        if (child + 1 < n && keys[heap[child + 1]] < keys[heap[child]]) ++child;
        if (!(keys[heap[child]] < key)) break;
        heap[pos] = heap[child];
        pos = child;
    }
    heap[pos] = slot;
}

void build_heap(const double* keys, int32_t* heap, int32_t n) {
    for (int32_t pos = n / 2 - 1; pos >= 0; --pos) heap_sift_down(keys, heap, n, pos);
}

void WeightedSampler::draw_jump(Rng& rng, double min_key) {
    // No item of the next W units of weight beats the smallest key T (as a
    // log) with probability exp(T)^W, so the weight to skip is log(r) / T.
    skipped_ = 0.0;
    jump_ = std::log(rng.uniform()) / min_key;
    if (std::isnan(jump_)) jump_ = 0.0;
}

int64_t WeightedSampler::fill(double weight, Rng& rng, double* keys, int32_t* heap) {
    const int32_t slot = static_cast<int32_t>(seen_ - 1);
    keys[slot] = weighted_key(weight, rng);
    heap[slot] = slot;
    heap_sift_up(keys, heap, slot);
    if (seen_ == k_) draw_jump(rng, keys[heap[0]]);
    return slot;
}

int64_t WeightedSampler::replace(double weight, Rng& rng, double* keys, int32_t* heap) {
    // This item's key is known to beat T: u is uniform on (T^w, 1).
    const int32_t slot = heap[0];
    const double floor_u = std::exp(weight * keys[slot]);
    const double u = floor_u + (1.0 - floor_u) * rng.uniform();
    double key = std::log(u) / weight;
    if (key < keys[slot]) key = keys[slot];  // rounding only
    keys[slot] = key;
    heap_sift_down(keys, heap, k_, 0);
    draw_jump(rng, keys[heap[0]]);
    return slot;
}

void WeightedSampler::reset_after_merge(int32_t k, int64_t seen, Rng& rng, const double* keys,
                                        const int32_t* heap) {
    k_ = k;
    seen_ = seen;
    skipped_ = 0.0;
    jump_ = 0.0;
    if (seen_ >= k_) draw_jump(rng, keys[heap[0]]);
}

// ---- merges ----

int64_t hypergeometric(int64_t a, int64_t b, int64_t m, Rng& rng) {
    // m draws without replacement, one at a time: exact, O(m).
    int64_t taken = 0;
    for (int64_t i = 0; i < m; ++i) {
        if (a == 0) break;
        if (b == 0) {
            taken += std::min(a, m - i);
            break;
        }
        if (rng.below(static_cast<uint64_t>(a + b)) < static_cast<uint64_t>(a)) {
            ++taken;
            --a;
        } else {
            --b;
        }
    }
    return taken;
}

// Picks `want` of the slots 0..count-1 uniformly (partial Fisher-Yates) into
// take[0..want), sorted.
static void choose_slots(int32_t count, int32_t want, Rng& rng, int32_t* take) {
    for (int32_t i = 0; i < count; ++i) take[i] = i;
    for (int32_t i = 0; i < want; ++i) {
        const int32_t j = i + static_cast<int32_t>(rng.below(static_cast<uint64_t>(count - i)));
        std::swap(take[i], take[j]);
    }
    std::sort(take, take + want);
}

MergeSplit uniform_merge(int64_t seen_a, int32_t count_a, int64_t seen_b, int32_t count_b, int32_t k, Rng& rng,
                         int32_t* take_a, int32_t* take_b) {
    if (seen_a < 0 || seen_b < 0 || count_a < 0 || count_b < 0 || count_a > seen_a || count_b > seen_b)
        fail(Errc::corrupted, "reservoir merge: inconsistent counts");
    if (seen_a > std::numeric_limits<int64_t>::max() - seen_b)
        fail(Errc::program_limit, "reservoir merge: more than 2^63 items seen");
    const int64_t total = seen_a + seen_b;
    const int32_t merged = static_cast<int32_t>(std::min<int64_t>(k, total));
    // How many of the merged sample come from A: hypergeometric, as if the
    // merged sample were drawn from the union of both streams.
    const int32_t from_a = static_cast<int32_t>(hypergeometric(seen_a, seen_b, merged, rng));
    const int32_t from_b = merged - from_a;
    if (from_a > count_a || from_b > count_b)
        fail(Errc::corrupted, "reservoir merge: a side holds fewer items than it has seen");
    // A uniform subset of a uniform sample is a uniform sample.
    choose_slots(count_a, from_a, rng, take_a);
    choose_slots(count_b, from_b, rng, take_b);
    return {from_a, from_b};
}

MergeSplit weighted_merge(const double* keys_a, int32_t count_a, const double* keys_b, int32_t count_b, int32_t k,
                          int32_t* take_a, int32_t* take_b) {
    struct Entry {
        double key;
        int32_t slot;  // >= 0: slot of A; < 0: ~slot of B
    };
    std::vector<Entry> all;
    all.reserve(static_cast<size_t>(count_a) + static_cast<size_t>(count_b));
    for (int32_t i = 0; i < count_a; ++i) all.push_back({keys_a[i], i});
    for (int32_t i = 0; i < count_b; ++i) all.push_back({keys_b[i], ~i});
    if (all.size() > static_cast<size_t>(k)) {
        // A-Res keys are independent per item, so the k largest keys of the
        // union are exactly the A-Res sample of the union.
        std::nth_element(all.begin(), all.begin() + k, all.end(),
                         [](const Entry& x, const Entry& y) { return x.key > y.key; });
        all.resize(static_cast<size_t>(k));
    }
    MergeSplit split{0, 0};
    for (const Entry& e : all) {
        if (e.slot >= 0)
            take_a[split.from_a++] = e.slot;
        else
            take_b[split.from_b++] = ~e.slot;
    }
    std::sort(take_a, take_a + split.from_a);
    std::sort(take_b, take_b + split.from_b);
    return split;
}

}  // namespace sketch::reservoir
