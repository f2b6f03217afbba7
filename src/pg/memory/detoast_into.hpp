// Detoasting a filter into memory of the caller's choosing (huge pages,
// reusable memory: huge_pages.hpp, reusable_memory.hpp): with PostgreSQL's
// own detoast functions, but for a value stored uncompressed, which is read
// from its TOAST table straight into that memory.
#pragma once

#include <cstddef>

#include "pg.hpp"
#include "pg_compat.hpp"

namespace sketch_pg {

// Memory for a detoasted value of len bytes.
using DetoastAlloc = void* (*)(size_t len, void* arg);

// The value raw (any varlena but a plain 4-byte-header one), detoasted into
// memory from alloc(len, arg).
struct varlena* detoast_into(struct varlena* raw, DetoastAlloc alloc, void* arg);

// PG_DETOAST_DATUM and PG_DETOAST_DATUM_COPY of a filter, into palloc_large
// memory (huge_pages.cpp).
struct varlena* detoast_large(Datum d);
struct varlena* detoast_large_copy(Datum d);
// d detoasted, or copied when it is plain, into memory from alloc(len, arg):
// detoast_large_copy into memory of the caller's choosing.
struct varlena* detoast_copy_into(Datum d, DetoastAlloc alloc, void* arg);

}  // namespace sketch_pg
