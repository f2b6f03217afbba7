#include "memory/detoast_into.hpp"

#include <cstring>

#include "memory/huge_pages.hpp"

extern "C" {
#include "access/detoast.h"
#include "access/table.h"
#include "access/tableam.h"
#include "utils/expandeddatum.h"
}

namespace sketch_pg {

namespace {

// An out-of-line value stored uncompressed (a column of STORAGE EXTERNAL,
// or one that did not compress), read from its TOAST relation straight into
// memory from alloc. detoast_attr would read it into fresh palloc memory
// first: for a 64 MiB filter a copy and 16K page faults more, which made
// reading such a value about 1.6 times slower (bench/README.md). nullptr for
// any other value.
struct varlena* fetch_uncompressed(struct varlena* raw, DetoastAlloc alloc, void* arg) {
    if (!VARATT_IS_EXTERNAL_ONDISK(raw)) return nullptr;
    varatt_external p;
    VARATT_EXTERNAL_GET_POINTER(p, raw);
    if (compat::stored_compressed(p)) return nullptr;
    const int32 size = VARATT_EXTERNAL_GET_EXTSIZE(p);
    auto* out = static_cast<struct varlena*>(alloc(VARHDRSZ + size_t(size), arg));
    SET_VARSIZE(out, VARHDRSZ + size);
    if (size > 0) {
        Relation toastrel = table_open(p.va_toastrelid, AccessShareLock);
        table_relation_fetch_toast_slice(toastrel, p.va_valueid, size, 0, size, out);
        table_close(toastrel, AccessShareLock);
    }
    return out;
}

}  // namespace

struct varlena* detoast_into(struct varlena* raw, DetoastAlloc alloc, void* arg) {
    if (VARATT_IS_EXTERNAL_EXPANDED(raw)) {  // such as an aggregate's state (agg_state.hpp)
        ExpandedObjectHeader* eoh = DatumGetEOHP(PointerGetDatum(raw));
        const Size len = EOH_get_flat_size(eoh);
        auto* out = static_cast<struct varlena*>(alloc(len, arg));
        EOH_flatten_into(eoh, out, len);
        return out;
    }
    if (struct varlena* out = fetch_uncompressed(raw, alloc, arg)) return out;
    struct varlena* flat = detoast_attr(raw);
    auto* out = static_cast<struct varlena*>(alloc(VARSIZE(flat), arg));
    std::memcpy(out, flat, VARSIZE(flat));
    if (flat != raw) pfree(flat);
    return out;
}

struct varlena* detoast_large(Datum d) {
    auto* raw = reinterpret_cast<struct varlena*>(DatumGetPointer(d));
    if (!VARATT_IS_EXTENDED(raw)) return raw;
    return detoast_into(raw, [](size_t len, void*) { return palloc_large(len); }, nullptr);
}

struct varlena* detoast_copy_into(Datum d, DetoastAlloc alloc, void* arg) {
    auto* raw = reinterpret_cast<struct varlena*>(DatumGetPointer(d));
    if (VARATT_IS_EXTENDED(raw)) return detoast_into(raw, alloc, arg);
    auto* copy = static_cast<struct varlena*>(alloc(VARSIZE(raw), arg));
    std::memcpy(copy, raw, VARSIZE(raw));
    return copy;
}

struct varlena* detoast_large_copy(Datum d) {
    return detoast_copy_into(d, [](size_t len, void*) { return palloc_large(len); }, nullptr);
}

}  // namespace sketch_pg
