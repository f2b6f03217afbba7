// The stored geometries of shared Bloom filters and counting filters
// (bloom/shared_bloom_format, cbf/shared_cbf_format): round trips, the
// payload sizes they require, and damaged blobs refused as corrupted with
// the object's name.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

#include "bloom/bloom.hpp"
#include "bloom/shared_bloom_format.hpp"
#include "cbf/cbf.hpp"
#include "cbf/cbf_layout.hpp"
#include "cbf/shared_cbf_format.hpp"
#include "error.hpp"

namespace {

namespace sb = sketch::bloom;
namespace sbf = sketch::shared_bloom;
namespace scf = sketch::shared_cbf;

const uint8_t* bytes_of(const void* p) { return static_cast<const uint8_t*>(p); }

template <typename F>
std::string corrupted_message(F f) {
    try {
        f();
    } catch (const sketch::Error& e) {
        EXPECT_EQ(e.code(), sketch::Errc::corrupted);
        return e.what();
    }
    ADD_FAILURE() << "no error";
    return "";
}

TEST(SharedBloomFormat, RoundTripAndPayload) {
    const sb::Geometry g = sb::capacity_for(100000, 0.01, sb::parse_layout("fast_multiblock32<7>"));
    const sbf::StoredGeometry s = sbf::to_stored(g, 42, 100000, 0.01, 2);
    const sbf::Geometry p = sbf::parse(bytes_of(&s), sizeof s, "f");
    EXPECT_EQ(p.expansion, 2u);
    // a 0.1.0 file's geometry ends before the expansion: a fixed-size object
    EXPECT_EQ(sbf::parse(bytes_of(&s), sbf::kStoredBytesWithoutExpansion, "f").expansion, 0u);
    EXPECT_EQ(p.g.bytes, g.bytes);
    EXPECT_EQ(sb::format_layout(p.g.layout), sb::format_layout(g.layout));
    EXPECT_EQ(p.seed, 42u);
    EXPECT_EQ(p.n, 100000u);
    EXPECT_EQ(p.fpr, 0.01);
    const uint64_t payload = sbf::payload_bytes(g);
    EXPECT_EQ(payload % 8, 0u);
    EXPECT_GE(payload, g.bytes + sb::kTailPad);
    EXPECT_LT(payload, g.bytes + sb::kTailPad + 8);
    EXPECT_NO_THROW(sbf::validate("f", bytes_of(&s), sizeof s, payload));

    sbf::Description d;
    ASSERT_TRUE(sbf::describe(bytes_of(&s), sizeof s, &d));
    EXPECT_EQ(d.capacity, 100000u);
    EXPECT_EQ(d.fpr, 0.01);
    EXPECT_EQ(d.expansion, 2u);
    EXPECT_EQ(d.layout, sb::format_layout(g.layout));
    EXPECT_EQ(d.m, g.bits());
    EXPECT_EQ(d.k, g.layout.k * g.layout.kp);
}

TEST(SharedBloomFormat, DamageRefused) {
    const sb::Geometry g = sb::capacity_for(1000, 0.01, sb::parse_layout("fast_multiblock32<7>"));
    sbf::StoredGeometry s = sbf::to_stored(g, 1, 1000, 0.01, 0);
    const uint64_t payload = sbf::payload_bytes(g);
    std::string m = corrupted_message([&] { sbf::validate("obj", bytes_of(&s), sizeof s, payload + 8); });
    EXPECT_NE(m.find("shared object \"obj\""), std::string::npos) << m;
    m = corrupted_message([&] { sbf::validate("obj", bytes_of(&s), sizeof s - 1, payload); });
    EXPECT_NE(m.find("geometry has 55 bytes"), std::string::npos) << m;
    s.expansion = sketch::shared::kMaxExpansion + 1;
    m = corrupted_message([&] { sbf::parse(bytes_of(&s), sizeof s, "obj"); });
    EXPECT_NE(m.find("expansion 17 is out of range"), std::string::npos) << m;
    s.expansion = 0;
    s.header[0] = 99;  // format version
    m = corrupted_message([&] { sbf::parse(bytes_of(&s), sizeof s, "obj"); });
    EXPECT_NE(m.find("shared object \"obj\""), std::string::npos) << m;
    sbf::Description d;
    d.capacity = 7;
    EXPECT_FALSE(sbf::describe(bytes_of(&s), sizeof s, &d));
    EXPECT_EQ(d.capacity, 7u);
}

TEST(SharedCbfFormat, RoundTripAndPayload) {
    const sketch::cbf::Geometry g = sketch::cbf::geometry_for(50000, 0.001, sketch::cbf::kMaxCounters, 9);
    const scf::StoredGeometry s = scf::to_stored(g, 3);
    const sketch::cbf::Geometry r = scf::from_blob(bytes_of(&s));
    EXPECT_EQ(scf::series_of(bytes_of(&s), sizeof s).expansion, 3u);
    EXPECT_EQ(scf::series_of(bytes_of(&s), sizeof s).n, 50000u);
    // a 0.1.0 file's geometry ends before the expansion: a fixed-size object
    EXPECT_EQ(scf::series_of(bytes_of(&s), scf::kStoredBytesWithoutExpansion).expansion, 0u);
    EXPECT_NO_THROW(scf::validate("c", bytes_of(&s), scf::kStoredBytesWithoutExpansion, g.counter_bytes()));
    EXPECT_TRUE(r.compatible(g));
    EXPECT_EQ(r.capacity, g.capacity);
    EXPECT_EQ(r.fpr, g.fpr);
    EXPECT_NO_THROW(scf::validate("c", bytes_of(&s), sizeof s, g.counter_bytes()));
    scf::Description d;
    ASSERT_TRUE(scf::describe(bytes_of(&s), sizeof s, &d));
    EXPECT_EQ(d.capacity, 50000u);
    // a scaling object stores its first sub-filter, sized for half the rate asked
    EXPECT_EQ(d.fpr, 0.002);
    EXPECT_EQ(scf::series_of(bytes_of(&s), sizeof s).fpr, 0.002);
    EXPECT_EQ(scf::first_fpr(scf::series_of(bytes_of(&s), sizeof s)), 0.001);
    EXPECT_EQ(scf::series_of(bytes_of(&s), scf::kStoredBytesWithoutExpansion).fpr, 0.001);
    EXPECT_EQ(d.expansion, 3u);
    EXPECT_EQ(d.m, g.m);
    EXPECT_EQ(d.k, g.k);
}

TEST(SharedCbfFormat, DamageRefused) {
    const sketch::cbf::Geometry g = sketch::cbf::geometry_for(1000, 0.01);
    scf::StoredGeometry s = scf::to_stored(g, 0);
    std::string m = corrupted_message([&] { scf::validate("obj", bytes_of(&s), sizeof s, g.counter_bytes() + 1); });
    EXPECT_NE(m.find("shared object \"obj\""), std::string::npos) << m;
    m = corrupted_message([&] { scf::validate("obj", bytes_of(&s), sizeof s + 8, g.counter_bytes()); });
    EXPECT_NE(m.find("geometry has 56 bytes"), std::string::npos) << m;
    s.expansion = sketch::shared::kMaxExpansion + 1;
    m = corrupted_message([&] { scf::validate("obj", bytes_of(&s), sizeof s, g.counter_bytes()); });
    EXPECT_NE(m.find("expansion 17 is out of range"), std::string::npos) << m;
    s.expansion = 0;
    s.m = 1000;  // not a power of two
    m = corrupted_message([&] { scf::validate("obj", bytes_of(&s), sizeof s, 500); });
    EXPECT_NE(m.find("shared object \"obj\""), std::string::npos) << m;
    scf::Description d;
    EXPECT_FALSE(scf::describe(bytes_of(&s), sizeof s - 1, &d));
}

// A block filter's counters are the fewest lines that meet its fpr at its
// capacity: every block geometry the sizing makes (K chosen or given, K past
// 16 where another formula applies, the later sub-filters of a growing
// object) passes, and a classic file relabelled block (the scheme byte,
// checksum rewritten) is refused although its m is a multiple of 128.
TEST(SharedCbfFormat, BlockSizedByItsLayout) {
    namespace cbf = sketch::cbf;
    for (const char* layout : {"block", "block<2>", "block<8>", "block<20>"})
        for (const int64_t capacity : {1, 1000, 123457})
            for (const double fpr : {0.3, 0.01, 1e-5}) {
                const cbf::Geometry first = cbf::geometry_for(capacity, fpr, cbf::parse_layout(layout));
                const sketch::shared::Series series{uint64_t(capacity), fpr, 2};
                for (const scf::Subfilter& sub : scf::subfilters(first, series, 4))
                    EXPECT_TRUE(cbf::sized_by_its_layout(sub.g))
                        << layout << " " << capacity << " " << fpr << " m " << sub.g.m << " k " << sub.g.k;
                const scf::StoredGeometry s = scf::to_stored(first, 2);
                EXPECT_NO_THROW(scf::validate("blk", bytes_of(&s), sizeof s, first.counter_bytes())) << layout;
            }
    const cbf::Geometry classic = cbf::geometry_for(1000, 0.01);
    ASSERT_EQ(classic.m % cbf::kLineCounters, 0u);
    EXPECT_TRUE(cbf::sized_by_its_layout(classic));
    scf::StoredGeometry s = scf::to_stored(classic, 0);
    s.scheme = cbf::kSchemeXxh3Block;
    std::string m = corrupted_message([&] { scf::validate("obj", bytes_of(&s), sizeof s, classic.counter_bytes()); });
    EXPECT_NE(m.find("shared object \"obj\": counting filter of layout block<7> has 16384 counters, not the fewest "
                     "lines of 128 that meet fpr 0.01 at capacity 1000"),
              std::string::npos)
        << m;
    // a line more than the sizing gives is refused too
    cbf::Geometry wide = cbf::geometry_for(1000, 0.01, cbf::parse_layout("block<8>"));
    wide.m += cbf::kLineCounters;
    EXPECT_FALSE(cbf::sized_by_its_layout(wide));
}

}  // namespace
