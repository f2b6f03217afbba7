// Memory of large filters that a backend keeps for its next query.
//
// A large aggregate state, a region batch or a stored filter fetched for
// lookups lives as long as one query (or one group). Freed with its context
// and allocated again by the next query, it is fresh memory each time: the
// kernel clears every page again, and on a VM whose host takes freed memory
// back (free page reporting) every page also costs a host fault; memory
// kept with MADV_FREE is touched again at the cost of a few faults.
//
// glibc's malloc already keeps freed blocks of up to 32 MiB for reuse. From
// 32 MiB on, such memory comes from mappings the backend keeps once their
// owner is done with them, up to sketchshare.reusable_memory bytes. Kept
// mappings are marked MADV_FREE: the kernel takes their pages whenever it
// needs memory (a page it took reads back as zeroes), and until then they
// count in the backend's resident size.
#pragma once

#include <cstddef>

#include "pg.hpp"

namespace sketch_pg {

// sketchshare.reusable_memory's assign hook: gives back kept mappings beyond the new limit.
void reusable_memory_assign(int mb, void* extra);

// `bytes` of memory, not zeroed, owned by `owner` until it is reset or
// deleted. From 32 MiB: whole 2 MiB pages of a mapping advised into huge
// pages, kept for reuse then (or unmapped, beyond the setting), p + offset
// (the start of a filter's array) on a cache line. Below: palloc memory of
// owner, p + offset on a huge page boundary and the rest advised into huge
// pages from 4 MiB, else on a cache line. Counted in owner's allocated bytes
// either way, which is what hash aggregation's memory limit reads (but for
// mappings on a server built with assertions, see count_in). Raises 53200
// when the kernel has no memory for it, or returns nullptr then when `no_oom`.
void* alloc_reusable(MemoryContext owner, size_t bytes, size_t offset, bool no_oom = false);

}  // namespace sketch_pg
