// Lookups in a scaling Bloom filter (shared/scaling.hpp) that took 8 times
// its initial capacity, against one filter sized for that many items at the
// same fpr: ns per successful and unsuccessful lookup, and the measured rate.
// The scaled filter has four sub-filters of the default layout (n0, 2 n0,
// 4 n0, 8 n0 items at fpr / 2, / 4, / 8, / 16), holding n0, 2 n0, 4 n0 and
// n0 items. Its lookups run two ways: sub-filter after sub-filter, newest
// first, stopping at a hit ("sequential"); and starting the loads of the
// item's block in every sub-filter before testing any ("prefetched"), so
// that their cache misses overlap.
//
//   make bench/core/scaling_bench && bench/core/scaling_bench [--benchmark_filter=...]
//   SCALING_BENCH_N0=1000000 (default: the initial capacity; 8 n0 items are held)
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <vector>

#include "bloom/bloom.hpp"
#include "bloom/shared_bloom_format.hpp"
#include "hash.hpp"
#include "shared/scaling.hpp"

using namespace sketch;
namespace sb = sketch::bloom;
namespace sh = sketch::shared;

namespace {

constexpr double kFpr = 0.01;
constexpr size_t kProbes = 1 << 20;

uint64_t splitmix(uint64_t& s) {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

std::vector<Hash128> hashes(size_t n, uint64_t seed) {
    std::vector<Hash128> out(n);
    for (Hash128& h : out) {
        h.lo = splitmix(seed);
        h.hi = splitmix(seed);
    }
    return out;
}

uint64_t initial_capacity() {
    const char* env = getenv("SCALING_BENCH_N0");
    return env != nullptr ? strtoull(env, nullptr, 10) : 1000000;
}

// A filter and the span its kernels take.
struct Sub {
    sb::Filter f;
    sb::Span span;
    explicit Sub(const sb::Geometry& g) : f(g), span(sb::span_for(g, f.bits())) {}
};

struct Setup {
    std::vector<Sub> scaled;  // oldest first
    std::vector<Sub> fixed;   // one
    const sb::Ops* ops = nullptr;
    std::vector<Hash128> members;  // every item held
    std::vector<Hash128> others;   // items never added
};

const Setup& setup() {
    static Setup s = [] {
        Setup out;
        const uint64_t n0 = initial_capacity();
        const sh::Series series{n0, kFpr, 2};
        const double fpr0 = sh::subfilter_fpr(series, 0);
        const sb::Layout layout = sb::default_layout(n0, fpr0);
        out.ops = &sb::ops_for(layout);
        const std::vector<shared_bloom::Subfilter> plan = shared_bloom::subfilters(sb::capacity_for(n0, fpr0, layout), series, 4);
        out.members = hashes(8 * n0, 1);
        uint64_t next = 0;
        out.scaled.reserve(4);
        for (uint32_t i = 0; i < 4; ++i) {
            out.scaled.emplace_back(plan[i].g);
            const uint64_t take = i < 3 ? sh::subfilter_capacity(series, i) : 8 * n0 - next;
            for (uint64_t j = 0; j < take; ++j) out.scaled.back().f.insert(out.members[next++]);
        }
        // The fixed filter has the layout a fixed object of 8 n0 items gets.
        out.fixed.emplace_back(sb::capacity_for(8 * n0, kFpr, sb::default_layout(8 * n0, kFpr)));
        for (const Hash128& h : out.members) out.fixed.back().f.insert(h);
        out.others = hashes(kProbes, 2);
        return out;
    }();
    return s;
}

bool contains_sequential(const Setup& s, const Hash128& h) {
    for (size_t i = s.scaled.size(); i-- > 0;)
        if (s.ops->contains_one(s.scaled[i].span, h)) return true;
    return false;
}

bool contains_prefetched(const Setup& s, const Hash128& h) {
    for (const Sub& sub : s.scaled) s.ops->prefetch_one(sub.span, h);
    return contains_sequential(s, h);
}

bool contains_fixed(const Setup& s, const Hash128& h) {
    const Sub& f = s.fixed.front();
    return sb::ops_for(f.f.geometry().layout).contains_one(f.span, h);
}

template <bool (*Contains)(const Setup&, const Hash128&)>
void lookups(benchmark::State& state, bool members) {
    const Setup& s = setup();
    const std::vector<Hash128>& probes = members ? s.members : s.others;
    size_t i = 0, hits = 0, done = 0;
    for (auto _ : state) {
        // a stride through the members, so successive probes land far apart
        const Hash128& h = probes[(i * 7919) % probes.size()];
        ++i;
        const bool hit = Contains(s, h);
        benchmark::DoNotOptimize(hit);
        hits += hit;
        ++done;
    }
    state.counters["hit_rate"] = double(hits) / double(done);
}

void BM_fixed_hit(benchmark::State& st) { lookups<contains_fixed>(st, true); }
void BM_fixed_miss(benchmark::State& st) { lookups<contains_fixed>(st, false); }
void BM_scaled_sequential_hit(benchmark::State& st) { lookups<contains_sequential>(st, true); }
void BM_scaled_sequential_miss(benchmark::State& st) { lookups<contains_sequential>(st, false); }
void BM_scaled_prefetched_hit(benchmark::State& st) { lookups<contains_prefetched>(st, true); }
void BM_scaled_prefetched_miss(benchmark::State& st) { lookups<contains_prefetched>(st, false); }

}  // namespace

BENCHMARK(BM_fixed_hit);
BENCHMARK(BM_fixed_miss);
BENCHMARK(BM_scaled_sequential_hit);
BENCHMARK(BM_scaled_sequential_miss);
BENCHMARK(BM_scaled_prefetched_hit);
BENCHMARK(BM_scaled_prefetched_miss);
BENCHMARK_MAIN();
