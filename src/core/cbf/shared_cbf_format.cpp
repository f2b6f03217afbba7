#include "cbf/shared_cbf_format.hpp"

#include <cstring>

#include "cbf/cbf_layout.hpp"
#include "error.hpp"
#include "shared/shared_file.hpp"

namespace sketch::shared_cbf {

namespace {

// A sub-filter after the first, for its capacity and rate: classic ones
// are sized as every classic filter was before layouts (k follows the
// rate); blocked ones keep the first's layout, k included, and take the
// lines the tighter rate needs.
cbf::Geometry next_subfilter(const cbf::Geometry& first, int64_t capacity, double fpr) {
    if (!first.blocked()) return cbf::geometry_for(capacity, fpr, cbf::kMaxCounters, first.seed);
    return cbf::geometry_for(capacity, fpr, cbf::layout_of(first), cbf::kMaxCounters, first.seed);
}

}  // namespace

std::vector<Subfilter> subfilters(const cbf::Geometry& first, const shared::Series& s, uint32_t count) {
    std::vector<Subfilter> out;
    out.reserve(count);
    uint64_t offset = 0;
    for (uint32_t i = 0; i < count; ++i) {
        if (i > 0) offset = shared::next_subfilter_offset(offset, out.back().g.counter_bytes());
        const uint64_t capacity = shared::subfilter_capacity(s, i);
        if (capacity > uint64_t(INT64_MAX))
            fail(Errc::program_limit, "sub-filter %u of a counting filter would hold more than %lld items", i,
                 (long long)INT64_MAX);
        const cbf::Geometry g = i == 0 ? first : next_subfilter(first, int64_t(capacity), shared::subfilter_fpr(s, i));
        out.push_back(Subfilter{g, offset});
    }
    return out;
}

uint64_t payload_bytes(const std::vector<Subfilter>& subs) {
    return subs.empty() ? 0 : subs.back().offset + subs.back().g.counter_bytes();
}

StoredGeometry to_stored(const cbf::Geometry& g, uint32_t expansion) {
    StoredGeometry s{};
    s.expansion = expansion;
    s.k = g.k;
    s.scheme = g.scheme;
    s.m = g.m;
    s.capacity = g.capacity;
    s.fpr = g.fpr;
    s.seed = g.seed;
    return s;
}

cbf::Geometry from_blob(const uint8_t* blob) {
    StoredGeometry s;
    memcpy(&s, blob, kStoredBytesWithoutExpansion);
    cbf::Geometry g;
    g.k = s.k;
    g.scheme = s.scheme;
    g.m = s.m;
    g.capacity = s.capacity;
    g.fpr = s.fpr;
    g.seed = s.seed;
    return g;
}

shared::Series series_of(const uint8_t* blob, uint32_t len) {
    StoredGeometry s{};
    memcpy(&s, blob, len == sizeof s ? sizeof s : kStoredBytesWithoutExpansion);
    const double asked = s.expansion == 0 ? s.fpr : s.fpr / (1 - shared::kTightening);
    return shared::Series{s.capacity, asked, s.expansion};
}

uint64_t grown_payload(const uint8_t* blob, uint32_t len, uint32_t count) {
    const shared::Series s = series_of(blob, len);
    return s.scaling() ? payload_bytes(subfilters(from_blob(blob), s, count)) : 0;
}

void validate(const char* label, const uint8_t* blob, uint32_t len, uint64_t payload_bytes) {
    if (len != sizeof(StoredGeometry) && len != kStoredBytesWithoutExpansion)
        fail(Errc::corrupted, "shared object \"%s\": counting filter geometry has %u bytes", label, len);
    if (series_of(blob, len).expansion > shared::kMaxExpansion)
        fail(Errc::corrupted, "shared object \"%s\": expansion %u is out of range", label,
             series_of(blob, len).expansion);
    cbf::Geometry g = from_blob(blob);
    shared::naming(label, [&] { cbf::check_geometry(g, cbf::kMaxCounters, Errc::corrupted); });
    if (!cbf::sized_by_its_layout(g))
        fail(Errc::corrupted,
             "shared object \"%s\": counting filter of layout %s has %llu counters, not the fewest lines of %llu "
             "that meet fpr %g at capacity %llu",
             label, cbf::format_layout(cbf::layout_of(g)).c_str(), (unsigned long long)g.m,
             (unsigned long long)cbf::kLineCounters, g.fpr, (unsigned long long)g.capacity);
    if (g.counter_bytes() != payload_bytes)
        fail(Errc::corrupted, "shared object \"%s\": %llu counters need %zu bytes, the file has %llu", label,
             (unsigned long long)g.m, g.counter_bytes(), (unsigned long long)payload_bytes);
}

bool describe(const uint8_t* blob, uint32_t len, Description* out) noexcept {
    if (len != sizeof(StoredGeometry) && len != kStoredBytesWithoutExpansion) return false;
    const cbf::Geometry g = from_blob(blob);
    out->capacity = g.capacity;
    out->fpr = series_of(blob, len).fpr;
    out->expansion = series_of(blob, len).expansion;
    out->m = g.m;
    out->k = g.k;
    out->layout = cbf::layout_of(g);
    return true;
}

}  // namespace sketch::shared_cbf
