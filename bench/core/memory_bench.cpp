// What memory costs on this machine, the floor under every lookup in a filter
// beyond the caches: the latency of one dependent load (what a per-row SQL
// function such as bloom_contains pays: the next row cannot start its probe
// before this one's answer) and the rate of independent cache-line updates
// (what a batching aggregate can reach at best), at 1 to 64 MiB, with 4 KiB
// and transparent huge pages. Then what a scan's lookups cost per row at best:
// k random lines a row, requested a few rows ahead as the prefetching scan
// does, with and without the 8 KB read a sequential scan makes every 110 rows
// of `t` (a system call, which on a kernel with page table isolation and no
// PCID also empties the TLB).
//   make bench/core/memory_bench && bench/core/memory_bench
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

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

// A file in the page cache for the scan's reads; unlinked at once.
int page_cache_file(size_t bytes) {
    char path[] = "/tmp/memory_bench.XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) std::abort();
    unlink(path);
    std::vector<char> chunk(size_t(1) << 20, 1);
    for (size_t done = 0; done < bytes; done += chunk.size())
        if (write(fd, chunk.data(), chunk.size()) != ssize_t(chunk.size())) std::abort();
    return fd;
}

constexpr size_t kRowsPerPage = 110;  // rows of `t` in an 8 KB heap page
constexpr size_t kRowsAhead = 8;      // the scan's read-ahead for k = 7
constexpr size_t kScanFileBytes = size_t(128) << 20;

// ns per row of a scan that reads one line of `count` (on huge pages) at each
// of k random places per row (k = 0: the reads alone), the places of the row
// kRowsAhead on prefetched first; with `fd`, an 8 KB pread every kRowsPerPage
// rows.
double scan_row_ns(size_t count, int k, int fd) {
    auto* a = reinterpret_cast<uint8_t*>(lines(count, true));
    std::fill_n(a, count * 64, uint8_t(1));
    std::mt19937_64 rng(3);
    const size_t rows = 4000000;
    std::vector<uint64_t> digest(rows);
    for (auto& d : digest) d = rng();
    // count is a power of two: a place is a mask away, as a filter's probe is.
    auto place = [&](uint64_t d, int i) {
        const uint64_t mixed = (d + uint64_t(i) * ((d >> 29) | 1) * 0x9E3779B97F4A7C15ull) >> 7;
        return a + (mixed & (count - 1)) * 64;
    };
    std::vector<char> page(8192);
    off_t at = 0;
    uint64_t sum = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (size_t r = 0; r < rows; ++r) {
        if (fd >= 0 && r % kRowsPerPage == 0) {
            if (pread(fd, page.data(), page.size(), at) != ssize_t(page.size())) std::abort();
            at = (at + off_t(page.size())) % off_t(kScanFileBytes);
            sum += uint8_t(page[r % page.size()]);
        }
        if (r + kRowsAhead < rows)
            for (int i = 0; i < k; ++i) __builtin_prefetch(place(digest[r + kRowsAhead], i), 0, 3);
        uint8_t all = 1;
        for (int i = 0; i < k; ++i) all &= *place(digest[r], i);
        sum += all;
    }
    const double ns = seconds_since(t0) * 1e9 / rows;
    if (sum == 1) std::puts("");  // keeps the loads alive
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
    const int fd = page_cache_file(kScanFileBytes);
    std::printf("\n%8s %3s %26s %26s\n", "MiB", "k", "scan row, no reads (ns)", "scan row, 8 KB pread (ns)");
    for (size_t mib : {1, 16, 64}) {
        for (int k : {0, 1, 7}) {
            const size_t count = mib * 1024 * 1024 / 64;
            std::printf("%8zu %3d %26.1f %26.1f\n", mib, k, scan_row_ns(count, k, -1), scan_row_ns(count, k, fd));
        }
    }
    close(fd);
}
