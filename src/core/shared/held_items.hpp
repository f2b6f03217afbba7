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
// replaces that tail: shared_file.hpp, extend_file).
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
// when reserved (*before: the items held before it, where the reserved
// ones start in the series), otherwise what room_for says (grow or full)
// and nothing reserved.
Room reserve_items(FileHeader* h, const Series& s, uint64_t more, uint64_t* before = nullptr);
// The sub-filter (< count) that item number `position` of the series goes
// into: the first whose capacity, with the ones before it, passes it; the
// newest past them all. Adds place their new items by the position their
// reservation gives them, so that a batch reserved across several
// sub-filters fills each to its capacity rather than overfilling the newest.
uint32_t subfilter_at(const Series& s, uint32_t count, uint64_t position);
// The sub-filter that holds the most of `held` items so placed (the newest,
// or the one before it while the newest is less full): a lookup of an item
// the object holds looks there first.
uint32_t fullest_subfilter(const Series& s, uint32_t count, uint64_t held);
// Counts `more` items without a limit: an object of unknown capacity (made
// from a bloom value), which neither refuses nor grows.
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
