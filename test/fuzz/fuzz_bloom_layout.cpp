// Layout spec strings (bloom_layout.hpp), as bloom_empty and the sizing
// functions read them: a spec that parses has a canonical form that parses
// to the same layout, its geometries are rebuilt from their sizes, and the
// filters sized for it work on every path.
#include <string>

#include "bloom/bloom_layout.hpp"
#include "fuzz_support.hpp"

namespace sb = sketch::bloom;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string spec(reinterpret_cast<const char*>(data), size);
    sb::Layout l;
    try {
        l = sb::parse_layout(spec);
    } catch (const sketch::Error&) {
        return 0;
    }
    const std::string canonical = sb::format_layout(l);
    fuzz::require(sb::parse_layout(canonical) == l, "the canonical form parses to the same layout");
    fuzz::require(sb::format_layout(sb::parse_layout(canonical)) == canonical, "the canonical form is a fixed point");
    if (l.resolved()) {
        const sb::Geometry g = sb::geometry_for_bits(l, 8 * uint64_t(size));
        fuzz::require(g.bits() >= 8 * uint64_t(size), "a geometry has the bits asked for");
        fuzz::require(sb::geometry_for_bytes(l, g.bytes, sketch::Errc::corrupted) == g,
                      "a geometry is rebuilt from its size");
    }
    sb::Geometry g;
    try {
        g = sb::capacity_for(1 + size % 1000, 0.01, l);
    } catch (const sketch::Error&) {
        return 0;  // no filter of this layout reaches that rate (a K' too small, a stride too fine)
    }
    fuzz::require(g.layout.resolved(), "a sized layout is resolved");
    std::vector<uint8_t> zeros(g.bytes, 0);
    fuzz::exercise_bloom(g, zeros.data(), fuzz::hashes_of(data, size, 4));
    return 0;
}
