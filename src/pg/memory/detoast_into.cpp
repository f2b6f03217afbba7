#include "memory/detoast_into.hpp"

#include <cstring>

#include "memory/huge_pages.hpp"

namespace sketch_pg {

struct varlena* detoast_large(Datum d) {
    auto* raw = reinterpret_cast<struct varlena*>(DatumGetPointer(d));
    if (!VARATT_IS_EXTENDED(raw)) return raw;
    return detoast_into(raw, palloc_large);
}

struct varlena* detoast_copy_into(Datum d, void* (*alloc)(size_t len, void* arg), void* arg) {
    auto* raw = reinterpret_cast<struct varlena*>(DatumGetPointer(d));
    auto alloc_len = [&](size_t len) { return alloc(len, arg); };
    if (VARATT_IS_EXTENDED(raw)) return detoast_into(raw, alloc_len);
    auto* copy = static_cast<struct varlena*>(alloc_len(VARSIZE(raw)));
    std::memcpy(copy, raw, VARSIZE(raw));
    return copy;
}

struct varlena* detoast_large_copy(Datum d) {
    return detoast_copy_into(d, [](size_t len, void*) { return palloc_large(len); }, nullptr);
}

}  // namespace sketch_pg
