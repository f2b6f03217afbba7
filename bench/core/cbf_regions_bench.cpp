// add_many against RegionBatch (cbf_regions.hpp) on a counting Bloom filter
// beyond the caches, classic (k = 7) or block (block<6>): random 128-bit digests made 256 at a time into a buffer
// that stays in L1 (as cbf_agg's are), counters and batch memory in
// transparent huge pages. The variants take turns within each repetition, so
// that a change in the machine's speed hits them alike; every run's counters
// are compared byte for byte with add_many's.
//   make bench/core/cbf_regions_bench && bench/core/cbf_regions_bench [items [reps [log2 m [layout]]]]
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cbf/cbf.hpp"
#include "cbf/cbf_layout.hpp"
#include "cbf/cbf_regions.hpp"

using namespace sketch;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Zeroed memory on huge pages (advised before it is touched).
uint8_t* huge_zeroed(size_t bytes) {
    const size_t huge = size_t(2) << 20;
    bytes = (bytes + huge - 1) / huge * huge;
    void* mem = nullptr;
    if (posix_memalign(&mem, huge, bytes) != 0) std::abort();
    madvise(mem, bytes, MADV_HUGEPAGE);
    std::memset(mem, 0, bytes);
    return static_cast<uint8_t*>(mem);
}

uint64_t splitmix(uint64_t& s) {
    uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

// Calls sink(hashes, count) with the n digests, 256 at a time.
template <typename Sink>
void feed(size_t n, Sink&& sink) {
    Hash128 buf[256];
    uint64_t s = 42;
    for (size_t done = 0; done < n; done += 256) {
        const size_t len = std::min<size_t>(256, n - done);
        for (size_t i = 0; i < len; ++i) buf[i] = {splitmix(s), splitmix(s)};
        sink(buf, len);
    }
}

struct Variant {
    const char* name;
    size_t batch;  // items per batch; 0: add_many
    std::vector<double> seconds;
    size_t extra = 0;
};

}  // namespace

int main(int argc, char** argv) {
    const size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10000000;
    const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
    const int log2m = argc > 3 ? std::atoi(argv[3]) : 27;
    const char* layout = argc > 4 ? argv[4] : "classic";
    cbf::Geometry g = cbf::geometry_for(1000, 0.01, cbf::parse_layout(layout));  // classic<7> or block<6>
    g.m = uint64_t(1) << log2m;
    const size_t bytes = g.counter_bytes();
    std::printf("%zu items, %s, m = 2^%d (%zu MiB of counters), %d repetitions\n", n,
                cbf::format_layout(cbf::layout_of(g)).c_str(), log2m, bytes >> 20, reps);

    uint8_t* expected = huge_zeroed(bytes);
    feed(n, [&](const Hash128* h, size_t len) { cbf::add_many(g, expected, h, len); });
    uint8_t* counters = huge_zeroed(bytes);

    std::vector<Variant> variants = {{"add_many", 0, {}}, {"regions", 256 << 10, {}}, {"regions", 512 << 10, {}},
                                     {"regions", 1 << 20, {}}, {"regions", 2 << 20, {}}};
    for (int rep = 0; rep < reps; ++rep) {
        for (Variant& v : variants) {
            std::memset(counters, 0, bytes);
            if (v.batch == 0) {
                const auto t0 = Clock::now();
                feed(n, [&](const Hash128* h, size_t len) { cbf::add_many(g, counters, h, len); });
                v.seconds.push_back(seconds_since(t0));
            } else {
                v.extra = cbf::RegionBatch::memory_bytes(g, v.batch);
                uint8_t* memory = huge_zeroed(v.extra);
                cbf::RegionBatch batch;
                batch.init(g, memory, v.batch);
                const auto t0 = Clock::now();
                feed(n, [&](const Hash128* h, size_t len) { batch.add(counters, h, len); });
                batch.apply(counters);
                v.seconds.push_back(seconds_since(t0));
                std::free(memory);
            }
            if (std::memcmp(counters, expected, bytes) != 0) {
                std::printf("%s, batch %zu: counters differ from add_many's\n", v.name, v.batch);
                return 1;
            }
        }
    }
    std::printf("%-9s %8s %8s %8s %9s %10s  all runs (ms)\n", "variant", "batch", "min ms", "med ms", "ns/item",
                "extra MiB");
    for (Variant& v : variants) {
        std::vector<double> sorted = v.seconds;
        std::sort(sorted.begin(), sorted.end());
        const double median = sorted[sorted.size() / 2];
        std::printf("%-9s %7zuK %8.1f %8.1f %9.1f %10.1f ", v.name, v.batch >> 10, sorted[0] * 1e3, median * 1e3,
                    median * 1e9 / n, v.extra / 1048576.0);
        for (double s : v.seconds) std::printf(" %.0f", s * 1e3);
        std::printf("\n");
    }
}
