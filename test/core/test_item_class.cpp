// Item classes (item_class.hpp) and the version 2 value headers that carry them.
#include <gtest/gtest.h>

#include <vector>

#include "bloom/bloom_format.hpp"
#include "cbf/cbf_format.hpp"
#include "item_class.hpp"

using namespace sketch;

TEST(ItemClass, DecodesOnlyWhatABuildWrites) {
    ItemClass c;
    EXPECT_TRUE(decode_item_class(0, 0, &c));
    EXPECT_FALSE(c.known());
    EXPECT_TRUE(decode_item_class(1, 0, &c));
    EXPECT_EQ(c.code, ItemClassCode::integer);
    EXPECT_FALSE(decode_item_class(1, 5, &c));  // a class-wide code has no type
    EXPECT_FALSE(decode_item_class(5, 0, &c));  // a single type needs one
    EXPECT_TRUE(decode_item_class(5, 1082, &c));
    EXPECT_TRUE(decode_item_class(5, kFirstNonBuiltinTypeOid - 1, &c));
    EXPECT_FALSE(decode_item_class(5, kFirstNonBuiltinTypeOid, &c));  // not an oid initdb fixes
    EXPECT_FALSE(decode_item_class(5, 99999, &c));
    EXPECT_TRUE(decode_item_class(6, 99999, &c));                       // a digest: any nonzero word
    EXPECT_FALSE(decode_item_class(kMaxItemClassCode + 1, 0, &c));
}

TEST(ItemClass, CompatibleWhenEitherIsUnknownOrBothAgree) {
    const ItemClass none, ints{ItemClassCode::integer, 0}, text{ItemClassCode::text, 0};
    const ItemClass date{ItemClassCode::builtin_type, 1082}, other{ItemClassCode::builtin_type, 1083};
    EXPECT_TRUE(classes_compatible(none, ints));
    EXPECT_TRUE(classes_compatible(text, none));
    EXPECT_TRUE(classes_compatible(date, date));
    EXPECT_FALSE(classes_compatible(ints, text));
    EXPECT_FALSE(classes_compatible(date, other));
    EXPECT_EQ(combined_class(none, text), text);
    EXPECT_EQ(combined_class(ints, none), ints);
}

TEST(ItemClass, WordRoundTrips) {
    const ItemClass named{ItemClassCode::named_type, 0xdeadbeef};
    ItemClass back;
    EXPECT_EQ(item_class_word(ItemClass{}), 0u);
    ASSERT_TRUE(item_class_of_word(item_class_word(named), &back));
    EXPECT_EQ(back, named);
    ASSERT_TRUE(item_class_of_word(0, &back));
    EXPECT_FALSE(back.known());
    EXPECT_FALSE(item_class_of_word(uint64_t(1) << 50, &back));
}

TEST(ItemClass, BloomHeaderIsVersion1WithoutAClassAnd2WithOne) {
    const bloom::Geometry g = bloom::geometry_for_bits(bloom::parse_layout("classic<2>"), 64);
    std::vector<uint8_t> v(bloom::external_size(g), 0);
    bloom::write_header(v.data(), g, 7);
    EXPECT_EQ(v[0], 1);
    EXPECT_FALSE(bloom::read_external(v.data(), v.size(), Errc::corrupted).item.known());
    const ItemClass uuid{ItemClassCode::uuid, 0};
    bloom::write_header(v.data(), g, 7, uuid);
    EXPECT_EQ(v[0], 2);
    const bloom::Header h = bloom::read_external(v.data(), v.size(), Errc::corrupted);
    EXPECT_EQ(h.item, uuid);
    EXPECT_EQ(h.seed, 7u);
    v[5] = 0;  // version 2 with no class: no build writes it
    EXPECT_THROW(bloom::read_external(v.data(), v.size(), Errc::corrupted), Error);
    v[0] = 4;
    EXPECT_THROW(bloom::read_external(v.data(), v.size(), Errc::corrupted), Error);
    v[0] = 1;
    v[5] = 4;  // version 1 with a class byte
    EXPECT_THROW(bloom::read_external(v.data(), v.size(), Errc::corrupted), Error);
}

TEST(ItemClass, CbfHeaderIsVersion1WithoutAClassAnd2WithOne) {
    const cbf::Geometry g = cbf::geometry_for(100, 0.01);
    std::vector<uint8_t> v(cbf::value_bytes(g), 0);
    cbf::write_header(v.data(), g);
    EXPECT_EQ(v[0], 1);
    EXPECT_FALSE(cbf::read_value(v.data(), v.size(), cbf::kMaxCounters, Errc::corrupted).item.known());
    const ItemClass date{ItemClassCode::builtin_type, 1082};
    cbf::write_header(v.data(), g, date);
    EXPECT_EQ(v[0], 2);
    EXPECT_EQ(cbf::read_value(v.data(), v.size(), cbf::kMaxCounters, Errc::corrupted).item, date);
    v[0] = 3;
    EXPECT_THROW(cbf::read_value(v.data(), v.size(), cbf::kMaxCounters, Errc::corrupted), Error);
    v[0] = 1;  // version 1 with a class
    EXPECT_THROW(cbf::read_value(v.data(), v.size(), cbf::kMaxCounters, Errc::corrupted), Error);
}
