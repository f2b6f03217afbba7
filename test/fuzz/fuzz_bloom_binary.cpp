// The binary form of a bloom value (bloom_format.hpp), as recv and the bytea
// cast read it. A value that decodes re-encodes to the same header, and every
// kernel path stays inside its bit array.
#include "bloom/bloom_format.hpp"
#include "fuzz_support.hpp"

namespace sb = sketch::bloom;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    sb::Header h;
    try {
        h = sb::read_external(data, size, sketch::Errc::invalid_binary);
    } catch (const sketch::Error&) {
        return 0;
    }
    uint8_t header[sb::kSizedHeaderBytes];
    sb::write_header(header, h.geometry, h.seed, h.item, h.sizing);
    const size_t header_bytes = sb::header_bytes(h.sizing);
    fuzz::require(std::memcmp(header, data, header_bytes) == 0, "a decoded header re-encodes to its bytes");
    fuzz::exercise_bloom(h.geometry, data + header_bytes, fuzz::hashes_of(data, size, 4));
    return 0;
}
