// A private copy of a sub-filter (shared/subfilter_copy.hpp): what is added
// to it reads back from it, and merging it into the shared array leaves what
// adding its items there one by one leaves, also while other threads add to
// that array at once.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "bloom/bloom.hpp"
#include "cbf/cbf.hpp"
#include "cbf/cbf_layout.hpp"
#include "shared/subfilter_copy.hpp"

namespace {

using namespace sketch;
using shared::SubfilterCopy;

// A zeroed array of a copy's bytes, 8-byte aligned as a mapping is.
struct Array {
    std::vector<uint64_t> words;
    explicit Array(uint64_t bytes) : words((bytes + 7) / 8, 0) {}
    uint8_t* p() { return reinterpret_cast<uint8_t*>(words.data()); }
};

SubfilterCopy cbf_copy(const char* layout, cbf::Geometry* g) {
    *g = cbf::geometry_for(20000, 0.01, cbf::parse_layout(layout));
    return SubfilterCopy::of_cbf(*g);
}

TEST(SubfilterCopy, CountingMergeEqualsAddsOneByOne) {
    for (const char* layout : {"classic<7>", "block<6>"}) {
        cbf::Geometry g;
        const SubfilterCopy shape = cbf_copy(layout, &g);
        Array copy(shape.bytes()), merged(shape.bytes()), direct(shape.bytes());
        // the shared array holds items before; some are added again in the copy
        for (int i = 0; i < 3000; ++i) {
            cbf::add(g, merged.p(), hash_int(i));
            cbf::add(g, direct.p(), hash_int(i));
        }
        for (int i = 2000; i < 12000; ++i) {
            shape.add(copy.p(), hash_int(i % 9000));  // items 2000..2999 four times in all
            cbf::add(g, direct.p(), hash_int(i % 9000));
        }
        for (int i = 2000; i < 9000; ++i) EXPECT_TRUE(shape.contains(copy.p(), hash_int(i))) << layout;
        shape.merge_into(merged.p(), copy.p());
        EXPECT_EQ(merged.words, direct.words) << layout;
    }
}

TEST(SubfilterCopy, CountingMergeSaturatesAt15) {
    cbf::Geometry g;
    const SubfilterCopy shape = cbf_copy("block<4>", &g);
    Array copy(shape.bytes()), into(shape.bytes());
    for (int i = 0; i < 10; ++i) {
        shape.add(copy.p(), hash_int(1));
        cbf::add(g, into.p(), hash_int(1));
    }
    shape.merge_into(into.p(), copy.p());
    EXPECT_EQ(cbf::count_of(g, into.p(), hash_int(1)), 15u);
}

TEST(SubfilterCopy, BloomMergeEqualsInserts) {
    for (const char* layout : {"classic<7>", "block<uint64,6>", "fast_multiblock32<8>", "multiblock<uint8,5>"}) {
        const bloom::Geometry g = bloom::capacity_for(20000, 0.01, bloom::parse_layout(layout));
        const SubfilterCopy shape = SubfilterCopy::of_bloom(g);
        Array copy(shape.bytes()), merged(shape.bytes()), direct(shape.bytes());
        for (int i = 0; i < 5000; ++i) {
            bloom::insert(g, merged.p(), hash_int(i));
            bloom::insert(g, direct.p(), hash_int(i));
        }
        for (int i = 4000; i < 20000; ++i) {
            shape.add(copy.p(), hash_int(i));
            bloom::insert(g, direct.p(), hash_int(i));
        }
        for (int i = 4000; i < 20000; ++i) EXPECT_TRUE(shape.contains(copy.p(), hash_int(i))) << layout;
        shape.merge_into(merged.p(), copy.p());
        EXPECT_EQ(merged.words, direct.words) << layout;
    }
}

// Adds of other threads into the shared array while the copy goes in: none
// is lost (their counters and the copy's add up as in any order).
TEST(SubfilterCopy, CountingMergeBesideConcurrentAdds) {
    for (const char* layout : {"classic<7>", "block<6>"}) {
        cbf::Geometry g;
        const SubfilterCopy shape = cbf_copy(layout, &g);
        Array copy(shape.bytes()), shared(shape.bytes()), serial(shape.bytes());
        for (int i = 0; i < 15000; ++i) {
            shape.add(copy.p(), hash_int(i));
            cbf::add(g, serial.p(), hash_int(i));
        }
        const int threads = 3, per_thread = 5000;
        std::atomic<int> ready{0};
        std::vector<std::thread> pool;
        for (int t = 0; t < threads; ++t)
            pool.emplace_back([&, t] {
                ready.fetch_add(1);
                while (ready.load() < threads + 1) {}
                for (int i = 0; i < per_thread; ++i) cbf::add_atomic(g, shared.p(), hash_int(10000 + t * per_thread + i));
            });
        ready.fetch_add(1);
        while (ready.load() < threads + 1) {}
        shape.merge_into(shared.p(), copy.p());
        for (auto& th : pool) th.join();
        for (int i = 0; i < threads * per_thread; ++i) cbf::add(g, serial.p(), hash_int(10000 + i));
        EXPECT_EQ(shared.words, serial.words) << layout;
    }
}

}  // namespace
