// Core Bloom benchmarks (Google Benchmark), laid out like Boost.Bloom's
// comparison table: for each layout, at n items and c bits per item, ns per
// insert, per successful / unsuccessful / mixed lookup, and the measured FPR.
// Keys are uint64 or 16-byte strings, hashed with XXH3 as the SQL face does.
// "one" = one call per item; "bulk" = hashes of 256 items, then the
// prefetching insert_many / contains_many (what bloom_agg's buffer does).
//
//   make bench/core/bloom_bench && bench/core/bloom_bench [--benchmark_filter=...]
//   BLOOM_BENCH_N=1000000,10000000 (default) BLOOM_BENCH_C=12 (bits per item)
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bloom/bloom.hpp"
#include "hash.hpp"

// The same kernels instantiated here at a fixed configuration, called
// directly (no dispatch): the baseline for run-time configuration's cost.
#define BLOOM_KERNEL_NS kernels_bench_fixed
#include "bloom/bloom_kernels.hpp"

using namespace sketch;
using namespace sketch::bloom;

namespace {

uint64_t splitmix(uint64_t& s) {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

struct Keys {
    std::vector<uint64_t> ints;   // members, then non-members
    std::vector<char> strings;    // 16 bytes each, same order
};

const Keys& keys(size_t n) {
    static size_t cached_n = 0;
    static Keys k;
    if (cached_n != n) {
        uint64_t s = 12345;
        k.ints.resize(2 * n);
        k.strings.resize(2 * n * 16);
        for (size_t i = 0; i < 2 * n; ++i) {
            k.ints[i] = splitmix(s);
            uint64_t a = splitmix(s), b = splitmix(s);
            std::memcpy(&k.strings[i * 16], &a, 8);
            std::memcpy(&k.strings[i * 16 + 8], &b, 8);
        }
        cached_n = n;
    }
    return k;
}

inline Hash128 key_hash(const Keys& k, size_t i, bool strings) {
    return strings ? hash_bytes(&k.strings[i * 16], 16) : hash_int(int64_t(k.ints[i]));
}

enum class Op { insert, hit, miss, mixed };

// The counters every cell reports, the same set in each (the CSV reporter
// refuses a run that lacks a counter of its header): ns an item, the share of
// lookups that said "present" (100 for hits, the measured FPR for misses, 0
// for inserts, which look nothing up), and the filter's bits an item.
void report(benchmark::State& state, size_t n, size_t found, const Geometry& g) {
    // ns per item: kIsRate divides by seconds, kInvert turns items/s into s/item.
    state.counters["ns/op"] = benchmark::Counter(double(n) * 1e-9 * double(state.iterations()),
                                                 benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.counters["found%"] = 100.0 * double(found) / double(n);
    state.counters["bits/item"] = double(g.bits()) / double(n);
}

void run(benchmark::State& state, std::string spec, size_t n, double c, bool strings, Op op, bool bulk) {
    const Keys& k = keys(n);
    Layout l = parse_layout(spec);
    Geometry g = geometry_for_bits(l, uint64_t(c * double(n)));
    const Ops& ops = ops_for(g.layout);
    auto f = std::make_unique<Filter>(g);
    Span s = span_for(g, f->bits());
    if (op != Op::insert) {
        for (size_t i = 0; i < n; ++i) ops.insert_one(s, key_hash(k, i, strings));
    }
    // Which keys each op touches: members [0, n), non-members [n, 2n), or
    // alternating for mixed.
    auto index = [&](size_t i) -> size_t {
        switch (op) {
            case Op::insert:
            case Op::hit: return i;
            case Op::miss: return n + i;
            case Op::mixed: return (i & 1) ? n + i : i;
        }
        return i;
    };
    size_t found = 0;
    Hash128 batch[256];
    for (auto _ : state) {
        if (op == Op::insert) {
            state.PauseTiming();
            std::memset(f->bits(), 0, g.bytes);
            state.ResumeTiming();
        }
        found = 0;
        if (!bulk) {
            for (size_t i = 0; i < n; ++i) {
                const Hash128 h = key_hash(k, index(i), strings);
                if (op == Op::insert) ops.add_one(s, h);
                else found += ops.contains_one(s, h);
            }
        } else {
            for (size_t start = 0; start < n; start += 256) {
                const size_t m = n - start < 256 ? n - start : 256;
                for (size_t j = 0; j < m; ++j) batch[j] = key_hash(k, index(start + j), strings);
                if (op == Op::insert) ops.insert_many(s, batch, m);
                else found += ops.contains_many(s, batch, m, nullptr);
            }
        }
        benchmark::DoNotOptimize(found);
        benchmark::ClobberMemory();
    }
    report(state, n, found, g);
    if (op == Op::hit && found != n) state.SkipWithError("false negative");
    state.SetLabel(format_layout(g.layout) + " " + path_name(Path::best));
}

// Dispatched (ops_for once per call, function pointer per item) against the
// compile-time kernel inlined into the loop, on prehashed keys. Both layouts
// below have one subarray per item (the kOne kernels).
template <typename Fixed>
void fixed_vs_dispatch(benchmark::State& state, std::string spec, size_t n, bool fixed, bool lookup, Path path) {
    const Keys& k = keys(n);
    Geometry g = geometry_for_bits(parse_layout(spec), 12 * n);
    auto f = std::make_unique<Filter>(g);
    Span s = span_for(g, f->bits());
    std::vector<Hash128> hs(n);
    for (size_t i = 0; i < n; ++i) hs[i] = hash_int(int64_t(k.ints[i]));
    for (auto& h : hs) ops_for(g.layout).insert_one(s, h);
    size_t found = 0;
    for (auto _ : state) {
        found = 0;
        if (fixed) {
            if (lookup) for (auto& h : hs) found += Fixed::template contains1<1, 0>(s, h.lo);
            else for (auto& h : hs) Fixed::template insert1<1, 0>(s, h.lo);
        } else {
            const Ops& ops = ops_for(g.layout, path);
            if (lookup) for (auto& h : hs) found += ops.contains_one(s, h);
            else for (auto& h : hs) ops.add_one(s, h);
        }
        benchmark::DoNotOptimize(found);
        benchmark::ClobberMemory();
    }
    report(state, n, found, g);
}

void register_fixed() {
    using namespace BLOOM_KERNEL_NS;
    for (size_t n : {size_t(20000), size_t(1000000)}) {
        for (bool lookup : {false, true}) {
            for (bool fixed : {false, true}) {
                std::string suffix = "/n=" + std::to_string(n) + (lookup ? "/lookup" : "/insert") + (fixed ? "/fixed" : "/dispatched");
                benchmark::RegisterBenchmark(("runtime_config/block<uint64,6>" + suffix).c_str(), [=](benchmark::State& st) {
                    fixed_vs_dispatch<Driver<BlockSub<uint64_t, 1, 6>>>(st, "block<uint64,6>", n, fixed, lookup, Path::best);
                })->Unit(benchmark::kMillisecond);
                benchmark::RegisterBenchmark(("runtime_config/fast_multiblock32<8>_scalar" + suffix).c_str(), [=](benchmark::State& st) {
                    fixed_vs_dispatch<Driver<FastSub<uint32_t, 8>>>(st, "fast_multiblock32<8>", n, fixed, lookup, Path::scalar);
                })->Unit(benchmark::kMillisecond);
            }
        }
    }
}

std::vector<size_t> sizes() {
    std::vector<size_t> out;
    const char* env = std::getenv("BLOOM_BENCH_N");
    std::string s = env ? env : "1000000,10000000";
    size_t pos = 0;
    while (pos < s.size()) {
        size_t comma = s.find(',', pos);
        out.push_back(std::stoull(s.substr(pos, comma - pos)));
        pos = comma == std::string::npos ? s.size() : comma + 1;
    }
    return out;
}

void register_all() {
    const double c = std::getenv("BLOOM_BENCH_C") ? std::atof(std::getenv("BLOOM_BENCH_C")) : 12.0;
    // Boost.Bloom's comparison table configurations (K at its optimum for c = 12).
    const char* layouts[] = {"classic<8>", "block<uint64,6>", "block<uint64,6>/1",
                             "multiblock<uint64,8>", "multiblock<uint64,9>/1", "block<uint64[8],7>", "multiblock<uint32,8>",
                             "fast_multiblock32<8>", "fast_multiblock32<8>/1", "fast_multiblock64<8>", "fast_multiblock64<9>/1",
                             "cbf<8>"};
    const char* op_names[] = {"insert", "hit", "miss", "mixed"};
    for (size_t n : sizes()) {
        for (bool strings : {false, true}) {
            for (const char* spec : layouts) {
                for (int op = 0; op < 4; ++op) {
                    for (bool bulk : {false, true}) {
                        std::string name = std::string(spec) + "/n=" + std::to_string(n) + (strings ? "/str16" : "/u64") + "/" +
                                           op_names[op] + (bulk ? "/bulk" : "/one");
                        benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& st) {
                            run(st, spec, n, c, strings, Op(op), bulk);
                        })->Iterations(1)->Repetitions(1)->Unit(benchmark::kMillisecond);
                    }
                }
            }
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    register_fixed();
    register_all();
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
