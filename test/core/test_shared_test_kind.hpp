// The test kind of shared object, for the tests of object files: its
// geometry is one uint64, the payload size.
#pragma once

#include <cstdint>
#include <cstring>

#include "error.hpp"

inline void validate_test_geometry(const char* label, const uint8_t* g, uint32_t len, uint64_t payload) {
    uint64_t want = 0;
    if (len != sizeof want) sketch::fail(sketch::Errc::corrupted, "shared object \"%s\": bad test geometry", label);
    std::memcpy(&want, g, sizeof want);
    if (want != payload) sketch::fail(sketch::Errc::corrupted, "shared object \"%s\": bad test geometry", label);
}
