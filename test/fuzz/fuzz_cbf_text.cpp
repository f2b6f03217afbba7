// The text form of a cbf value (base64, or 0.1.0's hex), as cbf_in reads it: the
// text decoder, then the binary form.
#include "cbf/cbf_format.hpp"
#include "fuzz_support.hpp"

namespace cbf = sketch::cbf;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::vector<uint8_t> bytes;
    cbf::View v;
    try {
        bytes = fuzz::decode_text(data, size, "cbf");
        v = cbf::read_value(bytes.data(), bytes.size(), cbf::kMaxCounters, sketch::Errc::invalid_text);
    } catch (const sketch::Error&) {
        return 0;
    }
    fuzz::require_prints_as(bytes, data, size);
    fuzz::exercise_cbf(v.g, v.counters, fuzz::hashes_of(data, size, 4));
    return 0;
}
