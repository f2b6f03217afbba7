// Room for the adds of shared Bloom and counting filters, and the growth of
// scaling ones (shared_capacity.hpp): growing a file, and following another
// backend's growth (shared_registry.hpp, follow_growth).
#include "shared_objects/filters/shared_capacity.hpp"

#include <cerrno>

#include "module.hpp"

extern "C" {
#include "utils/guc.h"
}

namespace sh = sketch::shared;

namespace sketch_pg {
namespace shared {

namespace {

[[noreturn]] void refuse_full(Entry* e, const sh::Series& s, uint64 more) {
    ereport(ERROR, (errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
                    errmsg("shared object \"%s\" is full: its capacity is %llu items", e->name,
                           (unsigned long long)s.n),
                    errdetail("It holds %llu items; this add needs room for %llu more.",
                              (unsigned long long)sh::load_held(e->map.header()), (unsigned long long)more),
                    errhint("The object was created with expansion => 0 (a fixed size), or by version 0.1.0. "
                            "Create a new one with a larger capacity, or with expansion => 2, which grows.")));
    pg_unreachable();
}

[[noreturn]] void refuse_growth(Entry* e, uint32 count, const char* why) {
    ereport(ERROR, (errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
                    errmsg("shared object \"%s\" cannot grow to %u sub-filters: %s", e->name, count, why),
                    errdetail("It holds %llu items in %u sub-filters.",
                              (unsigned long long)sh::load_held(e->map.header()), e->map.subfilters),
                    errhint("Create a larger object (its capacity, or its expansion), or raise "
                            "sketchshare.max_shared_object_size.")));
    pg_unreachable();
}

// The file size of e with `to` sub-filters, within every limit; raises 53400
// naming the object otherwise.
uint64 file_bytes_for(Entry* e, uint32 to) {
    if (to > sh::kMaxSubfilters) refuse_growth(e, to, "that is the most an object has");
    uint64 bytes = 0;
    bool over = false;
    try {
        bytes = sh::grown_file_bytes(e->map, to);
    } catch (...) {
        over = true;  // past the largest filter or payload
    }
    if (over) refuse_growth(e, to, "its file would pass the largest size a shared object has");
    if (max_shared_object_size >= 0 && bytes > uint64(max_shared_object_size) * 1024)
        refuse_growth(e, to,
                      psprintf("its file would have %llu bytes, over sketchshare.max_shared_object_size (%s)",
                               (unsigned long long)bytes,
                               GetConfigOptionByName("sketchshare.max_shared_object_size", nullptr, false)));
    return bytes;
}

// The sub-filters the series needs to hold `items` (kMaxSubfilters + 1 past
// them all).
uint32 subfilters_for(const sh::Series& s, uint64 items) {
    uint32 c = 1;
    while (c <= sh::kMaxSubfilters && sh::capacity_of(s, c) < items) ++c;
    return c;
}

// Grows e by one sub-filter, unless another backend grew it first: under
// the exclusive lock, extend the file (durably), then publish the count
// (shared/shared_file.hpp, extend_file). A failure leaves the object as it
// was and raises after the lock is let go.
void grow_by_one(Entry* e) {
    follow_growth(e);
    const uint32 from = e->map.subfilters;
    const uint64 from_bytes = e->map.size;
    const uint64 to_bytes = file_bytes_for(e, from + 1);
    char path[MAXPGPATH];
    object_path(e->name, path, sizeof path);
    int err = 0;
    lock_exclusive(e);
    const bool frozen = is_frozen(e);
    if (!frozen && sh::load_subfilters(e->map.header()) == from) {
        err = sh::extend_file(e->map, path, from_bytes, to_bytes);
        if (err == 0) {
            if (growth_pause_for_tests_ms > 0) pg_usleep(long(growth_pause_for_tests_ms) * 1000L);
            sh::publish_subfilters(e->map.header(), from + 1);
        }
    }
    unlock_exclusive(e);
    if (frozen) refuse_change(e);
    if (err != 0)
        ereport(ERROR, (errcode(err == ENOSPC ? ERRCODE_DISK_FULL : ERRCODE_IO_ERROR),
                        errmsg("could not grow shared object \"%s\" to %llu bytes: %s", e->name,
                               (unsigned long long)to_bytes, strerror(err))));
    follow_growth(e);
}

}  // namespace

void follow_growth_slow(Entry* e) {
    char path[MAXPGPATH];
    object_path(e->name, path, sizeof path);
    guarded([&] { sh::follow_growth(e->map, path, e->name); });
}

bool follow_growth_quietly(Entry* e) noexcept {
    if (!growth_unseen(e)) return true;  // (a commit's apply: no path formatted)
    try {
        char path[MAXPGPATH];
        object_path(e->name, path, sizeof path);
        return sh::follow_growth(e->map, path, e->name) || !growth_unseen(e);
    } catch (...) {
        return false;
    }
}

uint64 reserve_room(Entry* e, const sh::Series& s, uint64 more) {
    if (s.n == 0) {  // capacity unknown
        sh::count_items(e->map.header(), more);
        return 0;
    }
    for (bool checked = false;;) {
        sh::FileHeader* h = e->map.header();  // a growth may move the mapping
        uint64_t before = 0;
        const sh::Room room = sh::reserve_items(h, s, more, &before);
        if (room.outcome == sh::Room::fits) return before;
        if (room.outcome == sh::Room::full) {
            if (s.scaling()) refuse_growth(e, sh::kMaxSubfilters + 1, "that is the most an object has");
            refuse_full(e, s, more);
        }
        if (e->map.grown == nullptr) {  // (a series that grows always maps as one)
            sh::count_items(h, more);
            return 0;
        }
        if (!checked) {
            // the add is refused before any growth when the size it needs
            // is over a limit: a refused add leaves the object as it was
            file_bytes_for(e, subfilters_for(s, sh::load_held(h) + more));
            checked = true;
        }
        grow_by_one(e);
    }
}

}  // namespace shared
}  // namespace sketch_pg
