// Images of object files: taken from a mapping with a clean header, checked
// as a file is, written back as a file that holds the same object.
#include <gtest/gtest.h>

#include <string>
#include <unistd.h>
#include <vector>

#include "error.hpp"
#include "item_class.hpp"
#include "shared/file_image.hpp"
#include "shared/held_items.hpp"
#include "shared/shared_file.hpp"
#include "test_shared_test_kind.hpp"

namespace sh = sketch::shared;

namespace {

constexpr uint64_t kRun = 1;
constexpr uint32_t kTest = uint32_t(sh::Kind::test);
// The class word of items of a built-in type (date, oid 1082), as a first add records it.
const uint64_t kItems = sketch::item_class_word(sketch::ItemClass{sketch::ItemClassCode::builtin_type, 1082});

class FileImage : public TestKindFiles {
protected:
    // A mapped object (file_id 7) with a payload, ops, an item class, items
    // held and stale lock words, and its image.
    std::vector<uint8_t> image_of_object(sh::Mapping* m) {
        sh::create_file(path("src"), "src", spec(7), sh::Existing::refuse);
        *m = sh::attach_file(path("src"), "src", kTest, true, kRun);
        m->payload()[0] = 1;
        m->payload()[geometry - 1] = 2;
        sh::add_ops(m->header(), 1001, 3);
        sh::record_item_class(m->header(), kItems);
        sh::count_items(m->header(), 40);
        m->header()->lock.writer = 4242;
        std::vector<uint8_t> image(sh::image_bytes(*m));
        sh::write_image(*m, image.data());
        return image;
    }
};

TEST_F(FileImage, RoundTripsTheObjectWithACleanHeader) {
    sh::Mapping m;
    std::vector<uint8_t> image = image_of_object(&m);
    EXPECT_EQ(image.size(), sh::kHeaderBytes + geometry);
    const sh::FileHeader h = sh::check_image(image.data(), image.size(), "src", kTest, 7);
    EXPECT_EQ(h.lock.writer, 0u);
    EXPECT_EQ(h.created_run, 0u);
    sh::restore_image(path("copy"), "copy", image.data(), image.size(), kRun + 1, false);
    sh::Mapping c = sh::attach_file(path("copy"), "copy", kTest, true, kRun + 1);
    EXPECT_EQ(c.header()->file_id, 7u);  // the same incarnation, in another place
    EXPECT_EQ(c.header()->created_run, kRun + 1);
    EXPECT_EQ(c.payload()[0], 1);
    EXPECT_EQ(c.payload()[geometry - 1], 2);
    EXPECT_EQ(sh::load_ops(c.header()), 3u);
    EXPECT_EQ(sh::load_item_class(c.header()), kItems);
    EXPECT_EQ(sh::load_held(c.header()), 40u);  // a fixed-size object restored refuses where it did
    EXPECT_EQ(c.header()->lock.writer, 0u);
    EXPECT_EQ(sh::load_flags(c.header()), 0u);
    sh::unmap(c);
    // A frozen object's image is frozen; restoring over an existing file is refused.
    sh::set_flags(m.header(), sh::kFrozen | sh::kDropped);
    sh::write_image(m, image.data());
    EXPECT_EQ(sh::check_image(image.data(), image.size(), "src", kTest, 7).flags, uint32_t(sh::kFrozen));
    EXPECT_THROW(sh::restore_image(path("copy"), "copy", image.data(), image.size(), kRun, false), sketch::Error);
    sh::unmap(m);
}

TEST_F(FileImage, DamagedOrForeignImagesAreRefused) {
    sh::Mapping m;
    std::vector<uint8_t> image = image_of_object(&m);
    sh::unmap(m);
    auto error = [&](std::vector<uint8_t> bytes, uint32_t kind, uint64_t file_id) -> std::string {
        try {
            sh::check_image(bytes.data(), bytes.size(), "src", kind, file_id);
            return "";
        } catch (const sketch::Error& e) {
            EXPECT_EQ(e.code(), sketch::Errc::corrupted);
            return e.what();
        }
    };
    EXPECT_EQ(error(image, kTest, 7), "");
    EXPECT_NE(error(image, kTest, 8).find("another incarnation"), std::string::npos);
    EXPECT_NE(error(image, uint32_t(sh::Kind::cbf), 7).find("not a cbf"), std::string::npos);
    EXPECT_NE(error(std::vector<uint8_t>(image.begin(), image.end() - 1), kTest, 7).find("truncated"),
              std::string::npos);
    EXPECT_NE(error(std::vector<uint8_t>(image.begin(), image.begin() + 100), kTest, 7).find("truncated"),
              std::string::npos);
    std::vector<uint8_t> newer = image;
    reinterpret_cast<sh::FileHeader*>(newer.data())->version = sh::kFormatVersion + 1;
    EXPECT_NE(error(newer, kTest, 7).find("format version"), std::string::npos);
    std::vector<uint8_t> edited = image;
    reinterpret_cast<sh::FileHeader*>(edited.data())->geometry[0] ^= 1;
    EXPECT_NE(error(edited, kTest, 7).find("checksum"), std::string::npos);
    // The item class (mutable, outside the checksum): a word no build writes,
    // a built-in type's oid past those initdb fixes or an unknown code.
    for (uint64_t word : {(uint64_t(5) << 32) | 99999u, uint64_t(0x55), uint64_t(9) << 32}) {
        std::vector<uint8_t> classed = image;
        reinterpret_cast<sh::FileHeader*>(classed.data())->item_class = word;
        EXPECT_NE(error(classed, kTest, 7).find("records an item class"), std::string::npos) << word;
    }
}

}  // namespace
