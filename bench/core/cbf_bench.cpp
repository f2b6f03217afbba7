// Micro-benchmark of the cbf core on a filter larger than the caches: add and
// contains one at a time versus add_many (what cbf_agg does with its batches)
// and add_atomic (what a shared object's add does, without its lock),
// with 4 KiB pages and with transparent huge pages, for a layout
// (cbf_layout.hpp: classic, the default, or block).
//   make bench/core/cbf_bench && bench/core/cbf_bench [items] [layout]
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cbf/cbf.hpp"
#include "cbf/cbf_layout.hpp"

using namespace sketch;

static double ns_per(std::chrono::steady_clock::time_point t0, int64_t n) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() * 1e9 / n;
}

int main(int argc, char** argv) {
    const int64_t n = argc > 1 ? atoll(argv[1]) : 10000000;
    const cbf::Geometry g = cbf::geometry_for(n, 0.01, cbf::parse_layout(argc > 2 ? argv[2] : "classic"));
    std::vector<Hash128> hashes(n);
    for (int64_t i = 0; i < n; ++i) hashes[i] = hash_int(i * 7919);
    printf("%s n=%lld k=%u m=%llu (%zu MiB of counters)\n", cbf::format_layout(cbf::layout_of(g)).c_str(), (long long)n, g.k, (unsigned long long)g.m, g.counter_bytes() >> 20);
    for (int huge = 0; huge < 2; ++huge) {
        void* mem = nullptr;
        if (posix_memalign(&mem, size_t(2) << 20, g.counter_bytes()) != 0) return 1;
        if (huge) madvise(mem, g.counter_bytes(), MADV_HUGEPAGE);
        uint8_t* c = static_cast<uint8_t*>(mem);
        const char* pages = huge ? "huge" : "4k";
        std::memset(c, 0, g.counter_bytes());
        auto t0 = std::chrono::steady_clock::now();
        for (int64_t i = 0; i < n; ++i) cbf::add(g, c, hashes[i]);
        printf("%-4s add, one at a time:  %6.1f ns\n", pages, ns_per(t0, n));
        std::memset(c, 0, g.counter_bytes());
        t0 = std::chrono::steady_clock::now();
        for (int64_t i = 0; i < n; ++i) cbf::add_atomic(g, c, hashes[i]);
        printf("%-4s add_atomic, one at a time: %6.1f ns\n", pages, ns_per(t0, n));
        std::memset(c, 0, g.counter_bytes());
        t0 = std::chrono::steady_clock::now();
        for (int64_t b = 0; b < n; b += 256) cbf::add_many(g, c, &hashes[b], std::min<int64_t>(256, n - b));
        printf("%-4s add_many, 256 a batch: %6.1f ns\n", pages, ns_per(t0, n));
        t0 = std::chrono::steady_clock::now();
        int64_t hits = 0;
        for (int64_t i = 0; i < n; ++i) hits += cbf::contains(g, c, hashes[i]);
        printf("%-4s contains (all hit):   %6.1f ns (%lld hits)\n", pages, ns_per(t0, n), (long long)hits);
        free(mem);
    }
}
