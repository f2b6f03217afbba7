#include "memory/huge_pages.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <utility>

#include "memory/reusable_memory.hpp"

extern "C" {
#include "access/table.h"
#include "access/tableam.h"
#include "access/toast_compression.h"
#include "common/pg_lzcompress.h"
#include "utils/expandeddatum.h"
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

// Whether the out-of-line value p is stored compressed.
bool stored_compressed(const varatt_external& p) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"  // inside the macro, which compares uint32 with int32
    return VARATT_EXTERNAL_IS_COMPRESSED(p);
#pragma GCC diagnostic pop
}

// The value raw (any varlena but a plain 4-byte-header one), detoasted into
// memory from alloc(len) that nothing has touched yet, without an
// intermediate copy in fresh memory of 4 KiB pages wherever PostgreSQL allows:
// on a virtual machine a fault of a fresh 4 KiB page can cost more than
// reading the page. An uncompressed stored
// value is read from its TOAST relation straight into it, a pglz-compressed
// one decompressed into it, an expanded one flattened into it; anything else
// (lz4, indirect, short header) detoasted by PostgreSQL and copied.
template <typename Alloc>
struct varlena* detoast_into(struct varlena* raw, Alloc alloc) {
    if (VARATT_IS_EXTERNAL_EXPANDED(raw)) {  // such as an aggregate's state (agg_state.hpp)
        ExpandedObjectHeader* eoh = DatumGetEOHP(PointerGetDatum(raw));
        const Size len = EOH_get_flat_size(eoh);
        auto* out = static_cast<struct varlena*>(alloc(len));
        EOH_flatten_into(eoh, out, len);
        return out;
    }
    struct varlena* fetched = raw;
    if (VARATT_IS_EXTERNAL_ONDISK(raw)) {
        varatt_external p;
        VARATT_EXTERNAL_GET_POINTER(p, raw);
        if (!stored_compressed(p)) {
            const int32 attrsize = VARATT_EXTERNAL_GET_EXTSIZE(p);
            auto* out = static_cast<struct varlena*>(alloc(VARHDRSZ + static_cast<size_t>(attrsize)));
            SET_VARSIZE(out, VARHDRSZ + attrsize);
            if (attrsize == 0) return out;  // no chunks to read (as toast_fetch_datum)
            Relation toastrel = table_open(p.va_toastrelid, AccessShareLock);
            table_relation_fetch_toast_slice(toastrel, p.va_valueid, attrsize, 0, attrsize, out);
            table_close(toastrel, AccessShareLock);
            return out;
        }
        fetched = detoast_external_attr(raw);
    }
    struct varlena* out;
    if (VARATT_IS_COMPRESSED(fetched) && VARDATA_COMPRESSED_GET_COMPRESS_METHOD(fetched) == TOAST_PGLZ_COMPRESSION_ID) {
        const size_t len = VARHDRSZ + VARDATA_COMPRESSED_GET_EXTSIZE(fetched);
        out = static_cast<struct varlena*>(alloc(len));
        const int32 got = pglz_decompress(reinterpret_cast<char*>(fetched) + VARHDRSZ_COMPRESSED,
                                          VARSIZE(fetched) - VARHDRSZ_COMPRESSED, reinterpret_cast<char*>(out) + VARHDRSZ,
                                          static_cast<int32>(len - VARHDRSZ), true);
        if (got < 0 || static_cast<size_t>(got) != len - VARHDRSZ)
            ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED), errmsg_internal("compressed pglz data is corrupt")));
        SET_VARSIZE(out, len);
    } else {
        struct varlena* flat = detoast_attr(fetched);
        out = static_cast<struct varlena*>(alloc(VARSIZE(flat)));
        std::memcpy(out, flat, VARSIZE(flat));
        if (flat != fetched) pfree(flat);
    }
    if (fetched != raw) pfree(fetched);
    return out;
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

namespace {

FetchedCopy* held_copies = nullptr;

void release_on_reset(void* arg) { release_filter(static_cast<FetchedFilter*>(arg)); }

FetchedCopy* find_held(struct varlena* raw) {
    const StoredId id = stored_id(raw);
    for (FetchedCopy* c = held_copies; c != nullptr; c = c->next)
        if (c->id == id) return c;
    return nullptr;
}

}  // namespace

FetchedCopy* find_or_fetch(struct varlena* raw, MemoryContext cxt, size_t header_bytes) {
    if (FetchedCopy* held = find_held(raw)) return held;
    MemoryContext own = AllocSetContextCreate(cxt, "sketchshare fetched filter", ALLOCSET_SMALL_SIZES);
    auto* c = static_cast<FetchedCopy*>(MemoryContextAllocZero(own, sizeof(FetchedCopy)));
    c->value = detoast_into(raw, [&](size_t len) { return alloc_reusable(own, len, header_bytes); });
    c->id = stored_id(raw);
    c->cxt = own;
    return c;
}

struct varlena* share_held(FetchedFilter* f, struct varlena* raw, MemoryContext cxt) {
    if (holds(f, raw)) return f->copy->value;
    release_filter(f);
    FetchedCopy* c = find_held(raw);
    if (c == nullptr) return nullptr;
    hold_copy(f, c, cxt);
    return c->value;
}

void hold_copy(FetchedFilter* f, FetchedCopy* c, MemoryContext cxt) {
    if (c->holders++ == 0) {
        MemoryContextSetParent(c->cxt, TopMemoryContext);
        c->next = held_copies;
        held_copies = c;
    }
    f->copy = c;
    if (f->on_reset.func == nullptr) {
        f->on_reset.func = release_on_reset;
        f->on_reset.arg = f;
        MemoryContextRegisterResetCallback(cxt, &f->on_reset);
    }
}

namespace {

// One holder fewer for c; the last one frees it.
void let_go(FetchedCopy* c) {
    if (--c->holders > 0) return;
    for (FetchedCopy** at = &held_copies; *at != nullptr; at = &(*at)->next)
        if (*at == c) {
            *at = c->next;
            break;
        }
    MemoryContextDelete(c->cxt);
}

}  // namespace

void release_filter(FetchedFilter* f) {
    keep_as_recent(f);
    for (FetchedCopy*& c : f->recent)
        if (c != nullptr) {
            let_go(c);
            c = nullptr;
        }
}

void keep_as_recent(FetchedFilter* f) {
    FetchedCopy* carried = f->copy;  // goes in front; each one after it moves down a place
    if (carried == nullptr) return;
    f->copy = nullptr;
    size_t bytes = 0;
    for (FetchedCopy*& slot : f->recent) {
        std::swap(slot, carried);
        if (slot == nullptr) return;
        bytes += VARSIZE(slot->value);
        if (bytes > kRecentBytes) {  // over the budget: this one and the older ones go
            let_go(slot);
            slot = nullptr;
        }
    }
    if (carried != nullptr) let_go(carried);  // beyond kRecentFilters
}

FetchedCopy* take_recent(FetchedFilter* f, struct varlena* raw) {
    const StoredId id = stored_id(raw);
    for (int i = 0; i < kRecentFilters; ++i) {
        FetchedCopy* c = f->recent[i];
        if (c == nullptr || !(c->id == id)) continue;
        for (int j = i; j + 1 < kRecentFilters; ++j) f->recent[j] = f->recent[j + 1];  // close the gap
        f->recent[kRecentFilters - 1] = nullptr;
        return c;
    }
    return nullptr;
}

}  // namespace sketch_pg
