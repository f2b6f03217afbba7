// The part of an add to a scaling filter (shared/scaling.hpp) that every
// filter kind shares: the loop that follows a sub-filter another backend
// publishes while a batch is being added, and the commit's own description
// of the sub-filters it adds to (transactional_adds.hpp).
#pragma once

#include <algorithm>
#include <vector>

#include "shared/scaling.hpp"
#include "shared_objects/filters/shared_capacity.hpp"
#include "shared_objects/registry/shared_registry.hpp"

namespace sketch_pg {
namespace shared {

// Adds n hashed items to the sub-filters view() describes (the kind's
// table of them). add_batch(filters, hashes, n, done) adds through
// add_hashes_shared and returns the new ones; given a done pointer, it
// stops where the object grew past the view and says how many it added.
// The rest then goes, after e maps the new sub-filters, into a new view.
// The mapping is followed quietly, since a commit may not raise: if it
// cannot be, the adds go on, without stopping again, with what e maps.
// Returns the new ones.
template <typename View, typename AddBatch>
int64 add_following_growth(Entry* e, View view, const sketch::Hash128* hashes, int n, AddBatch add_batch) {
    int64 fresh = 0;
    for (bool following = true; n > 0;) {
        int done = n;
        fresh += add_batch(view(), hashes, n, following ? &done : nullptr);
        hashes += done;
        n -= done;
        if (n > 0) following = follow_growth_quietly(e);
    }
    return fresh;
}

// The sub-filters a commit adds to, on its stack: copied from the entry's
// table (subfilter_table) when it describes what e maps, else described
// here, since a commit may neither allocate that table anew nor raise.
// Describing sub-filters past the first can take milliseconds (a blocked
// layout's sizing evaluates its rate's formula), so it is left to that
// table's one description per mapping, not made again at every commit. A
// description is made again only when e maps another count of sub-filters.
template <typename Sub>
class CommitSubfilters {
  public:
    // describe(count): a std::vector<Sub> of e's first count sub-filters;
    // if it throws, the description made before stays.
    template <typename Describe>
    void follow(const Entry* e, Describe describe) noexcept {
        const uint32 mapped = e->map.subfilters;
        if (mapped == described_) return;
        if (e->subs != nullptr && e->subs_count == mapped) {
            keep(static_cast<const Sub*>(e->subs), mapped);
        } else {
            try {
                const std::vector<Sub> all = describe(mapped);
                keep(all.data(), all.size());
            } catch (...) {
                return;
            }
        }
        described_ = mapped;
    }
    const Sub* subs() const { return subs_; }
    uint32 count() const { return count_; }

  private:
    void keep(const Sub* subs, size_t n) {
        count_ = uint32(std::min<size_t>(n, sketch::shared::kMaxSubfilters));
        std::copy(subs, subs + count_, subs_);
    }

    Sub subs_[sketch::shared::kMaxSubfilters];
    uint32 count_ = 0;
    uint32 described_ = 0;
};

// Where a committed batch of n adds starts in the object's series: its room
// was reserved last, and the adds of other transactions may have followed,
// so about n before the items held.
inline uint64_t committed_batch_start(const Entry* e, int n) {
    const uint64_t held = held_items(e);
    return held > uint64_t(n) ? held - uint64_t(n) : 0;
}

}  // namespace shared
}  // namespace sketch_pg
