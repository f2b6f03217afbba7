// The items a shared Bloom or counting filter holds, counted in its file
// header (FileHeader::held), and the sub-filters it has published
// (FileHeader::subfilters), for the series of shared/scaling.hpp.
//
// An add reserves room before it touches the filter and settles after:
//
//   reserve_items  held += more, unless that passes the capacity of the
//                  published sub-filters (a compare-and-swap loop, so
//                  concurrent adders never reserve past it together); else
//                  it reserves nothing and says what the object needs
//   (the adds)
//   settle_items   held -= what was reserved and not used (items a Bloom
//                  filter already held)
//
// A process killed between the two leaves its reservation in `held`: the
// object then counts more items than it holds, and grows or refuses a little
// early, never late. Growth publishes a larger count with publish_subfilters
// once the file holds the new sub-filters, so a crash before it leaves the
// count as it was (the file may be longer than it needs; the next growth
// reuses the space).
#pragma once

#include <cstdint>

#include "shared/scaling.hpp"
#include "shared/shared_file.hpp"

namespace sketch::shared {

// The sub-filters published (at least one).
inline uint32_t load_subfilters(const FileHeader* h) {
    const uint32_t c = __atomic_load_n(&h->subfilters, __ATOMIC_ACQUIRE);
    return c == 0 ? 1 : c;
}
inline uint64_t load_held(const FileHeader* h) { return __atomic_load_n(&h->held, __ATOMIC_ACQUIRE); }

// Reserves room for `more` items in the published sub-filters: Room::fits
// when reserved, otherwise what room_for says (grow or full) and nothing
// reserved.
Room reserve_items(FileHeader* h, const Series& s, uint64_t more);
// Counts `more` items without a limit: an object that takes adds past its
// capacity (a scaling one, until it grows; one of unknown capacity).
inline void count_items(FileHeader* h, uint64_t more) { __atomic_fetch_add(&h->held, more, __ATOMIC_ACQ_REL); }
// Gives back the part of a reservation the adds did not use.
void settle_items(FileHeader* h, uint64_t reserved, uint64_t used);
// Items that left the filter (a counting filter's removes); held stays >= 0.
void release_items(FileHeader* h, uint64_t n);
// Publishes `count` sub-filters; the caller holds the exclusive lock and the
// file already holds them. A count never decreases.
void publish_subfilters(FileHeader* h, uint32_t count);
// Forgets every item (a clear, under the exclusive lock).
inline void clear_items(FileHeader* h) { __atomic_store_n(&h->held, 0, __ATOMIC_RELEASE); }

}  // namespace sketch::shared
