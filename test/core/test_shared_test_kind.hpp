// The test kind of shared object, for the tests of object files: its
// geometry is one uint64, the payload size; and a fixture that makes such
// files in a folder of its own.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "error.hpp"
#include "shared/shared_file.hpp"

inline void validate_test_geometry(const char* label, const uint8_t* g, uint32_t len, uint64_t payload) {
    uint64_t want = 0;
    if (len != sizeof want) sketch::fail(sketch::Errc::corrupted, "shared object \"%s\": bad test geometry", label);
    std::memcpy(&want, g, sizeof want);
    if (want != payload) sketch::fail(sketch::Errc::corrupted, "shared object \"%s\": bad test geometry", label);
}

// A temporary folder (removed after each test) and the spec of a test-kind
// object with a payload of `geometry` bytes.
class TestKindFiles : public ::testing::Test {
protected:
    std::string dir;
    uint64_t geometry = 4096 * 3;

    void SetUp() override {
        sketch::shared::register_kind(sketch::shared::Kind::test, validate_test_geometry);
        char tmpl[] = "/tmp/sketch-shared-test.XXXXXX";
        ASSERT_NE(mkdtemp(tmpl), nullptr);
        dir = tmpl;
    }
    void TearDown() override { std::system(("rm -rf " + dir).c_str()); }

    sketch::shared::CreateSpec spec(uint64_t file_id = 7) {
        sketch::shared::CreateSpec s{};
        s.kind = sketch::shared::Kind::test;
        s.geometry = reinterpret_cast<const uint8_t*>(&geometry);
        s.geometry_len = sizeof geometry;
        s.payload_bytes = geometry;
        s.file_id = file_id;
        s.durable = false;
        return s;
    }
    std::string path(const char* name) { return dir + "/" + name; }
};
