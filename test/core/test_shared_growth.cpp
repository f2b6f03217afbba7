// Object files that grow by sub-filters (shared/shared_file.hpp,
// shared_file_growth.cpp), on a scaling counting filter's file: a growth
// published in one mapping is followed by another; the tail a crash leaves
// between extending and publishing is accepted and not mapped, anything
// longer or a count the file does not hold is refused; a fixed-size object
// publishing sub-filters is refused; images and copies keep the grown size.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "cbf/cbf.hpp"
#include "cbf/shared_cbf_format.hpp"
#include "shared/file_image.hpp"
#include "shared/held_items.hpp"
#include "shared/shared_file.hpp"

namespace {

namespace cbf = sketch::cbf;
namespace scf = sketch::shared_cbf;
namespace sh = sketch::shared;

constexpr uint64_t kRun = 1;

class SharedGrowth : public ::testing::Test {
protected:
    std::string dir;
    std::string path;
    scf::StoredGeometry stored{};

    void SetUp() override {
        sh::register_kind(sh::Kind::cbf, scf::validate, nullptr, scf::grown_payload);
        char tmpl[] = "/tmp/sketch-shared-growth.XXXXXX";
        ASSERT_NE(mkdtemp(tmpl), nullptr);
        dir = tmpl;
        path = dir + "/grows";
    }
    void TearDown() override { std::system(("rm -rf " + dir).c_str()); }

    // Creates the object: 1000 items at 1%, expansion (0: fixed size).
    void create(uint32_t expansion) {
        const sh::Series s{1000, 0.01, expansion};
        const cbf::Geometry g = cbf::geometry_for(1000, expansion ? scf::first_fpr(s) : 0.01);
        stored = scf::to_stored(g, expansion);
        sh::CreateSpec spec{};
        spec.kind = sh::Kind::cbf;
        spec.geometry = reinterpret_cast<const uint8_t*>(&stored);
        spec.geometry_len = sizeof stored;
        spec.payload_bytes = g.counter_bytes();
        spec.file_id = 7;
        spec.durable = false;
        spec.run = kRun;
        sh::create_file(path, "grows", spec, sh::Existing::refuse);
    }
    sh::Mapping attach() { return sh::attach_file(path, "grows", uint32_t(sh::Kind::cbf), true, kRun); }
    uint64_t bytes_of(uint32_t count) {
        return sh::file_bytes(scf::grown_payload(reinterpret_cast<const uint8_t*>(&stored), sizeof stored, count));
    }
    // One growth as the PG face runs it (under the exclusive lock there).
    void grow(sh::Mapping& m) {
        const uint32_t to = m.subfilters + 1;
        ASSERT_EQ(sh::extend_file(m, path, m.size, sh::grown_file_bytes(m, to)), 0);
        sh::publish_subfilters(m.header(), to);
        ASSERT_TRUE(sh::follow_growth(m, path, "grows"));
    }
    uint64_t file_size() {
        struct stat st;
        return stat(path.c_str(), &st) == 0 ? uint64_t(st.st_size) : 0;
    }
    template <typename F>
    std::string refusal(F f) {
        try {
            f();
        } catch (const sketch::Error& e) {
            return e.what();
        }
        return "";
    }
};

TEST_F(SharedGrowth, SubfiltersFollowThePayloadPageAligned) {
    create(2);
    const std::vector<scf::Subfilter> subs =
        scf::subfilters(scf::from_blob(reinterpret_cast<const uint8_t*>(&stored)), scf::series_of(
            reinterpret_cast<const uint8_t*>(&stored), sizeof stored), 3);
    ASSERT_EQ(subs.size(), 3u);
    EXPECT_EQ(subs[0].offset, 0u);
    for (size_t i = 1; i < subs.size(); ++i) {
        EXPECT_EQ(subs[i].offset % sh::kSubfilterAlign, 0u);
        EXPECT_GE(subs[i].offset, subs[i - 1].offset + subs[i - 1].g.counter_bytes());
        EXPECT_EQ(subs[i].g.capacity, 1000u << i);  // expansion 2
        EXPECT_EQ(subs[i].g.seed, subs[0].g.seed);
    }
    EXPECT_EQ(scf::series_of(reinterpret_cast<const uint8_t*>(&stored), sizeof stored).fpr, 0.01);
}

TEST_F(SharedGrowth, AnotherMappingFollowsAPublishedGrowth) {
    create(2);
    sh::Mapping a = attach(), b = attach();
    ASSERT_NE(a.grown, nullptr);
    EXPECT_EQ(a.subfilters, 1u);
    EXPECT_EQ(a.size, bytes_of(1));
    grow(a);
    EXPECT_EQ(a.subfilters, 2u);
    EXPECT_EQ(a.size, bytes_of(2));
    EXPECT_EQ(file_size(), bytes_of(2));
    // what a writes into the new sub-filter, b reads once it follows
    a.base[a.size - 1] = 0x5a;
    EXPECT_FALSE(sh::file_changed(b, path.c_str()));  // a longer file is growth, not damage
    EXPECT_TRUE(sh::follow_growth(b, path, "grows"));
    EXPECT_FALSE(sh::follow_growth(b, path, "grows"));
    EXPECT_EQ(b.subfilters, 2u);
    EXPECT_EQ(b.base[b.size - 1], 0x5a);
    sh::unmap(a);
    sh::unmap(b);
    sh::Mapping c = attach();
    EXPECT_EQ(c.subfilters, 2u);
    EXPECT_EQ(c.size, bytes_of(2));
    sh::unmap(c);
}

TEST_F(SharedGrowth, AnUnpublishedTailIsAcceptedAndReplaced) {
    create(2);
    sh::Mapping a = attach();
    // a crash between extending and publishing
    ASSERT_EQ(sh::extend_file(a, path, a.size, bytes_of(2)), 0);
    sh::unmap(a);
    sh::Mapping b = attach();
    EXPECT_EQ(b.subfilters, 1u);
    EXPECT_EQ(b.size, bytes_of(1));
    EXPECT_FALSE(sh::follow_growth(b, path, "grows"));
    // a tail partly written by it is dropped by the next growth
    b.base[b.size - 1] = 1;
    ASSERT_EQ(truncate(path.c_str(), off_t(bytes_of(1) + 4096)), 0);
    {
        sh::Mapping c = attach();
        sh::unmap(c);
    }
    grow(b);
    EXPECT_EQ(file_size(), bytes_of(2));
    std::vector<uint8_t> zero(b.size - bytes_of(1), 0);
    EXPECT_EQ(std::memcmp(b.base + bytes_of(1), zero.data(), zero.size()), 0);
    sh::unmap(b);
}

TEST_F(SharedGrowth, MoreThanTheNextSubfilterIsRefused) {
    create(2);
    ASSERT_EQ(truncate(path.c_str(), off_t(bytes_of(2) + 1)), 0);
    EXPECT_NE(refusal([&] { attach(); }).find("is extended"), std::string::npos);
}

TEST_F(SharedGrowth, ACountTheFileDoesNotHoldIsRefused) {
    create(2);
    sh::Mapping a = attach();
    sh::Mapping b = attach();
    sh::publish_subfilters(a.header(), 3);  // edited: nothing extended the file
    EXPECT_NE(refusal([&] { sh::follow_growth(b, path, "grows"); }).find("more than it holds"), std::string::npos);
    EXPECT_EQ(b.subfilters, 1u);
    EXPECT_NE(refusal([&] { attach(); }).find("is truncated"), std::string::npos);
    __atomic_store_n(&a.header()->subfilters, sh::kMaxSubfilters + 1, __ATOMIC_RELEASE);
    EXPECT_NE(refusal([&] { attach(); }).find("at most"), std::string::npos);
    sh::unmap(a);
    sh::unmap(b);
}

TEST_F(SharedGrowth, AFixedSizeObjectDoesNotGrow) {
    create(0);
    sh::Mapping a = attach();
    EXPECT_EQ(a.grown, nullptr);
    EXPECT_EQ(scf::grown_payload(reinterpret_cast<const uint8_t*>(&stored), sizeof stored, 2), 0u);
    __atomic_store_n(&a.header()->subfilters, 2u, __ATOMIC_RELEASE);
    EXPECT_FALSE(sh::follow_growth(a, path, "grows"));
    EXPECT_NE(refusal([&] { attach(); }).find("does not grow"), std::string::npos);
    ASSERT_EQ(truncate(path.c_str(), off_t(a.size + 4096)), 0);
    EXPECT_TRUE(sh::file_changed(a, path.c_str()));
    sh::unmap(a);
}

TEST_F(SharedGrowth, ImagesAndCopiesKeepTheGrownSize) {
    create(2);
    sh::Mapping a = attach();
    grow(a);
    a.base[a.size - 1] = 0x77;
    ASSERT_EQ(sh::extend_file(a, path, a.size, bytes_of(3)), 0);  // an unpublished tail: not carried
    std::vector<uint8_t> image(sh::image_bytes(a));
    sh::write_image(a, image.data());
    EXPECT_EQ(image.size(), bytes_of(2));
    const sh::FileHeader h = sh::check_image(image.data(), image.size(), "grows", uint32_t(sh::Kind::cbf), 7);
    EXPECT_EQ(h.subfilters, 2u);
    sh::set_flags(a.header(), sh::kFrozen);
    sh::unmap(a);
    sh::copy_file(path, dir + "/copy", "grows", true, 8, kRun);
    ASSERT_EQ(unlink(path.c_str()), 0);
    sh::restore_image(path, "grows", image.data(), image.size(), kRun, false);
    for (const std::string& p : {path, dir + "/copy"}) {
        sh::Mapping b = sh::attach_file(p, "grows", uint32_t(sh::Kind::cbf), false, kRun);
        EXPECT_EQ(b.subfilters, 2u);
        EXPECT_EQ(b.size, bytes_of(2));
        EXPECT_EQ(b.base[b.size - 1], 0x77);
        struct stat st;
        ASSERT_EQ(stat(p.c_str(), &st), 0);
        EXPECT_EQ(uint64_t(st.st_size), bytes_of(2));
        sh::unmap(b);
    }
}

}  // namespace
