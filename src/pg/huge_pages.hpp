// Large filters in transparent huge pages. Every probe of a filter beyond the
// caches lands on a page of its own; with 4 KiB pages each one is also a TLB
// miss (bench/core/cbf_bench.cpp compares both). This machine class's THP
// setting is `madvise`, so memory gets huge pages only when asked.
// All of it is a hint: when the kernel says no, the memory works as before.
// Stored filters read by a lookup per row are fetched into such memory once
// per call site (FetchedFilter).
#pragma once

#include <cstddef>

#include "pg.hpp"

extern "C" {
#include "access/detoast.h"
}

namespace sketch_pg {

// Advises the 2 MiB-aligned part of [p, p + len) into huge pages: memory not
// touched yet then faults in 2 MiB at a time. Nothing for less than 4 MiB.
void advise_huge(void* p, size_t len);

// A detoasted copy of the out-of-line value `raw` in cxt whose array (after
// `header_bytes` of varlena and format header) starts on a 2 MiB boundary and
// is advised into huge pages before it is written, when it is 4 MiB or more.
// A pglz-compressed value is decompressed straight into it, anything else
// detoasted and copied. *base receives what to pfree.
struct varlena* detoast_huge(struct varlena* raw, MemoryContext cxt, size_t header_bytes, void** base);

// A stored filter fetched once per call site (fn_extra), keyed by its TOAST
// pointer, so that `cbf_contains((SELECT f FROM filters), x)` fetches the
// filter once per query rather than once per row. Zeroed: holds nothing.
struct FetchedFilter {
    Oid toastrelid;
    Oid valueid;
    struct varlena* value;  // nullptr until a fetch has been validated
    void* base;             // what to pfree for the last fetch
};

// Whether f holds the out-of-line (VARATT_IS_EXTERNAL_ONDISK) value raw.
inline bool holds(const FetchedFilter* f, struct varlena* raw) {
    if (f->value == nullptr) return false;
    varatt_external p;
    VARATT_EXTERNAL_GET_POINTER(p, raw);
    return f->valueid == p.va_valueid && f->toastrelid == p.va_toastrelid;
}

// The out-of-line value raw, detoasted with detoast_huge into cxt: the copy f
// holds when it is that value, else a fresh one (the previous freed) that f
// holds from then on, once validate(value) has returned (it may raise).
template <typename Validate>
struct varlena* fetch_filter(FetchedFilter* f, struct varlena* raw, MemoryContext cxt, size_t header_bytes,
                             Validate validate) {
    if (holds(f, raw)) return f->value;
    if (f->base != nullptr) pfree(f->base);
    f->value = nullptr;
    f->base = nullptr;
    struct varlena* v = detoast_huge(raw, cxt, header_bytes, &f->base);
    validate(v);
    varatt_external p;
    VARATT_EXTERNAL_GET_POINTER(p, raw);
    f->toastrelid = p.va_toastrelid;
    f->valueid = p.va_valueid;
    f->value = v;
    return v;
}

}  // namespace sketch_pg
