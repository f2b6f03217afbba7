// Fuzz target: the reservoir binary form's envelope decoder. Whatever the
// bytes, read_binary either throws sketch::Error or accepts a value whose
// items, walked with next_binary_item, lie inside the input and end at its end.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "error.hpp"
#include "reservoir/reservoir_format.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace sketch::reservoir;
    BinaryHeader h;
    try {
        h = read_binary(data, size);
    } catch (const sketch::Error&) {
        return 0;
    }
    if (h.count < 0 || h.k < 1 || h.count > h.k || h.seen < h.count) std::abort();
    if (std::strlen(h.type_name) == 0) std::abort();
    size_t pos = h.items_offset;
    for (int32_t i = 0; i < h.count; ++i) {
        const BinaryItem item = next_binary_item(data, pos, h.weighted);
        if (item.offset > size || item.length > size - item.offset || item.key > 0.0 || item.key != item.key)
            std::abort();
    }
    if (pos != size) std::abort();
    return 0;
}
