#include "shared/held_items.hpp"

namespace sketch::shared {

Room reserve_items(FileHeader* h, const Series& s, uint64_t more, uint64_t* before) {
    uint64_t held = load_held(h);
    for (;;) {
        const Room room = room_for(s, load_subfilters(h), held, more);
        if (room.outcome != Room::fits) return room;
        if (__atomic_compare_exchange_n(&h->held, &held, held + more, true, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            if (before != nullptr) *before = held;
            return room;
        }
    }
}

uint32_t subfilter_at(const Series& s, uint32_t count, uint64_t position) {
    uint64_t end = 0;
    for (uint32_t i = 0; i + 1 < count; ++i) {
        const uint64_t capacity = subfilter_capacity(s, i);
        end = end > UINT64_MAX - capacity ? UINT64_MAX : end + capacity;
        if (position < end) return i;
    }
    return count == 0 ? 0 : count - 1;
}

uint32_t fullest_subfilter(const Series& s, uint32_t count, uint64_t held) {
    if (count < 2) return 0;
    const uint64_t before = capacity_of(s, count - 1);
    const uint64_t in_newest = held > before ? held - before : 0;
    return in_newest >= subfilter_capacity(s, count - 2) ? count - 1 : count - 2;
}

void settle_items(FileHeader* h, uint64_t reserved, uint64_t used) {
    if (used < reserved) release_items(h, reserved - used);
}

void release_items(FileHeader* h, uint64_t n) {
    uint64_t held = load_held(h);
    while (!__atomic_compare_exchange_n(&h->held, &held, held > n ? held - n : 0, true, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE)) {
    }
}

void publish_subfilters(FileHeader* h, uint32_t count) {
    uint32_t seen = __atomic_load_n(&h->subfilters, __ATOMIC_ACQUIRE);
    while (seen < count &&
           !__atomic_compare_exchange_n(&h->subfilters, &seen, count, true, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    }
}

}  // namespace sketch::shared
