// The kernels compiled for a fixed subarray count (classic<K>, K up to
// kClassicFixedK) answer exactly as the run-time K kernel they stand in for.
#include <gtest/gtest.h>

#include <vector>

#include "bloom/bloom.hpp"
#include "bloom/bloom_dispatch.hpp"
#include "test_bloom_util.hpp"

using namespace sketch;
using namespace sketch::bloom;
using bloom_test::keys;

namespace {

// The run-time K kernel of classic<k>: block<uint8,1> with k read from the span.
const Ops& generic_classic() { return dispatch::block_row(BlockType::u8).many[0]; }

}  // namespace

TEST(BloomFixedKernels, ClassicEqualsRunTimeK) {
    const auto members = keys(4000, 21);
    const auto others = keys(4000, 22);
    for (unsigned k = 1; k <= kClassicFixedK; ++k) {
        const std::string spec = "classic<" + std::to_string(k) + ">";
        const Geometry g = geometry_for_bits(parse_layout(spec), 4000 * 10);
        const Ops& fixed = ops_for(g.layout);
        ASSERT_NE(&fixed, &generic_classic()) << spec << " has no fixed kernel";
        Filter a(g), b(g), added(g), bulk(g);
        const Span sa = span_for(g, a.bits()), sb = span_for(g, b.bits());
        for (const Hash128& h : members) ASSERT_EQ(fixed.insert_one(sa, h), generic_classic().insert_one(sb, h)) << spec;
        for (const Hash128& h : members) fixed.add_one(span_for(g, added.bits()), h);
        fixed.insert_many(span_for(g, bulk.bits()), members.data(), members.size());
        ASSERT_TRUE(a == b) << spec;
        ASSERT_TRUE(added == b) << spec << " add_one";
        ASSERT_TRUE(bulk == b) << spec << " insert_many";

        std::vector<char> fixed_out(others.size()), generic_out(others.size());
        const size_t fixed_hits = fixed.contains_many(sa, others.data(), others.size(), reinterpret_cast<bool*>(fixed_out.data()));
        const size_t generic_hits =
            generic_classic().contains_many(sb, others.data(), others.size(), reinterpret_cast<bool*>(generic_out.data()));
        EXPECT_EQ(fixed_hits, generic_hits) << spec;
        for (size_t i = 0; i < others.size(); ++i) {
            const bool one = generic_classic().contains_one(sb, others[i]);
            ASSERT_EQ(fixed.contains_one(sa, others[i]), one) << spec << " item " << i;
            ASSERT_EQ(bool(fixed_out[i]), one) << spec << " bulk item " << i;
            ASSERT_EQ(bool(generic_out[i]), one) << spec << " run-time K bulk item " << i;
        }
        EXPECT_EQ(fixed.contains_many(sa, members.data(), members.size(), nullptr), members.size()) << spec;
    }
}

// Past the fixed kernels, classic<K> takes the run-time K kernel.
TEST(BloomFixedKernels, LargerKTakesRunTimeKernel) {
    const Geometry g = geometry_for_bits(parse_layout("classic<" + std::to_string(kClassicFixedK + 1) + ">"), 1 << 16);
    EXPECT_EQ(&ops_for(g.layout), &generic_classic());
}
