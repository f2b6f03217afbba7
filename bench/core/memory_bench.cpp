// What memory costs on this machine, the floor under every lookup in a filter
// beyond the caches: the latency of one dependent load (what a per-row SQL
// function such as bloom_contains pays: the next row cannot start its probe
// before this one's answer) and the rate of independent cache-line updates
// (what a batching aggregate can reach at best), at 1 to 64 MiB, with 4 KiB
// and transparent huge pages.
//   make bench/core/memory_bench && bench/core/memory_bench
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

uint64_t* lines(size_t count, bool huge) {
    void* mem = nullptr;
    if (posix_memalign(&mem, size_t(2) << 20, count * 64) != 0) std::abort();
    if (huge) madvise(mem, count * 64, MADV_HUGEPAGE);
    return static_cast<uint64_t*>(mem);
}

// ns per load of a random cycle through every line: each load's address is
// the previous load's value.
double dependent_load_ns(size_t count, bool huge) {
    uint64_t* a = lines(count, huge);
    std::vector<uint64_t> order(count);
    for (size_t i = 0; i < count; ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), std::mt19937_64(1));
    for (size_t i = 0; i < count; ++i) a[order[i] * 8] = order[(i + 1) % count] * 8;
    const size_t steps = 4000000;
    uint64_t p = order[0] * 8;
    const auto t0 = std::chrono::steady_clock::now();
    for (size_t i = 0; i < steps; ++i) p = a[p];
    const double ns = seconds_since(t0) * 1e9 / steps;
    if (p == 1) std::puts("");  // keeps the chain alive
    std::free(a);
    return ns;
}

// ns per increment of a random line, with the addresses known ahead (as a
// batch of hashes gives them) and prefetched 16 ahead.
double independent_update_ns(size_t count, bool huge) {
    uint64_t* a = lines(count, huge);
    for (size_t i = 0; i < count * 8; ++i) a[i] = 0;
    std::mt19937_64 rng(2);
    const size_t steps = 8000000;
    std::vector<uint32_t> at(steps);
    for (auto& x : at) x = uint32_t(rng() % count) * 8;
    const auto t0 = std::chrono::steady_clock::now();
    for (size_t i = 0; i < steps; ++i) {
        if (i + 16 < steps) __builtin_prefetch(a + at[i + 16], 1);
        a[at[i]] += 1;
    }
    const double ns = seconds_since(t0) * 1e9 / steps;
    std::free(a);
    return ns;
}

}  // namespace

int main() {
    std::printf("%8s %6s %22s %24s\n", "MiB", "pages", "dependent load (ns)", "independent update (ns)");
    for (size_t mib : {1, 4, 8, 16, 32, 64}) {
        for (bool huge : {false, true}) {
            const size_t count = mib * 1024 * 1024 / 64;
            std::printf("%8zu %6s %22.1f %24.1f\n", mib, huge ? "huge" : "4k", dependent_load_ns(count, huge),
                        independent_update_ns(count, huge));
        }
    }
}
