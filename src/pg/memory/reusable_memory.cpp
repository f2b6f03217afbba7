#include "memory/reusable_memory.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <cstring>

#include "memory/huge_pages.hpp"
#include "module.hpp"

extern "C" {
#include "utils/memutils.h"
}

namespace sketch_pg {

int reusable_memory_mb = 256;

namespace {

// glibc's malloc keeps freed blocks of up to 32 MiB for its next allocations
// (its mmap threshold rises to the size of a freed block up to that), and
// unmaps larger ones at once: below this, palloc memory does as well as a
// kept mapping, and taking a filter's state out of it would leave the next
// large allocation (bloom_agg's text output, say) no freed block to reuse.
constexpr size_t kMappedFrom = size_t(32) << 20;
constexpr size_t kLine = 64;

// A mapping of whole, 2 MiB-aligned huge pages.
struct Mapping {
    uint8_t* base;
    size_t bytes;
};

// The kept mappings, oldest first. A bound on their number keeps the search
// short; a kept mapping beyond it is unmapped like one beyond the bytes.
constexpr int kMaxKept = 16;
Mapping kept[kMaxKept];
int nkept = 0;
size_t kept_bytes = 0;

size_t limit_bytes(int mb) { return size_t(mb) << 20; }

void forget(int i) {
    kept_bytes -= kept[i].bytes;
    std::memmove(&kept[i], &kept[i + 1], sizeof(Mapping) * size_t(nkept - i - 1));
    --nkept;
}

void unmap_oldest() {
    munmap(kept[0].base, kept[0].bytes);
    forget(0);
}

void trim(size_t limit) {
    while (nkept > 0 && kept_bytes > limit) unmap_oldest();
}

// m is already MADV_FREE.
void add_kept(Mapping m) {
    if (nkept == kMaxKept) unmap_oldest();
    kept[nkept++] = m;
    kept_bytes += m.bytes;
}

void keep(Mapping m) {
    if (m.bytes > limit_bytes(reusable_memory_mb)) {
        munmap(m.base, m.bytes);
        return;
    }
#ifdef MADV_FREE
    (void)madvise(m.base, m.bytes, MADV_FREE);
#endif
    add_kept(m);
    trim(limit_bytes(reusable_memory_mb));
}

// The smallest kept mapping of `bytes` or more, cut to `bytes` (the rest stays
// kept); base nullptr when none is that large.
Mapping take_kept(size_t bytes) {
    int best = -1;
    for (int i = 0; i < nkept; ++i)
        if (kept[i].bytes >= bytes && (best < 0 || kept[i].bytes < kept[best].bytes)) best = i;
    if (best < 0) return Mapping{nullptr, 0};
    const Mapping m = kept[best];
    forget(best);
    if (m.bytes > bytes) add_kept(Mapping{m.base + bytes, m.bytes - bytes});
    return Mapping{m.base, bytes};
}

Mapping map_new(size_t bytes) {
    void* p = mmap(nullptr, bytes + kHugePageBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return Mapping{nullptr, 0};
    auto* raw = static_cast<uint8_t*>(p);
    auto* base =
        reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(raw) + kHugePageBytes - 1) & ~(kHugePageBytes - 1));
    if (base > raw) munmap(raw, size_t(base - raw));
    munmap(base + bytes, size_t(raw + kHugePageBytes - base));  // what the alignment left over at the end
#ifdef MADV_HUGEPAGE
    (void)madvise(base, bytes, MADV_HUGEPAGE);
#endif
    return Mapping{base, bytes};
}

// Adds (or takes back) a mapping's bytes to its owner's allocated bytes, which
// is what hash aggregation's memory limit reads. Not on a server built with
// memory context checking (assertions): its check of a context sums the
// context's own blocks, and would take these bytes for corruption.
void count_in(MemoryContext owner, size_t bytes, bool add) {
#ifndef MEMORY_CONTEXT_CHECKING
    if (add)
        owner->mem_allocated += bytes;
    else
        owner->mem_allocated -= bytes;
#else
    (void)owner, (void)bytes, (void)add;
#endif
}

// A mapping its owner context holds.
struct Held {
    MemoryContextCallback on_reset;
    MemoryContext owner;
    Mapping m;
};

void give_back(void* arg) {
    auto* h = static_cast<Held*>(arg);
    count_in(h->owner, h->m.bytes, false);
    keep(h->m);
}

}  // namespace

void reusable_memory_assign(int mb, void*) { trim(limit_bytes(mb)); }

void* alloc_reusable(MemoryContext owner, size_t bytes, size_t offset, bool no_oom) {
    const int flags = no_oom ? MCXT_ALLOC_NO_OOM : 0;
    if (bytes < kMappedFrom) {
        // Large ones with their array on a huge page boundary, as advise_huge
        // advises whole huge pages only.
        const size_t align = bytes >= 2 * kHugePageBytes ? kHugePageBytes : kLine;
        auto* p = static_cast<uint8_t*>(MemoryContextAllocExtended(owner, bytes + align, MCXT_ALLOC_HUGE | flags));
        if (p == nullptr) return nullptr;
        auto* array = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(p) + offset + align - 1) & ~(align - 1));
        if (align == kHugePageBytes) advise_huge(array, bytes - offset);
        return array - offset;
    }
    const size_t lead = (kLine - offset % kLine) % kLine;
    auto* h = static_cast<Held*>(MemoryContextAllocExtended(owner, sizeof(Held), flags));
    if (h == nullptr) return nullptr;
    const size_t need = (bytes + lead + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
    Mapping m = take_kept(need);
    if (m.base == nullptr) m = map_new(need);
    if (m.base == nullptr && nkept > 0) {  // what is kept may be what the kernel lacks
        trim(0);
        m = map_new(need);
    }
    if (m.base == nullptr) {
        pfree(h);
        if (no_oom) return nullptr;
        ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory"),
                        errdetail("Failed to map %zu bytes for a filter.", need)));
    }
    h->owner = owner;
    h->m = m;
    h->on_reset.func = give_back;
    h->on_reset.arg = h;
    MemoryContextRegisterResetCallback(owner, &h->on_reset);
    count_in(owner, m.bytes, true);
    return m.base + lead;
}

}  // namespace sketch_pg
