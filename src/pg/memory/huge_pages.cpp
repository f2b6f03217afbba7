#include "memory/huge_pages.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <cstring>

extern "C" {
#include "utils/memutils.h"
}

namespace sketch_pg {

namespace {

// [from, to): the whole huge pages inside [p, p + len), empty when fewer than 2.
bool huge_span(void* p, size_t len, uintptr_t* from, uintptr_t* to) {
    *from = (reinterpret_cast<uintptr_t>(p) + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
    *to = (reinterpret_cast<uintptr_t>(p) + len) & ~(kHugePageBytes - 1);
    return *to > *from && *to - *from >= 2 * kHugePageBytes;
}

}  // namespace

void advise_huge(void* p, size_t len) {
#ifdef MADV_HUGEPAGE
    uintptr_t from, to;
    if (huge_span(p, len, &from, &to)) (void)madvise(reinterpret_cast<void*>(from), to - from, MADV_HUGEPAGE);
#endif
}

void* alloc_large(MemoryContext cxt, size_t bytes) {
    void* p = MemoryContextAllocHuge(cxt, bytes);
    advise_huge(p, bytes);
    return p;
}

void* palloc0_large(size_t bytes) {
    void* p = palloc_large(bytes);
    std::memset(p, 0, bytes);
    return p;
}

}  // namespace sketch_pg
