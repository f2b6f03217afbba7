// Side by side with Boost.Bloom: for each layout of Boost's comparison table,
// the same capacity in bits and the same hash (the project's XXH3-128; Boost
// gets its low 64 bits through a functor marked avalanching, so it does not
// mix them again), ns per item for one-item insert, lookup of members (hit)
// and non-members (miss), and bulk lookup of both (ours: hashes of 256 items,
// then contains_many; Boost: its pipelined may_contain over an iterator range).
//
//   make bench/core/boost_compare BOOST_BLOOM_DEPS=/work/boost-deps   (bench/README.md)
//   bench/core/boost_compare [n ...]   default 1000000 10000000; BOOST_COMPARE_REPS=3
//   BOOST_COMPARE_LAYOUTS="block<uint64,6> classic<8>" runs only the rows named
//
// Each cell runs ours and Boost's alternately, reps times, and keeps each
// side's median; the ratio is ours / Boost. Both sides' bit arrays start at
// the same address of one mapping (Arena, below); BOOST_COMPARE_HUGEPAGES=1
// asks for transparent huge pages there.
#include <sys/mman.h>

#include <boost/bloom.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bloom/bloom.hpp"
#include "hash.hpp"

namespace bb = boost::bloom;
namespace sb = sketch::bloom;

namespace {

struct Xxh3 {
    using is_avalanching = std::true_type;
    std::size_t operator()(uint64_t x) const { return sketch::hash_int(int64_t(x)).lo; }
};

uint64_t splitmix(uint64_t& s) {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

enum Op { kInsert, kHit, kMiss, kBulkHit, kBulkMiss, kOps };
const char* const kOpNames[kOps] = {"insert", "hit", "miss", "bulk hit", "bulk miss"};

double seconds_of(const std::function<void()>& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// The memory of one layout's filters, shared by the two sides: each side's
// array starts at its first byte, and each clears it before it runs. Beyond
// the caches, a probe pays for a TLB walk and a cache miss whose cost depends
// on where the array's pages sit, so arrays in two allocations would time
// their memory as well as their code.
class Arena {
public:
    explicit Arena(size_t bytes) : bytes_((bytes + 4095) & ~size_t(4095)) {
        void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            std::perror("boost_compare: mmap");
            std::exit(1);
        }
        const char* huge = std::getenv("BOOST_COMPARE_HUGEPAGES");
        if (huge && std::atoi(huge) != 0) madvise(p, bytes_, MADV_HUGEPAGE);
        base_ = static_cast<unsigned char*>(p);
    }
    Arena(const Arena&) = delete;
    Arena& operator=(const Arena&) = delete;
    ~Arena() { munmap(base_, bytes_); }
    unsigned char* base() const { return base_; }
    size_t bytes() const { return bytes_; }

private:
    size_t bytes_;
    unsigned char* base_;
};

// Boost's allocator: every allocation is the arena (a filter allocates its
// array once). The mapping is page-aligned, so Boost's own alignment of the
// array within it leaves it at the first byte.
template <typename T>
struct ArenaAllocator {
    using value_type = T;
    std::shared_ptr<Arena> arena;
    explicit ArenaAllocator(std::shared_ptr<Arena> a) : arena(std::move(a)) {}
    template <typename U>
    ArenaAllocator(const ArenaAllocator<U>& o) : arena(o.arena) {}
    T* allocate(size_t n) {
        if (n * sizeof(T) > arena->bytes()) {
            std::fprintf(stderr, "boost_compare: Boost asked for %zu bytes, the arena has %zu\n", n * sizeof(T),
                         arena->bytes());
            std::exit(1);
        }
        return reinterpret_cast<T*>(arena->base());
    }
    void deallocate(T*, size_t) {}
    bool operator==(const ArenaAllocator& o) const { return arena == o.arena; }
    bool operator!=(const ArenaAllocator& o) const { return arena != o.arena; }
};

// The operations of one side on keys [0, n) (members) and [n, 2n).
struct Side {
    std::function<void()> clear;
    std::function<void(const uint64_t*, size_t)> insert;       // one item at a time
    std::function<size_t(const uint64_t*, size_t)> lookup;     // one item at a time; hits
    std::function<size_t(const uint64_t*, size_t)> bulk;       // hits
};

Side ours(const sb::Geometry& g, const std::shared_ptr<Arena>& arena) {
    const sb::Ops* ops = &sb::ops_for(g.layout);
    const sb::Span s = sb::span_for(g, arena->base());
    Side side;
    side.clear = [arena, g] { std::memset(arena->base(), 0, g.bytes + sb::kTailPad); };
    side.insert = [ops, s](const uint64_t* k, size_t n) {
        for (size_t i = 0; i < n; ++i) ops->add_one(s, sketch::hash_int(int64_t(k[i])));
    };
    side.lookup = [ops, s](const uint64_t* k, size_t n) {
        size_t hits = 0;
        for (size_t i = 0; i < n; ++i) hits += ops->contains_one(s, sketch::hash_int(int64_t(k[i])));
        return hits;
    };
    side.bulk = [ops, s](const uint64_t* k, size_t n) {
        size_t hits = 0;
        sketch::Hash128 batch[256];
        for (size_t start = 0; start < n; start += 256) {
            const size_t m = std::min<size_t>(256, n - start);
            for (size_t j = 0; j < m; ++j) batch[j] = sketch::hash_int(int64_t(k[start + j]));
            hits += ops->contains_many(s, batch, m, nullptr);
        }
        return hits;
    };
    return side;
}

template <typename F>
Side boost_side(uint64_t bits, const std::shared_ptr<Arena>& arena, uint64_t* capacity) {
    auto f = std::make_shared<F>(bits, typename F::allocator_type(arena));
    *capacity = f->capacity();
    Side side;
    side.clear = [f] { f->clear(); };
    side.insert = [f](const uint64_t* k, size_t n) {
        for (size_t i = 0; i < n; ++i) f->insert(k[i]);
    };
    side.lookup = [f](const uint64_t* k, size_t n) {
        size_t hits = 0;
        for (size_t i = 0; i < n; ++i) hits += f->may_contain(k[i]);
        return hits;
    };
    side.bulk = [f](const uint64_t* k, size_t n) {
        size_t hits = 0;
        f->may_contain(k, k + n, [&](uint64_t, bool r) { hits += r; });
        return hits;
    };
    return side;
}

struct Config {
    const char* spec;
    Side (*boost)(uint64_t bits, const std::shared_ptr<Arena>& arena, uint64_t* capacity);
};

template <std::size_t K, typename Sub, std::size_t Stride = 0>
Side make(uint64_t bits, const std::shared_ptr<Arena>& arena, uint64_t* capacity) {
    return boost_side<bb::filter<uint64_t, K, Sub, Stride, Xxh3, ArenaAllocator<unsigned char>>>(bits, arena, capacity);
}

// Boost.Bloom's comparison table, K' at its optimum for 12 bits per item.
const Config kConfigs[] = {
    {"classic<8>", make<8, bb::block<unsigned char, 1>>},
    {"block<uint64,6>", make<1, bb::block<uint64_t, 6>>},
    {"block<uint64,6>/1", make<1, bb::block<uint64_t, 6>, 1>},
    {"multiblock<uint64,8>", make<1, bb::multiblock<uint64_t, 8>>},
    {"multiblock<uint64,9>/1", make<1, bb::multiblock<uint64_t, 9>, 1>},
    {"block<uint64[8],7>", make<1, bb::block<uint64_t[8], 7>>},
    {"multiblock<uint32,8>", make<1, bb::multiblock<uint32_t, 8>>},
    {"fast_multiblock32<8>", make<1, bb::fast_multiblock32<8>>},
    {"fast_multiblock32<8>/1", make<1, bb::fast_multiblock32<8>, 1>},
    {"fast_multiblock64<8>", make<1, bb::fast_multiblock64<8>>},
    {"fast_multiblock64<9>/1", make<1, bb::fast_multiblock64<9>, 1>},
};

// Seconds of op on one side, the filter filled with the members first
// (inserts start from an empty filter).
double time_op(Side& side, Op op, const std::vector<uint64_t>& keys, size_t n, size_t* hits) {
    const uint64_t* members = keys.data();
    const uint64_t* others = keys.data() + n;
    side.clear();
    if (op == kInsert) return seconds_of([&] { side.insert(members, n); });
    side.insert(members, n);
    const uint64_t* k = (op == kHit || op == kBulkHit) ? members : others;
    const bool bulk = op == kBulkHit || op == kBulkMiss;
    return seconds_of([&] { *hits = bulk ? side.bulk(k, n) : side.lookup(k, n); });
}

// The rows BOOST_COMPARE_LAYOUTS names (names separated by spaces), or all.
bool selected(const char* spec) {
    const char* only = std::getenv("BOOST_COMPARE_LAYOUTS");
    if (only == nullptr) return true;
    const std::string list = std::string(" ") + only + " ";
    return list.find(std::string(" ") + spec + " ") != std::string::npos;
}

void run(size_t n, int reps) {
    std::vector<uint64_t> keys(2 * n);
    uint64_t seed = 12345;
    for (auto& k : keys) k = splitmix(seed);
    std::printf("\nn = %zu, 12 bits per item, ns per item ours / Boost (ratio)\n", n);
    std::printf("| layout | bits ours / Boost |");
    for (const char* name : kOpNames) std::printf(" %s |", name);
    std::printf("\n| --- | --- |");
    for (int i = 0; i < kOps; ++i) std::printf(" --- |");
    std::printf("\n");
    for (const Config& c : kConfigs) {
        if (!selected(c.spec)) continue;
        const sb::Geometry g = sb::geometry_for_bits(sb::parse_layout(c.spec), 12 * uint64_t(n));
        // Boost's array needs its alignment slack and a tail beside the bits.
        auto arena = std::make_shared<Arena>(g.bytes + sb::kTailPad + 4096);
        uint64_t boost_bits = 0;
        Side sides[2] = {ours(g, arena), c.boost(g.bits(), arena, &boost_bits)};
        std::printf("| `%s` | %llu / %llu |", c.spec, static_cast<unsigned long long>(g.bits()),
                    static_cast<unsigned long long>(boost_bits));
        for (int op = 0; op < kOps; ++op) {
            std::vector<double> t[2];
            size_t hits[2] = {0, 0};
            for (int r = 0; r < reps; ++r)
                for (int s = 0; s < 2; ++s) t[s].push_back(time_op(sides[s], Op(op), keys, n, &hits[s]));
            if (op != kInsert && hits[0] != hits[1] && (op == kHit || op == kBulkHit))
                std::printf(" (hits differ: %zu / %zu)", hits[0], hits[1]);
            const double a = median(t[0]) * 1e9 / double(n), b = median(t[1]) * 1e9 / double(n);
            std::printf(" %.1f / %.1f (%.2f) |", a, b, a / b);
            std::fflush(stdout);
        }
        std::printf("\n");
    }
}

}  // namespace

int main(int argc, char** argv) {
    const char* r = std::getenv("BOOST_COMPARE_REPS");
    const int reps = r ? std::max(1, std::atoi(r)) : 3;
    std::vector<size_t> sizes;
    for (int i = 1; i < argc; ++i) sizes.push_back(std::strtoull(argv[i], nullptr, 10));
    if (sizes.empty()) sizes = {1000000, 10000000};
    std::printf("sketchshare path %s, %d reps, median\n", sb::path_name(sb::Path::best), reps);
    for (size_t n : sizes) run(n, reps);
    return 0;
}
