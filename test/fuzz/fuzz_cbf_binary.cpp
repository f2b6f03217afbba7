// The binary form of a cbf value (cbf_format.hpp), as recv and the bytea cast
// read it. A value that decodes re-encodes to the same header, and every
// operation stays inside its counters.
#include "cbf/cbf_format.hpp"
#include "fuzz_support.hpp"

namespace cbf = sketch::cbf;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::vector<uint8_t> value(data, data + size);  // read_value hands out writable counters
    cbf::View v;
    try {
        v = cbf::read_value(value.data(), value.size(), cbf::kMaxCounters, sketch::Errc::invalid_binary);
    } catch (const sketch::Error&) {
        return 0;
    }
    uint8_t header[cbf::kHeaderBytes];
    cbf::write_header(header, v.g, v.item);
    fuzz::require(std::memcmp(header, data, cbf::kHeaderBytes) == 0, "a decoded header re-encodes to its bytes");
    fuzz::exercise_cbf(v.g, v.counters, fuzz::hashes_of(data, size, 4));
    return 0;
}
