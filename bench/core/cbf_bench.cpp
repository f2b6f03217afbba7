// Micro-benchmark of the cbf core on a filter larger than the caches: one add
// at a time versus the aggregate's batched flush, with and without huge pages.
//   g++ -O2 -std=c++17 -Isrc/core bench/core/cbf_bench.cpp src/core/cbf.cpp \
//       src/core/cbf_format.cpp src/core/hash.cpp src/core/error.cpp -o /tmp/cbf_bench && /tmp/cbf_bench
#include <sys/mman.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cbf.hpp"
#include "cbf_format.hpp"

using namespace sketch;

static double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

static uint8_t* alloc(size_t bytes, bool huge) {
    const size_t align = size_t(2) << 20;
    void* p = nullptr;
    if (posix_memalign(&p, align, bytes + cbf::kHeaderBytes + cbf::kBufferBytes + align) != 0) abort();
    if (huge) madvise(p, bytes + align, MADV_HUGEPAGE);
    std::memset(p, 0, bytes + cbf::kHeaderBytes + cbf::kBufferBytes);
    return static_cast<uint8_t*>(p);
}

int main(int argc, char** argv) {
    const int64_t n = argc > 1 ? atoll(argv[1]) : 10000000;
    const cbf::Geometry g = cbf::geometry_for(n, 0.01);
    std::vector<Hash128> hashes(n);
    for (int64_t i = 0; i < n; ++i) hashes[i] = hash_int(i * 7919);
    printf("n=%lld k=%u m=%llu (%zu MiB)\n", (long long)n, g.k, (unsigned long long)g.m, g.counter_bytes() >> 20);
    for (int huge = 0; huge < 2; ++huge) {
        {
            uint8_t* c = alloc(g.counter_bytes(), huge);
            auto t0 = std::chrono::steady_clock::now();
            for (int64_t i = 0; i < n; ++i) cbf::add(g, c, hashes[i]);
            printf("%-5s one at a time: %.1f ns/add\n", huge ? "huge" : "4k", seconds_since(t0) * 1e9 / n);
            free(c);
        }
        {
            uint8_t* mem = alloc(g.counter_bytes(), huge);
            cbf::write_header(mem, g, cbf::kFlagBuffered, 0);
            cbf::View v = cbf::read_value(mem, cbf::value_bytes(g) + cbf::kBufferBytes, cbf::kMaxCounters,
                                          Errc::corrupted, true);
            auto t0 = std::chrono::steady_clock::now();
            for (int64_t i = 0; i < n; ++i) {
                if (v.buffered == cbf::kBufferSlots) cbf::flush_buffered(v);
                cbf::push_buffered(v, hashes[i]);
            }
            cbf::flush_buffered(v);
            printf("%-5s buffered:      %.1f ns/add\n", huge ? "huge" : "4k", seconds_since(t0) * 1e9 / n);
            free(mem);
        }
    }
}
