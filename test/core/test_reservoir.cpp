// Unit tests of the reservoir samplers and their merges, without PostgreSQL.
// Statistical tests use fixed seeds; their tolerances come from the math:
//  * inclusion counts of a k-of-n sample over T trials: each count has mean
//    T p (p = k/n) and variance T p (1-p); the counts of one trial always sum
//    to k, so Cov(I_i, I_j) = -p(1-p)/(n-1) and the covariance matrix is
//    T p(1-p) n/(n-1) (I - J/n). Hence sum (O - E)^2 / (T p (1-p) n/(n-1))
//    is chi-square with n - 1 degrees of freedom. We reject at p = 0.001.
//  * a binomial proportion: within 4.5 standard deviations (p ~ 7e-6 each).
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "error.hpp"
#include "reservoir/reservoir.hpp"

using namespace sketch::reservoir;

namespace {

// Chi-square critical value at p = 0.001 (Wilson-Hilferty; 43.9 for 19 df,
// the table says 43.82).
double chi2_critical_001(int df) {
    const double z = 3.0902;
    const double a = 2.0 / (9.0 * df);
    return df * std::pow(1.0 - a + z * std::sqrt(a), 3.0);
}

double inclusion_chi2(const std::vector<long>& counts, long trials, int k) {
    const double n = static_cast<double>(counts.size());
    const double p = k / n;
    const double expected = trials * p;
    const double scale = trials * p * (1 - p) * n / (n - 1);
    double stat = 0;
    for (long c : counts) stat += (c - expected) * (c - expected) / scale;
    return stat;
}

struct Uniform {
    UniformSampler sampler;
    std::vector<int> items;
    explicit Uniform(int k) : sampler(k), items(static_cast<size_t>(k), -1) {}
    void add(int item, Rng& rng) {
        const int64_t slot = sampler.offer(rng);
        if (slot >= 0) items[static_cast<size_t>(slot)] = item;
    }
    int count() const { return static_cast<int>(sampler.count()); }
};

struct Weighted {
    WeightedSampler sampler;
    std::vector<int> items;
    std::vector<double> keys;
    std::vector<int32_t> heap;
    explicit Weighted(int k) : sampler(k), items(k, -1), keys(k), heap(k) {}
    void add(int item, double weight, Rng& rng) {
        check_weight(weight);
        const int64_t slot = sampler.offer(weight, rng, keys.data(), heap.data());
        if (slot >= 0) items[static_cast<size_t>(slot)] = item;
    }
    int count() const { return static_cast<int>(sampler.count()); }
};

// Merges b into a as the PostgreSQL combine function does.
void merge(Uniform& a, const Uniform& b, Rng& rng) {
    const int k = a.sampler.k();
    std::vector<int32_t> ta(a.count() + 1), tb(b.count() + 1);
    MergeSplit s = uniform_merge(a.sampler.seen(), a.count(), b.sampler.seen(), b.count(), k, rng, ta.data(), tb.data());
    std::vector<int> merged;
    for (int i = 0; i < s.from_a; ++i) merged.push_back(a.items[ta[i]]);
    for (int i = 0; i < s.from_b; ++i) merged.push_back(b.items[tb[i]]);
    merged.resize(k, -1);
    a.items = merged;
    a.sampler.reset_after_merge(k, a.sampler.seen() + b.sampler.seen());
}

void merge(Weighted& a, const Weighted& b, Rng& rng) {
    const int k = a.sampler.k();
    std::vector<int32_t> ta(a.count() + 1), tb(b.count() + 1);
    MergeSplit s = weighted_merge(a.keys.data(), a.count(), b.keys.data(), b.count(), k, ta.data(), tb.data());
    std::vector<int> items;
    std::vector<double> keys;
    for (int i = 0; i < s.from_a; ++i) items.push_back(a.items[ta[i]]), keys.push_back(a.keys[ta[i]]);
    for (int i = 0; i < s.from_b; ++i) items.push_back(b.items[tb[i]]), keys.push_back(b.keys[tb[i]]);
    const int n = static_cast<int>(items.size());
    items.resize(k, -1);
    keys.resize(k, 0);
    a.items = items;
    a.keys = keys;
    std::iota(a.heap.begin(), a.heap.end(), 0);
    build_heap(a.keys.data(), a.heap.data(), n);
    a.sampler.reset_after_merge(k, a.sampler.seen() + b.sampler.seen(), rng, a.keys.data(), a.heap.data());
}

// Exact inclusion probabilities of successive sampling (what A-Res draws):
// pick an item with probability proportional to its weight among those not
// yet picked, k times.
void successive(const std::vector<double>& w, std::vector<bool>& used, int left, double prob, std::vector<double>& out) {
    if (left == 0) return;
    double rest = 0;
    for (size_t i = 0; i < w.size(); ++i)
        if (!used[i]) rest += w[i];
    for (size_t i = 0; i < w.size(); ++i) {
        if (used[i]) continue;
        const double p = prob * w[i] / rest;
        out[i] += p;
        used[i] = true;
        successive(w, used, left - 1, p, out);
        used[i] = false;
    }
}

void expect_binomial(long hits, long trials, double p, const char* what) {
    const double sd = std::sqrt(trials * p * (1 - p));
    EXPECT_LT(std::fabs(hits - trials * p), 4.5 * sd) << what << ": " << hits << " of " << trials << ", expected p=" << p;
}

}  // namespace

TEST(ReservoirRng, DeterministicAndInRange) {
    Rng a(42), b(42), c(43);
    bool differs = false;
    for (int i = 0; i < 1000; ++i) {
        const uint64_t x = a.next();
        EXPECT_EQ(x, b.next());
        differs |= x != c.next();
    }
    EXPECT_TRUE(differs);
    for (int i = 0; i < 100000; ++i) {
        const double u = a.uniform();
        ASSERT_GT(u, 0.0);
        ASSERT_LT(u, 1.0);
        ASSERT_LT(a.below(7), 7u);
    }
    EXPECT_EQ(a.below(1), 0u);
}

TEST(ReservoirRng, BetaHasTheRightMean) {
    // Beta(a, b) has mean a / (a + b) and variance ab / ((a+b)^2 (a+b+1)).
    Rng rng(7);
    const double a = 5, b = 16;
    const int n = 20000;
    double sum = 0;
    for (int i = 0; i < n; ++i) sum += rng.beta(a, b);
    const double mean = a / (a + b);
    const double sd = std::sqrt(a * b / ((a + b) * (a + b) * (a + b + 1)) / n);
    EXPECT_NEAR(sum / n, mean, 4.5 * sd);
}

TEST(ReservoirChecks, RejectBadKAndWeights) {
    EXPECT_THROW(check_k(0), sketch::Error);
    EXPECT_THROW(check_k(-3), sketch::Error);
    EXPECT_THROW(check_k(int64_t(kMaxK) + 1), sketch::Error);
    EXPECT_NO_THROW(check_k(1));
    EXPECT_NO_THROW(check_k(kMaxK));
    EXPECT_THROW(check_weight(0.0), sketch::Error);
    EXPECT_THROW(check_weight(-1.0), sketch::Error);
    EXPECT_THROW(check_weight(std::nan("")), sketch::Error);
    EXPECT_THROW(check_weight(INFINITY), sketch::Error);
    EXPECT_THROW(check_weight(-INFINITY), sketch::Error);
    EXPECT_NO_THROW(check_weight(kMinWeight));
    EXPECT_NO_THROW(check_weight(kMaxWeight));
    EXPECT_THROW(check_weight(5e-324), sketch::Error);  // subnormal
    EXPECT_THROW(check_weight(1e-301), sketch::Error);
    EXPECT_THROW(check_weight(1e291), sketch::Error);
    EXPECT_THROW(check_weight(1.7e308), sketch::Error);
}

TEST(ReservoirUniform, KeepsEverythingWhileNotFull) {
    Rng rng(1);
    Uniform u(10);
    for (int i = 0; i < 7; ++i) u.add(i, rng);
    EXPECT_EQ(u.count(), 7);
    for (int i = 0; i < 7; ++i) EXPECT_EQ(u.items[i], i);
}

TEST(ReservoirUniform, FiveOfTwentyIsUniform) {
    const int n = 20, k = 5, trials = 20000;
    std::vector<long> counts(n);
    Rng rng(2024);
    for (int t = 0; t < trials; ++t) {
        Uniform u(k);
        for (int i = 0; i < n; ++i) u.add(i, rng);
        for (int x : u.items) counts[x]++;
    }
    EXPECT_LT(inclusion_chi2(counts, trials, k), chi2_critical_001(n - 1));
}

TEST(ReservoirUniform, LongStreamIsUniformAndSkipsMostRows) {
    // 10 of 2000 (mostly through Algorithm L's jumps), positions grouped
    // into 20 bins of 100; each bin tested as a binomial proportion.
    const int n = 2000, k = 10, trials = 4000;
    std::vector<long> bins(20);
    Rng rng(99);
    long accepted = 0;
    for (int t = 0; t < trials; ++t) {
        Uniform u(k);
        for (int i = 0; i < n; ++i) {
            const int64_t slot = u.sampler.offer(rng);
            if (slot >= 0) u.items[slot] = i, ++accepted;
        }
        for (int x : u.items) bins[x / 100]++;
    }
    // A bin holds 100 of the 2000 positions; over trials * k draws of
    // positions each lands in a bin with p = 1/20 (not independent within a
    // trial, but negatively correlated, so the binomial bound is loose).
    for (long b : bins) expect_binomial(b, long(trials) * k, 1.0 / 20, "bin");
    // Expected acceptances: k + sum_{i>k} k/i ~ k (1 + ln(n/k)) = 63 per trial.
    const double expected = k * (1 + std::log(double(n) / k));
    EXPECT_LT(accepted, 1.2 * expected * trials);
    EXPECT_GT(accepted, 0.8 * expected * trials);
}

TEST(ReservoirUniform, SameSeedSameSample) {
    Rng a(5), b(5);
    Uniform x(8), y(8);
    for (int i = 0; i < 10000; ++i) x.add(i, a), y.add(i, b);
    EXPECT_EQ(x.items, y.items);
}

TEST(ReservoirUniform, MergeOfUnequalStreamsIsExact) {
    // A sees items 0..6, B items 7..36; the merged 5 must be a uniform
    // 5-subset of all 37: every item with probability 5/37.
    const int k = 5, na = 7, nb = 30, trials = 20000;
    std::vector<long> counts(na + nb);
    Rng rng(31337);
    for (int t = 0; t < trials; ++t) {
        Uniform a(k), b(k);
        for (int i = 0; i < na; ++i) a.add(i, rng);
        for (int i = na; i < na + nb; ++i) b.add(i, rng);
        merge(a, b, rng);
        ASSERT_EQ(a.count(), k);
        for (int x : a.items) counts[x]++;
    }
    EXPECT_LT(inclusion_chi2(counts, trials, k), chi2_critical_001(na + nb - 1));
}

TEST(ReservoirUniform, MergeWithASideNotFull) {
    // A holds 3 < k items; B 12. Merged: 6 of 15 uniform.
    const int k = 6, na = 3, nb = 12, trials = 20000;
    std::vector<long> counts(na + nb);
    Rng rng(8);
    for (int t = 0; t < trials; ++t) {
        Uniform a(k), b(k);
        for (int i = 0; i < na; ++i) a.add(i, rng);
        for (int i = na; i < na + nb; ++i) b.add(i, rng);
        merge(b, a, rng);  // the full side absorbs the small one
        for (int x : b.items) counts[x]++;
    }
    EXPECT_LT(inclusion_chi2(counts, trials, k), chi2_critical_001(na + nb - 1));
}

TEST(ReservoirUniform, MergeOfTwoSmallSidesKeepsAll) {
    Rng rng(3);
    Uniform a(10), b(10);
    for (int i = 0; i < 4; ++i) a.add(i, rng);
    for (int i = 4; i < 9; ++i) b.add(i, rng);
    merge(a, b, rng);
    EXPECT_EQ(a.sampler.seen(), 9);
    std::vector<int> got(a.items.begin(), a.items.begin() + 9);
    std::sort(got.begin(), got.end());
    for (int i = 0; i < 9; ++i) EXPECT_EQ(got[i], i);
}

TEST(ReservoirUniform, AddingAfterAMergeStaysUniform) {
    // 12 + 9 items merged, then 19 more added to the merged state (Algorithm
    // L restarts from a threshold drawn from Beta(k, seen - k + 1)): 4 of 40.
    const int k = 4, trials = 20000;
    std::vector<long> counts(40);
    Rng rng(77);
    for (int t = 0; t < trials; ++t) {
        Uniform a(k), b(k);
        for (int i = 0; i < 12; ++i) a.add(i, rng);
        for (int i = 12; i < 21; ++i) b.add(i, rng);
        merge(a, b, rng);
        for (int i = 21; i < 40; ++i) a.add(i, rng);
        for (int x : a.items) counts[x]++;
    }
    EXPECT_LT(inclusion_chi2(counts, trials, k), chi2_critical_001(39));
}

TEST(ReservoirUniform, ManyWayMergeIsUniform) {
    // 5 of 20 over 3000 trials (the SQL test's shape), the stream split in
    // four uneven parts merged left to right.
    const int n = 20, k = 5, trials = 3000;
    const int cuts[] = {0, 2, 9, 11, 20};
    std::vector<long> counts(n);
    Rng rng(4242);
    for (int t = 0; t < trials; ++t) {
        Uniform acc(k);
        for (int part = 0; part < 4; ++part) {
            Uniform p(k);
            for (int i = cuts[part]; i < cuts[part + 1]; ++i) p.add(i, rng);
            merge(acc, p, rng);
        }
        for (int x : acc.items) counts[x]++;
    }
    EXPECT_LT(inclusion_chi2(counts, trials, k), chi2_critical_001(n - 1));
}

TEST(ReservoirHypergeometric, MeanAndBounds) {
    Rng rng(11);
    const int trials = 20000;
    long sum = 0;
    for (int t = 0; t < trials; ++t) {
        const int64_t x = hypergeometric(30, 70, 10, rng);
        ASSERT_GE(x, 0);
        ASSERT_LE(x, 10);
        sum += x;
    }
    // mean m a / N = 3; variance m (a/N)(b/N)(N-m)/(N-1) = 1.909
    EXPECT_NEAR(double(sum) / trials, 3.0, 4.5 * std::sqrt(1.909 / trials));
    EXPECT_EQ(hypergeometric(5, 0, 3, rng), 3);
    EXPECT_EQ(hypergeometric(0, 5, 3, rng), 0);
}

TEST(ReservoirWeighted, SingleSlotChoosesByWeight) {
    // k = 1, A weight 1, B weight 3: B with probability 0.75.
    const int trials = 20000;
    long b_wins = 0;
    Rng rng(555);
    for (int t = 0; t < trials; ++t) {
        Weighted w(1);
        w.add(0, 1.0, rng);
        w.add(1, 3.0, rng);
        b_wins += w.items[0] == 1;
    }
    expect_binomial(b_wins, trials, 0.75, "B");
}

TEST(ReservoirWeighted, InclusionMatchesSuccessiveSampling) {
    // The long stream goes through the A-ExpJ jumps: 2 of 9 items.
    const std::vector<double> weights = {1, 2, 3, 4, 5, 0.5, 7, 1, 2};
    const int k = 2, trials = 40000;
    std::vector<double> exact(weights.size());
    std::vector<bool> used(weights.size());
    successive(weights, used, k, 1.0, exact);
    std::vector<long> counts(weights.size());
    Rng rng(9);
    for (int t = 0; t < trials; ++t) {
        Weighted w(k);
        for (size_t i = 0; i < weights.size(); ++i) w.add(static_cast<int>(i), weights[i], rng);
        for (int x : w.items) counts[x]++;
    }
    for (size_t i = 0; i < weights.size(); ++i) expect_binomial(counts[i], trials, exact[i], "item");
}

TEST(ReservoirWeighted, MergeMatchesSuccessiveSampling) {
    // The same stream split in two, merged, then two more items added to the
    // merged state: the inclusion probabilities must not change.
    const std::vector<double> weights = {1, 2, 3, 4, 5, 0.5, 7, 1, 2};
    const int k = 3, trials = 40000;
    std::vector<double> exact(weights.size());
    std::vector<bool> used(weights.size());
    successive(weights, used, k, 1.0, exact);
    std::vector<long> counts(weights.size());
    Rng rng(10);
    for (int t = 0; t < trials; ++t) {
        Weighted a(k), b(k);
        for (int i = 0; i < 2; ++i) a.add(i, weights[i], rng);
        for (int i = 2; i < 7; ++i) b.add(i, weights[i], rng);
        merge(a, b, rng);
        for (int i = 7; i < 9; ++i) a.add(i, weights[i], rng);
        for (int x : a.items) counts[x]++;
    }
    for (size_t i = 0; i < weights.size(); ++i) expect_binomial(counts[i], trials, exact[i], "item");
}

TEST(ReservoirWeighted, HeavyItemsAreKept) {
    // 3 items of weight 1e6 among 40 of weight 1, k = 3: a light item beats
    // a heavy one with probability about 40 / 1e6 per trial.
    const int trials = 1000;
    int all_heavy = 0;
    Rng rng(12);
    for (int t = 0; t < trials; ++t) {
        Weighted w(3);
        for (int i = 0; i < 43; ++i) w.add(i, (i % 14 == 0 && i < 42) ? 1e6 : 1.0, rng);
        int heavy = 0;
        for (int x : w.items) heavy += (x % 14 == 0 && x < 42);
        all_heavy += heavy == 3;
    }
    EXPECT_GT(all_heavy, 980);
}

TEST(ReservoirWeighted, ExtremeWeightsKeepKeysOrdered) {
    Rng rng(13);
    Weighted w(4);
    const double weights[] = {kMinWeight, kMaxWeight, 1.0, 1e-10, 1e10, 2 * kMinWeight, kMaxWeight / 2, 2.0};
    for (int i = 0; i < 8; ++i) w.add(i, weights[i], rng);
    for (int i = 0; i < 4; ++i) EXPECT_TRUE(std::isnormal(w.keys[i])) << w.keys[i];
    // the heap's top is the smallest key
    for (int i = 0; i < 4; ++i) EXPECT_LE(w.keys[w.heap[0]], w.keys[i]);
}

// At either end of the weight range the sample still follows the weights:
// k = 1, one item of 10 w against nine of w, so P(heavy) = 10/19. (Subnormal
// weights, once accepted, gave every key -infinity: the heavy item lost every
// trial.)
TEST(ReservoirWeighted, ChoosesByWeightAtTheEndsOfTheRange) {
    const int trials = 20000;
    for (const double w : {kMinWeight, kMaxWeight / 10}) {
        Rng rng(77);
        long heavy_wins = 0;
        for (int t = 0; t < trials; ++t) {
            Weighted s(1);
            s.add(0, 10 * w, rng);
            for (int i = 1; i < 10; ++i) s.add(i, w, rng);
            heavy_wins += s.items[0] == 0;
        }
        expect_binomial(heavy_wins, trials, 10.0 / 19.0, w == kMinWeight ? "heavy at kMinWeight" : "heavy at kMaxWeight");
    }
}
