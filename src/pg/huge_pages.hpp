// Large filters in transparent huge pages. Every probe of a filter beyond the
// caches lands on a page of its own; with 4 KiB pages each one is also a TLB
// miss (bench/core/cbf_bench.cpp compares both). This machine class's THP
// setting is `madvise`, so memory gets huge pages only when asked.
// All of it is a hint: when the kernel says no, the memory works as before.
#pragma once

#include <cstddef>

#include "pg.hpp"

namespace sketch_pg {

// Advises the 2 MiB-aligned part of [p, p + len) into huge pages: memory not
// touched yet then faults in 2 MiB at a time. Nothing for less than 4 MiB.
void advise_huge(void* p, size_t len);

// A detoasted copy of the out-of-line value `raw` in cxt whose array (after
// `header_bytes` of varlena and format header) starts on a 2 MiB boundary and
// is advised into huge pages before it is written, when it is 4 MiB or more. A pglz-compressed value is decompressed straight into
// it, anything else detoasted and copied. *base receives what to pfree.
struct varlena* detoast_huge(struct varlena* raw, MemoryContext cxt, size_t header_bytes, void** base);

}  // namespace sketch_pg
