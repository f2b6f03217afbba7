// The header of a shared object's file (shared_file.hpp), validated as
// attach_file validates it before mapping: whatever a damaged or planted file
// holds, the header is refused with a sketch::Error or describes the file
// exactly, since the mapping and every payload access trust it.
//
// Input: an options byte, the file's size (8 bytes, little endian), then the
// header's bytes (cut or zero-padded to sizeof(FileHeader)). Options: bit 0
// writes the right checksum over the header (random bytes almost never match
// it, and the checks behind it would go unexplored), bit 1 takes the file's
// size from the header, the bits above pick the kind attach expects.
#include <algorithm>

#include "bloom/bloom_format.hpp"
#include "error.hpp"
#include "fuzz_support.hpp"
#include "shared/shared_file.hpp"
#include "reservoir/shared_reservoir.hpp"

namespace sh = sketch::shared;

namespace {

// The kinds' geometry checks, standing in for those the PostgreSQL face
// registers: a bloom geometry starts with a value header, decoded by
// bloom::read_header as there (the payload size it implies is the face's
// own rule); a reservoir's is the core's, checked as there. A cbf's stored
// geometry is the face's own struct (its core check, cbf::check_geometry, is
// fuzzed through the cbf values): files of that kind are refused here as
// unknown. The test kind: a uint64, the payload size.
void bloom_geometry(const char*, const uint8_t* geometry, uint32_t len, uint64_t) {
    sketch::bloom::read_header(geometry, len, sketch::Errc::corrupted);
}

void reservoir_geometry(const char* label, const uint8_t* geometry, uint32_t len, uint64_t payload_bytes) {
    sketch::shared_reservoir::Geometry g;
    if (len != sizeof g) sketch::fail(sketch::Errc::corrupted, "reservoir geometry has %u bytes", len);
    std::memcpy(&g, geometry, sizeof g);
    sketch::shared_reservoir::check_geometry(label, g, payload_bytes);
}

void test_geometry(const char*, const uint8_t* geometry, uint32_t len, uint64_t payload_bytes) {
    uint64_t want = 0;
    if (len != sizeof want) sketch::fail(sketch::Errc::corrupted, "test geometry has %u bytes", len);
    std::memcpy(&want, geometry, sizeof want);
    if (want != payload_bytes) sketch::fail(sketch::Errc::corrupted, "test geometry disagrees with the payload");
}

constexpr size_t kSizeAt = 1, kHeaderAt = 9;
const uint32_t kExpected[] = {0, uint32_t(sh::Kind::bloom), uint32_t(sh::Kind::cbf), uint32_t(sh::Kind::reservoir),
                              uint32_t(sh::Kind::test)};

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    sh::register_kind(sh::Kind::bloom, bloom_geometry);
    sh::register_kind(sh::Kind::reservoir, reservoir_geometry);
    sh::register_kind(sh::Kind::test, test_geometry);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < kHeaderAt) return 0;
    const uint8_t options = data[0];
    sh::FileHeader h;
    std::memset(&h, 0, sizeof h);
    std::memcpy(&h, data + kHeaderAt, std::min(size - kHeaderAt, sizeof h));
    if (options & 1) h.checksum = sh::header_checksum(h);
    uint64_t file_size;
    std::memcpy(&file_size, data + kSizeAt, sizeof file_size);
    if (options & 2) file_size = h.total_bytes;
    const uint32_t expected = kExpected[(options >> 2) % (sizeof kExpected / sizeof kExpected[0])];
    try {
        sh::validate_header(h, file_size, "/fuzz/object", "object", expected);
    } catch (const sketch::Error&) {
        return 0;
    }
    fuzz::require(h.magic == sh::kMagic && h.checksum == sh::header_checksum(h), "an accepted header is intact");
    fuzz::require(expected == 0 || h.kind == expected, "an accepted header holds the kind expected");
    fuzz::require(h.geometry_len <= sh::kGeometryBytes, "an accepted geometry fits its field");
    fuzz::require(h.payload_offset == sh::kHeaderBytes && h.payload_bytes <= sh::kMaxPayloadBytes &&
                      file_size == sh::file_bytes(h.payload_bytes) && h.total_bytes == file_size,
                  "an accepted header describes the file exactly");
    return 0;
}
