// Large filters in transparent huge pages. Every probe of a filter beyond the
// caches lands on a page of its own; with 4 KiB pages each one is also a TLB
// miss (bench/core/cbf_bench.cpp compares both). This machine class's THP
// setting is `madvise`, so memory gets huge pages only when asked.
// All of it is a hint: when the kernel says no, the memory works as before.
// Detoasting straight into such memory: memory/detoast_into.hpp. Stored
// filters read by a lookup per row: types/fetched_filters.hpp.
#pragma once

#include <cstddef>

#include "pg.hpp"

namespace sketch_pg {

// The size of a transparent huge page on x86-64.
constexpr size_t kHugePageBytes = size_t(2) << 20;

// Advises the 2 MiB-aligned part of [p, p + len) into huge pages: memory not
// touched yet then faults in 2 MiB at a time. Nothing for less than 4 MiB.
void advise_huge(void* p, size_t len);

// `bytes` from cxt (1 GB or more allowed), the whole 2 MiB pages inside
// advised into huge pages before anything touches them. It is the start of an
// ordinary chunk, which PostgreSQL may copy, free or adopt like any other:
// for values a function returns (a fresh 64 MiB palloc faults in 16,384
// pages of 4 KiB; in huge pages, in 32).
void* alloc_large(MemoryContext cxt, size_t bytes);
inline void* palloc_large(size_t bytes) { return alloc_large(CurrentMemoryContext, bytes); }
void* palloc0_large(size_t bytes);

}  // namespace sketch_pg
