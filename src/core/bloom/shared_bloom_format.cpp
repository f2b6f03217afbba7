#include "bloom/shared_bloom_format.hpp"

#include <cstring>

#include "error.hpp"
#include "shared/shared_file.hpp"

namespace sketch::shared_bloom {

uint64_t payload_bytes(const bloom::Geometry& g) { return ((g.bytes + 7) & ~uint64_t(7)) + bloom::kTailPad; }

std::vector<Subfilter> subfilters(const bloom::Geometry& first, const shared::Series& s, uint32_t count) {
    std::vector<Subfilter> out;
    out.reserve(count);
    uint64_t offset = 0;
    for (uint32_t i = 0; i < count; ++i) {
        if (i > 0) offset = shared::next_subfilter_offset(offset, payload_bytes(out.back().g));
        const bloom::Geometry g =
            i == 0 ? first : bloom::capacity_for(shared::subfilter_capacity(s, i), shared::subfilter_fpr(s, i), first.layout);
        out.push_back(Subfilter{g, offset});
    }
    return out;
}

uint64_t payload_bytes(const std::vector<Subfilter>& subs) {
    return subs.empty() ? 0 : subs.back().offset + payload_bytes(subs.back().g);
}

uint64_t grown_payload(const uint8_t* blob, uint32_t len, uint32_t count) {
    const Geometry p = parse(blob, len, "?");
    return grows(p) ? payload_bytes(subfilters(p.g, p.series(), count)) : 0;
}

StoredGeometry to_stored(const bloom::Geometry& g, uint64_t seed, uint64_t n, double fpr, uint32_t expansion) {
    StoredGeometry s{};
    bloom::write_header(s.header, g, seed);
    s.n = n;
    s.fpr = fpr;
    s.expansion = expansion;
    return s;
}

Geometry parse(const uint8_t* blob, uint32_t len, const char* label) {
    if (len != sizeof(StoredGeometry) && len != kStoredBytesWithoutExpansion)
        fail(Errc::corrupted, "shared object \"%s\": Bloom filter geometry has %u bytes", label, len);
    StoredGeometry s{};
    memcpy(&s, blob, len);
    if (s.expansion > shared::kMaxExpansion)
        fail(Errc::corrupted, "shared object \"%s\": expansion %u is out of range", label, s.expansion);
    const bloom::Header h =
        shared::naming(label, [&] { return bloom::read_header(s.header, bloom::kHeaderBytes, Errc::corrupted); });
    Geometry out;
    out.g = h.geometry;
    out.seed = h.seed;
    out.n = s.n;
    out.fpr = s.fpr;
    out.expansion = s.expansion;
    return out;
}

void validate(const char* label, const uint8_t* blob, uint32_t len, uint64_t payload) {
    Geometry p = parse(blob, len, label);
    if (payload_bytes(p.g) != payload)
        fail(Errc::corrupted, "shared object \"%s\": a Bloom filter of %llu bytes needs %llu, the file has %llu", label,
             (unsigned long long)p.g.bytes, (unsigned long long)payload_bytes(p.g), (unsigned long long)payload);
}

bool describe(const uint8_t* blob, uint32_t len, Description* out) noexcept {
    try {
        Geometry p = parse(blob, len, "?");
        std::string layout;
        try {
            layout = bloom::format_layout(p.g.layout);
        } catch (...) {
            layout = "?";
        }
        out->capacity = p.n;
        out->fpr = p.fpr;
        out->expansion = p.expansion;
        out->layout = std::move(layout);
        out->m = p.g.bits();
        out->k = p.g.layout.k * p.g.layout.kp;
        return true;
    } catch (...) {
        return false;
    }
}

}  // namespace sketch::shared_bloom
