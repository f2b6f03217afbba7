// The images of shared objects in the catalog (sketchshare_shared.objects.image):
// taken at create, attach, shared_sync and shared_freeze; written back as the
// object's file when a backend opens an object whose file is missing or
// holds another incarnation (a database restored from a dump, on this server
// or another, or an object created on a primary after a standby's base
// backup). The catalog tables are extension configuration tables, so pg_dump
// carries the images with the rows (docs/operations.md, "Backups").
#include "shared_objects/registry/shared_registry.hpp"
#include "shared_objects/registry/registry_internal.hpp"

#include <cerrno>
#include <sys/stat.h>

#include "guard.hpp"
#include "shared/file_image.hpp"

extern "C" {
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
}

namespace sh = sketch::shared;

namespace sketch_pg {
namespace shared {

namespace {

// pg_dump writes a bytea in hex, two characters a byte, and one field of its
// COPY output holds at most 1 GB: an image larger than this would make every
// dump of the database fail. Objects whose file is larger keep no image.
constexpr uint64 kMaxImageBytes = uint64(511) << 20;

void store_image(const char* name, uint64 file_id, bytea* image) {
    AsCatalogOwner s;
    begin_catalog(&s);
    Oid types[3] = {TEXTOID, INT8OID, BYTEAOID};
    Datum values[3] = {CStringGetTextDatum(name), Int64GetDatum(int64(file_id)), PointerGetDatum(image)};
    const char nulls[3] = {' ', ' ', image == nullptr ? 'n' : ' '};
    const int rc = SPI_execute_with_args(
        "UPDATE sketchshare_shared.objects SET image = $3, image_taken = pg_catalog.now() "
        "WHERE name OPERATOR(pg_catalog.=) $1 AND file_id OPERATOR(pg_catalog.=) $2",
        3, types, values, nulls, false, 0);
    if (rc < 0) elog(ERROR, "SPI_execute_with_args failed: %s", SPI_result_code_string(rc));
    const bool stored = SPI_processed == 1;
    end_catalog(&s);
    // No row of that incarnation: a drop of another session deleted it and
    // committed while the update waited for it (the object's sync or freeze
    // then went to a file that is gone), or the name was created again. The
    // caller would otherwise return as if the image were taken.
    if (!stored) report_dropped_meanwhile(name);
}

}  // namespace

void take_image(Entry* e) {
    // A read-only transaction writes no catalog row (a standby's images come
    // from its primary); a 0.1.0 catalog has no place for one until it is
    // updated, which takes the images.
    if (XactReadOnly || !catalog_has_images()) return;
    follow_growth(e);
    const uint64 bytes = sh::image_bytes(e->map);
    if (bytes > kMaxImageBytes) {
        ereport(WARNING, (errmsg("shared object \"%s\" is too large for an image in the catalog: a dump will not "
                                 "carry its items",
                                 e->name),
                          errdetail("Its file has %llu bytes; an image holds at most %llu.",
                                    (unsigned long long)bytes, (unsigned long long)kMaxImageBytes)));
        store_image(e->name, e->file_id, nullptr);
        return;
    }
    auto* image = static_cast<bytea*>(MemoryContextAllocHuge(CurrentMemoryContext, VARHDRSZ + bytes));
    SET_VARSIZE(image, VARHDRSZ + bytes);
    // every sub-filter: an object that grew meanwhile is imaged again
    bool grew = false;
    read_exclusive(e, [&] {
        grew = growth_unseen(e);
        if (!grew) sh::write_image(e->map, reinterpret_cast<uint8_t*>(VARDATA(image)));
    });
    if (grew) {
        pfree(image);
        take_image(e);
        return;
    }
    store_image(e->name, e->file_id, image);
    pfree(image);
}

void take_image_of_new(const char* name) { take_image(open_object(name, 0, 0)); }

namespace {

// The image of incarnation file_id of the object, copied into the caller's
// memory context; nullptr if the catalog holds none.
bytea* read_image(const char* name, uint64 file_id) {
    MemoryContext caller = CurrentMemoryContext;
    AsCatalogOwner s;
    begin_catalog(&s);
    Oid types[2] = {TEXTOID, INT8OID};
    Datum values[2] = {CStringGetTextDatum(name), Int64GetDatum(int64(file_id))};
    run("SELECT image FROM sketchshare_shared.objects WHERE name OPERATOR(pg_catalog.=) $1 "
        "AND file_id OPERATOR(pg_catalog.=) $2",
        2, types, values, true);
    bytea* image = nullptr;
    bool isnull = true;
    Datum d = SPI_processed == 1 ? SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull) : 0;
    if (!isnull) {
        MemoryContext spi = MemoryContextSwitchTo(caller);
        image = DatumGetByteaPCopy(d);
        MemoryContextSwitchTo(spi);
    }
    end_catalog(&s);
    return image;
}

// Waits while another backend writes the file at path (holding its lock).
void await_creator(const char* path) {
    while (sh::being_created(path)) {
        pg_usleep(10000L);
        CHECK_FOR_INTERRUPTS();
    }
}

// The stop of a write from the image: only where the interrupt can then be
// raised (a use with interrupts held off writes the file to its end).
bool restore_may_stop() { return INTERRUPTS_CAN_BE_PROCESSED() && interrupt_pending(); }

bool file_exists(const char* path) {
    struct stat st;
    return lstat(path, &st) == 0;
}

// Writes the catalog's image of incarnation file_id of the object as its
// file, in place of a missing file or of the file of another incarnation
// (foreign_id, else 0); the image is checked first as a file is (XX001).
// False if the row holds no image.
bool restore_from_image(const char* name, uint32 kind, uint64 file_id, uint64 foreign_id) {
    bytea* image = read_image(name, file_id);
    if (image == nullptr) return false;
    const auto* bytes = reinterpret_cast<const uint8_t*>(VARDATA(image));
    const uint64 len = VARSIZE(image) - VARHDRSZ;
    guarded([&] { sh::check_image(bytes, len, name, kind, file_id); });
    ensure_db_directory();
    char path[MAXPGPATH];
    object_path(name, path, sizeof path);
    PendingError failure;
    // An image of hundreds of MB: a cancel, statement_timeout or terminate
    // stops the write between 2 MiB pieces (the file removed; the next use
    // writes it again), as it stops a create, and is raised as usual.
    bool stopped = false;
    const bool written = captured(
        [&] {
            if (foreign_id != 0) sh::remove_file(path, foreign_id);
            try {
                sh::restore_image(path, name, bytes, len, server_run(), enableFsync, &restore_may_stop);
            } catch (const sketch::Error&) {
                stopped = restore_may_stop();
                throw;
            }
        },
        failure);
    if (stopped) raise_interrupted("restoration from its image", name);
    // Another backend that opened the object at the same time may be
    // writing the file, or have written it: once it is done, the caller
    // attaches whatever is there.
    if (!written && !file_exists(path)) raise(failure);
    if (!written) await_creator(path);
    if (written)
        ereport(LOG, (errmsg("shared object \"%s\" was written again from its image in the catalog", name),
                      errdetail("Its file was %s.", foreign_id != 0 ? "another incarnation's" : "missing")));
    pfree(image);
    return true;
}

bool file_missing(const char* path) {
    struct stat st;
    return lstat(path, &st) != 0 && errno == ENOENT;
}

}  // namespace

// A file that is missing, or holds another incarnation of the name, is
// first written again from the row's image, if it has one. Errors are
// raised after the C++ frames are gone.
sh::Mapping map_file(const char* name, const CatalogRow& row) {
    char path[MAXPGPATH];
    object_path(name, path, sizeof path);
    // A few rounds: another backend opening it at the same time may be
    // writing it from the image, or have just written it (its header read
    // here before its magic): this one waits and attaches what it wrote. That
    // write may have been stopped by a cancel, its file removed: this one
    // then writes it. A file there that still fails to attach is damage,
    // never written over.
    for (int round = 0;; ++round) {
        sh::Mapping m;
        PendingError failure;
        const bool attached =
            captured([&] { m = sh::attach_file(path, name, row.kind, !row.readonly, server_run()); }, failure);
        if (attached && m.fixed.file_id == row.file_id) return m;
        const uint64 foreign_id = attached ? m.fixed.file_id : 0;
        if (attached) sh::unmap(m);
        refuse_if_raced(name, row.file_id);
        if (round < 4 && row.has_image) {
            if (!attached && !file_missing(path)) {
                await_creator(path);
                continue;
            }
            if ((attached || file_missing(path)) && restore_from_image(name, row.kind, row.file_id, foreign_id))
                continue;
        }
        if (!attached) raise(failure);
        ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
                        errmsg("file \"%s\" does not belong to shared object \"%s\" (another incarnation)", path,
                               name),
                        errhint("Drop the object with shared_drop('%s') and create it again.", name)));
    }
}

}  // namespace shared
}  // namespace sketch_pg
