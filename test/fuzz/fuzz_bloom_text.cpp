// The text form of a bloom value (base64, or 0.1.0's hex), as bloom_in reads it:
// the text decoder, then the binary form.
#include "bloom/bloom_format.hpp"
#include "fuzz_support.hpp"

namespace sb = sketch::bloom;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::vector<uint8_t> bytes;
    sb::Header h;
    try {
        bytes = fuzz::decode_text(data, size, "bloom");
        h = sb::read_external(bytes.data(), bytes.size(), sketch::Errc::invalid_text);
    } catch (const sketch::Error&) {
        return 0;
    }
    fuzz::require_prints_as(bytes, data, size);
    fuzz::exercise_bloom(h.geometry, bytes.data() + sb::header_bytes(h.sizing), fuzz::hashes_of(data, size, 4));
    return 0;
}
