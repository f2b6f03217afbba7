// The capacity of shared Bloom and counting filters: the items an object
// holds, counted in its file header (shared/held_items.hpp), and the refusal
// of an add that would take a fixed-size object (expansion 0) past its
// capacity.
//
// Items held: for a Bloom filter, the adds that were new (an item it already
// held, or a false positive, takes no room); for a counting filter, every add
// minus every remove (each add raises counters). An add reserves room before
// it touches the filter and gives back what it did not use after, so
// concurrent adders never pass the capacity together; a transactional add
// reserves when it is made (the commit cannot refuse) and gives the room back
// if its transaction aborts.
//
// Objects that scale (expansion 1 or more) grow by a sub-filter instead of
// refusing (shared_capacity.cpp, docs/internals.md "Capacity and growth"), up to
// sketchshare.max_shared_object_size; those of unknown capacity (made from a
// bloom value, which does not record it) count their items without refusing
// any add or growing.
#pragma once

#include "shared/held_items.hpp"
#include "shared_objects/registry/shared_registry.hpp"

namespace sketch_pg {
namespace shared {

// The expansion argument of a create at argno; absent (a call through the
// SQL definitions of a version without it, before the update): the default.
inline int32 expansion_arg(FunctionCallInfo fcinfo, int argno) {
    return PG_NARGS() > argno ? PG_GETARG_INT32(argno) : int32(sketch::shared::kDefaultExpansion);
}
// Whether it is NULL (absent is not).
inline bool expansion_arg_is_null(FunctionCallInfo fcinfo, int argno) {
    return PG_NARGS() > argno && PG_ARGISNULL(argno);
}

// Reserves room for `more` items in e, whose series is s, growing a scaling
// object as far as it needs; raises 53400 naming the object when a
// fixed-size object has no room, or a scaling one cannot grow (its size
// limit); 53100 when the disk is full.
// Returns where the reserved items start in the series (the items held
// before them; sketch::shared::subfilter_at places them).
uint64 reserve_room(Entry* e, const sketch::shared::Series& s, uint64 more);

// Gives back the part of a reservation the adds did not use.
inline void settle_room(Entry* e, uint64 reserved, uint64 used) {
    sketch::shared::settle_items(e->map.header(), reserved, used);
}

// The items e holds (reservations of adds in flight included).
inline uint64 held_items(const Entry* e) { return sketch::shared::load_held(e->map.header()); }

}  // namespace shared
}  // namespace sketch_pg
