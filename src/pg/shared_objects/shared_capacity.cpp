// Room for the adds of shared Bloom and counting filters (shared_capacity.hpp).
#include "shared_objects/shared_capacity.hpp"

namespace sh = sketch::shared;

namespace sketch_pg {
namespace shared {

void reserve_room(Entry* e, const sh::Series& s, uint64 more) {
    sh::FileHeader* h = e->map.header();
    if (s.n == 0) {  // capacity unknown
        sh::count_items(h, more);
        return;
    }
    const sh::Room room = sh::reserve_items(h, s, more);
    if (room.outcome == sh::Room::fits) return;
    if (room.outcome == sh::Room::grow) {  // takes adds past its capacity (see the header)
        sh::count_items(h, more);
        return;
    }
    ereport(ERROR, (errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
                    errmsg("shared object \"%s\" is full: its capacity is %llu items", e->name,
                           (unsigned long long)s.n),
                    errdetail("It holds %llu items; this add needs room for %llu more.",
                              (unsigned long long)sh::load_held(h), (unsigned long long)more),
                    errhint("The object was created with expansion => 0 (a fixed size), or by version 0.1.0. "
                            "Create a new one with a larger capacity, or with expansion => 2, which takes adds "
                            "past its capacity.")));
}

}  // namespace shared
}  // namespace sketch_pg
