// Encoding and validation of the bloom header (layout in bloom_format.hpp).
#include "bloom/bloom_format.hpp"

#include <cstring>

namespace sketch {
namespace bloom {

namespace {
template <typename T>
T get(const uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
template <typename T>
void put(uint8_t* p, T v) {
    std::memcpy(p, &v, sizeof v);
}
// Version 3's n and fpr, which must be ones a filter can be sized for.
Sizing read_sizing(const uint8_t* in, size_t len, Errc code) {
    if (len < kSizedHeaderBytes)
        fail(code, "invalid bloom value: %zu bytes is shorter than its %zu-byte version 3 header", len, kSizedHeaderBytes);
    Sizing s{get<uint64_t>(in + 28), get<double>(in + 36)};
    if (s.n == 0) fail(code, "invalid bloom value: it was sized for 0 items");
    if (!(s.fpr > 0 && s.fpr < 1)) fail(code, "invalid bloom value: it was sized for fpr %g, not one in (0, 1)", s.fpr);
    return s;
}

}  // namespace

void write_header(uint8_t* out, const Geometry& g, uint64_t seed, ItemClass item, const Sizing& sizing) {
    out[0] = sizing.known() ? 3 : item.known() ? 2 : 1;
    out[1] = uint8_t(g.layout.kind);
    out[2] = uint8_t(g.layout.block);
    out[3] = uint8_t(g.layout.k);
    out[4] = uint8_t(g.layout.kp);
    out[5] = uint8_t(item.code);
    put<uint16_t>(out + 6, uint16_t(g.layout.stride));
    put<uint32_t>(out + 8, item.type);
    put<uint64_t>(out + 12, g.bits());
    put<uint64_t>(out + 20, seed);
    if (!sizing.known()) return;
    put<uint64_t>(out + 28, sizing.n);
    put<double>(out + 36, sizing.fpr);
}

Header read_header(const uint8_t* in, size_t len, Errc code) {
    if (len < kHeaderBytes) fail(code, "invalid bloom value: %zu bytes is shorter than its %zu-byte header", len, kHeaderBytes);
    if (in[0] == 0 || in[0] > kFormatVersion)
        fail(code, "invalid bloom value: unsupported format version %u (this build reads versions 1 to %u)", in[0], kFormatVersion);
    if (in[1] > uint8_t(Kind::cbf)) fail(code, "invalid bloom value: unknown layout kind %u", in[1]);
    if (in[2] >= kBlockTypes) fail(code, "invalid bloom value: unknown block type %u", in[2]);
    Layout l;
    l.kind = Kind(in[1]);
    l.block = BlockType(in[2]);
    l.k = in[3];
    l.kp = in[4];
    l.stride = get<uint16_t>(in + 6);
    const uint64_t bits = get<uint64_t>(in + 12);
    Header h;
    try {
        validate_layout(l);
        if (bits % 8 != 0) fail(code, "capacity of %llu bits is not a whole number of bytes", static_cast<unsigned long long>(bits));
        h.geometry = geometry_for_bytes(l, bits / 8, code);
    } catch (const Error& e) {
        fail(code, "invalid bloom value: %s", e.what());
    }
    const uint32_t item_type = get<uint32_t>(in + 8);
    if (in[0] == 1) {
        if (in[5] != 0) fail(code, "invalid bloom value: reserved byte is %u, not 0", in[5]);
        if (item_type != 0) fail(code, "invalid bloom value: reserved header field must be 0, got %u", item_type);
    } else if (!decode_item_class(in[5], item_type, &h.item) || (in[0] == 2 && !h.item.known())) {
        // (version 3 records a sizing, with or without a class)
        fail(code, "invalid bloom value: item class %u with type %u is not one this build knows", in[5], item_type);
    }
    h.seed = get<uint64_t>(in + 20);
    if (in[0] == 3) h.sizing = read_sizing(in, len, code);
    return h;
}

Header read_external(const uint8_t* in, size_t len, Errc code) {
    Header h = read_header(in, len, code);
    if (len != external_size(h.geometry, h.sizing))
        fail(code, "invalid bloom value: %zu bytes, but its header (%s, %llu bits) needs %zu", len,
             format_layout(h.geometry.layout).c_str(), static_cast<unsigned long long>(h.geometry.bits()), external_size(h.geometry, h.sizing));
    return h;
}

}  // namespace bloom
}  // namespace sketch
