// A mirror of PostgreSQL's detoasting (src/backend/access/common/detoast.c:
// detoast_attr, detoast_external_attr, toast_fetch_datum, toast_decompress_datum;
// and toast_internals.c / toast_compression.c for pglz), which reads a TOASTed
// value straight into memory the caller gives (huge pages, reusable memory)
// instead of a fresh palloc: a 64 MiB filter then costs no intermediate copy.
// Checked against PostgreSQL 15 (15.x: the same detoast.c throughout the
// branch). It uses: VARATT_EXTERNAL_* and VARATT_IS_* macros, varatt_external,
// VARDATA_COMPRESSED_GET_EXTSIZE / _GET_COMPRESS_METHOD, TOAST_PGLZ_COMPRESSION_ID,
// pglz_decompress, table_relation_fetch_toast_slice, detoast_external_attr,
// detoast_attr, EOH_get_flat_size and EOH_flatten_into. When a new major
// version comes, compare those with its detoast.c and toast_internals.c before
// raising the bound below.
#pragma once

#include <cstddef>
#include <cstring>

#include "pg.hpp"

extern "C" {
#include "access/detoast.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/toast_compression.h"
#include "common/pg_lzcompress.h"
#include "utils/expandeddatum.h"
}

#if PG_VERSION_NUM < 150000
#error "detoast_into.hpp mirrors PostgreSQL 15's detoast.c: check it against this version's detoast.c, \
toast_internals.c and compression methods (VARATT_EXTERNAL_IS_COMPRESSED) first"
#elif PG_VERSION_NUM >= 180000
#error "detoast_into.hpp was checked against PostgreSQL 15-17 only: compare detoast_attr, toast_fetch_datum, \
table_relation_fetch_toast_slice, VARATT_EXTERNAL_* (varatt.h) and pglz_decompress with this version's first"
#endif
// 16 and 17 are let through: detoast.c's entry points,
// table_relation_fetch_toast_slice and pglz_decompress kept the signatures
// used here, and 16 moved the varatt macros into varatt.h, which postgres.h
// includes. Only 15 is built and tested here: build and test on them first.

namespace sketch_pg {

namespace detail {

// Whether the out-of-line value p is stored compressed.
inline bool stored_compressed(const varatt_external& p) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"  // inside the macro, which compares uint32 with int32
    return VARATT_EXTERNAL_IS_COMPRESSED(p);
#pragma GCC diagnostic pop
}

}  // namespace detail

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
        if (!detail::stored_compressed(p)) {
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

// PG_DETOAST_DATUM and PG_DETOAST_DATUM_COPY of a filter, into palloc_large
// memory, without an intermediate copy where PostgreSQL allows (huge_pages.cpp,
// detoast_into).
struct varlena* detoast_large(Datum d);
struct varlena* detoast_large_copy(Datum d);
// d detoasted, or copied when it is plain, into memory from alloc(len, arg):
// detoast_large_copy into memory of the caller's choosing.
struct varlena* detoast_copy_into(Datum d, void* (*alloc)(size_t len, void* arg), void* arg);

}  // namespace sketch_pg
