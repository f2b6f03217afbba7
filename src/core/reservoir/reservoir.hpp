// Reservoir sampling: the decisions, not the storage.
//
// The samplers here decide, for each arriving item, whether it enters the
// reservoir and which slot it takes; the caller stores the items (PostgreSQL
// Datums, test integers, ...) in its own slot array. Nothing here allocates:
// every array is the caller's, so aggregate states live in PostgreSQL memory.
//
//  * Rng: xoshiro256** seeded through splitmix64, with unbiased bounded
//    integers (Lemire), open-interval doubles, normal, gamma and beta draws.
//  * UniformSampler: Li's Algorithm L. The same distribution as Algorithm R
//    (every item of the stream is in the sample with probability k / seen),
//    but it draws the gap to the next accepted item, so a row that is skipped
//    costs one increment and one comparison and no random draw.
//  * Weighted sampling: Efraimidis-Spirakis A-ExpJ. Same distribution as A-Res
//    (item i gets the key u^(1/w_i), the k largest keys are kept) but it draws
//    how much weight to skip before the next insertion. Keys are kept as
//    log(u) / w (the log of A-Res's key: same order, no underflow).
//  * Merges that are exact: uniform samples by a hypergeometric split of the
//    merged sample between the sides in proportion to what each has seen;
//    weighted samples by keeping the k largest keys.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sketch::reservoir {

// The largest k we accept: the state holds k items in memory.
constexpr int32_t kMaxK = 10000000;

// Throws invalid_parameter unless 1 <= k <= kMaxK.
void check_k(int64_t k);
// Weights from kMinWeight to kMaxWeight: there a key log(u) / weight is a
// normal double for every u in (0, 1), -745 <= log(u) <= -2^-53. Beyond, keys
// overflow to -infinity (smaller weights) or sink into the subnormals and to
// zero (larger ones), tie, and the sample stops following the weights.
constexpr double kMinWeight = 1e-300;
constexpr double kMaxWeight = 1e290;
// One comparison chain: NaN fails both.
inline bool weight_ok(double weight) { return weight >= kMinWeight && weight <= kMaxWeight; }
// Throws invalid_parameter naming the range.
[[noreturn]] void bad_weight(double weight);
inline void check_weight(double weight) {
    if (!weight_ok(weight)) bad_weight(weight);
}

// splitmix64: seeds the generator and mixes seed material.
uint64_t splitmix64(uint64_t& state);
// Mixes several words into one seed (order matters).
uint64_t mix_seed(uint64_t a, uint64_t b, uint64_t c = 0);

class Rng {
public:
    Rng() { seed(0); }
    explicit Rng(uint64_t seed_value) { seed(seed_value); }
    void seed(uint64_t seed_value);

    uint64_t next() {
        const uint64_t result = rotl(s_[1] * 5, 7) * 9;
        const uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }
    // Uniform in the open interval (0, 1): never 0, never 1.
    double uniform() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; }
    // Uniform integer in [0, n), n >= 1, without modulo bias.
    uint64_t below(uint64_t n);
    double normal();
    // Gamma(shape, 1), shape > 0 (Marsaglia-Tsang).
    double gamma(double shape);
    // Beta(a, b) as G_a / (G_a + G_b).
    double beta(double a, double b);

    const uint64_t* state() const { return s_; }
    // A generator that continues from a saved state (all zero: seeded with 0),
    // without seeding one first.
    static Rng with_state(const uint64_t s[4]);

private:
    struct Unseeded {};
    explicit Rng(Unseeded) {}
    static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    uint64_t s_[4];
};

// Algorithm L. offer() is called once per non-null item and returns the slot
// (0 <= slot < k) the item must be stored in, or -1 to discard it.
//   while seen <= k: the item fills slot seen - 1;
//   afterwards only the item at position next_ is accepted, into a random slot.
// threshold_ is Algorithm L's W: the largest of the k smallest uniform keys
// seen so far. After a merge it is unknown (valid_ false) and is redrawn from
// its exact distribution, Beta(k, seen - k + 1), on the next acceptance test.
class UniformSampler {
public:
    UniformSampler() = default;
    explicit UniformSampler(int32_t k) : k_(k) {}

    int64_t offer(Rng& rng) {
        ++seen_;
        if (seen_ <= k_) return seen_ - 1;
        if (seen_ < next_) return -1;
        return accept_slow(rng);
    }
    int32_t k() const { return k_; }
    int64_t seen() const { return seen_; }
    int64_t count() const { return seen_ < k_ ? seen_ : k_; }

    // After the caller replaced the sample by a merged one of `seen` items.
    void reset_after_merge(int32_t k, int64_t seen) {
        k_ = k;
        seen_ = seen;
        valid_ = false;
        next_ = seen + 1;  // forces accept_slow on the next item when full
    }

private:
    int64_t accept_slow(Rng& rng);
    void draw_next(Rng& rng);

    int32_t k_ = 1;
    int64_t seen_ = 0;
    int64_t next_ = 0;
    double threshold_ = 0.0;
    bool valid_ = false;
};

// A-ExpJ. The caller owns keys[k] (the log-key of the item in each slot) and
// heap[k] (slot numbers as a binary min-heap by key, so heap[0] is the slot
// with the smallest key: the one the next insertion replaces).
class WeightedSampler {
public:
    WeightedSampler() = default;
    explicit WeightedSampler(int32_t k) : k_(k) {}

    // weight must already be valid (check_weight).
    int64_t offer(double weight, Rng& rng, double* keys, int32_t* heap) {
        ++seen_;
        if (seen_ <= k_) return fill(weight, rng, keys, heap);
        skipped_ += weight;
        if (skipped_ < jump_) return -1;
        return replace(weight, rng, keys, heap);
    }

    int32_t k() const { return k_; }
    int64_t seen() const { return seen_; }
    int64_t count() const { return seen_ < k_ ? seen_ : k_; }

    // After the caller installed merged keys (and rebuilt the heap with
    // build_heap): the jump is redrawn from the new smallest key.
    void reset_after_merge(int32_t k, int64_t seen, Rng& rng, const double* keys, const int32_t* heap);

private:
    int64_t fill(double weight, Rng& rng, double* keys, int32_t* heap);
    int64_t replace(double weight, Rng& rng, double* keys, int32_t* heap);
    void draw_jump(Rng& rng, double min_key);

    int32_t k_ = 1;
    int64_t seen_ = 0;
    double skipped_ = 0.0;  // weight seen since the last insertion
    double jump_ = 0.0;     // weight to skip before the next insertion
};

// A fresh log-key for an item of this weight (A-Res): log(u) / w.
double weighted_key(double weight, Rng& rng);

// Min-heap helpers over slot numbers ordered by keys[slot].
void heap_sift_down(const double* keys, int32_t* heap, int32_t n, int32_t pos);
void heap_sift_up(const double* keys, int32_t* heap, int32_t pos);
void build_heap(const double* keys, int32_t* heap, int32_t n);

// The exact merge of two uniform samples: side A holds count_a items out of
// seen_a, side B count_b out of seen_b, where count = min(seen, its k) and
// the merged sample has min(k, seen_a + seen_b) items. Fills take_a with the
// slots of A to keep and take_b with the slots of B to keep (the sets are
// uniform random subsets of each side), and returns how many of A are kept
// (the rest, merged - kept_a, come from B). take_a needs room for count_a
// entries, take_b for count_b.
struct MergeSplit {
    int32_t from_a;
    int32_t from_b;
};
MergeSplit uniform_merge(int64_t seen_a, int32_t count_a, int64_t seen_b, int32_t count_b, int32_t k, Rng& rng,
                         int32_t* take_a, int32_t* take_b);

// The number drawn from A when m items are drawn without replacement from an
// urn with a items of A and b of B (hypergeometric), exactly.
int64_t hypergeometric(int64_t a, int64_t b, int64_t m, Rng& rng);

// The exact merge of two weighted samples: the k largest keys of both. Fills
// take_a / take_b like uniform_merge (take arrays need count_a / count_b room).
MergeSplit weighted_merge(const double* keys_a, int32_t count_a, const double* keys_b, int32_t count_b, int32_t k,
                          int32_t* take_a, int32_t* take_b);

}  // namespace sketch::reservoir
