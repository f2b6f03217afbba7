// Decoding and validation of a reservoir's external envelope (layout in
// reservoir_format.hpp).
#include "reservoir_format.hpp"

#include <cmath>
#include <cstring>

#include "reservoir.hpp"

namespace sketch::reservoir {

namespace {

constexpr size_t kFixedHeaderBytes = 1 + 1 + 4 + 8;  // version, flags, k, seen

uint64_t get_be(const uint8_t* p, size_t bytes) {
    uint64_t v = 0;
    for (size_t i = 0; i < bytes; ++i) v = (v << 8) | p[i];
    return v;
}

double get_double(const uint8_t* p) {
    const uint64_t bits = get_be(p, 8);
    double x;
    std::memcpy(&x, &bits, sizeof x);
    return x;
}

// Bytes each item takes at least: its length word and, weighted, its key.
size_t item_frame_bytes(bool weighted) { return 4 + (weighted ? 8 : 0); }

}  // namespace

void check_envelope(int64_t version, int64_t flags, int64_t k, int64_t seen, int64_t count, Errc code) {
    if (version != kExternalVersion) fail(code, "Unsupported version.");
    if (flags != 0 && flags != kExternalWeighted) fail(code, "Unknown flags.");
    if (k < 1 || k > kMaxK) fail(code, "k must be between 1 and %d.", kMaxK);
    if (seen < 0) fail(code, "\"seen\" must not be negative.");
    if (count != (seen < k ? seen : k)) fail(code, "The number of items must be min(seen, k).");
}

void check_key(double key, Errc code) {
    if (std::isnan(key) || key > 0.0) fail(code, "Keys are logarithms of numbers in (0, 1]: they must be <= 0.");
}

BinaryHeader read_binary(const uint8_t* data, size_t len) {
    constexpr Errc code = Errc::invalid_binary;
    if (len < kFixedHeaderBytes) fail(code, "Too short: %zu bytes end inside the header.", len);
    const int64_t version = data[0];
    const int64_t flags = data[1];
    const int64_t k = static_cast<int32_t>(get_be(data + 2, 4));
    const int64_t seen = static_cast<int64_t>(get_be(data + 6, 8));
    size_t pos = kFixedHeaderBytes;
    const void* nul = std::memchr(data + pos, '\0', len - pos);
    if (nul == nullptr) fail(code, "The item type name has no terminating NUL.");
    if (nul == data + pos) fail(code, "The item type name is empty.");
    BinaryHeader h;
    h.type_name = reinterpret_cast<const char*>(data + pos);
    pos = static_cast<const uint8_t*>(nul) - data + 1;
    if (len - pos < 4) fail(code, "Too short: the item count is missing.");
    const int64_t count = static_cast<int32_t>(get_be(data + pos, 4));
    pos += 4;
    check_envelope(version, flags, k, seen, count, code);
    h.weighted = flags == kExternalWeighted;
    h.k = static_cast<int32_t>(k);
    h.seen = seen;
    h.count = static_cast<int32_t>(count);
    h.items_offset = pos;
    const size_t framing = static_cast<size_t>(count) * item_frame_bytes(h.weighted);
    if (framing > len - pos)
        fail(code, "%lld items need at least %zu bytes, but %zu follow the header.", static_cast<long long>(count),
             framing, len - pos);
    for (int64_t i = 0; i < count; ++i) {
        if (len - pos < item_frame_bytes(h.weighted)) fail(code, "Truncated item %lld.", static_cast<long long>(i + 1));
        if (h.weighted) {
            check_key(get_double(data + pos), code);
            pos += 8;
        }
        const int64_t item_len = static_cast<int32_t>(get_be(data + pos, 4));
        pos += 4;
        if (item_len < 0 || static_cast<uint64_t>(item_len) > len - pos)
            fail(code, "Item %lld's length %lld is out of range (%zu bytes left).", static_cast<long long>(i + 1),
                 static_cast<long long>(item_len), len - pos);
        pos += static_cast<size_t>(item_len);
    }
    if (pos != len) fail(code, "Trailing bytes: %zu after the last item.", len - pos);
    return h;
}

BinaryItem next_binary_item(const uint8_t* data, size_t& pos, bool weighted) {
    BinaryItem item;
    item.key = 0.0;
    if (weighted) {
        item.key = get_double(data + pos);
        pos += 8;
    }
    item.length = static_cast<size_t>(get_be(data + pos, 4));
    pos += 4;
    item.offset = pos;
    pos += item.length;
    return item;
}

}  // namespace sketch::reservoir
