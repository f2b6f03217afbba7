#include "types/fetched_filters.hpp"

#include <cstring>
#include <utility>

#include "memory/reusable_memory.hpp"

extern "C" {
#include "utils/memutils.h"
}

namespace sketch_pg {

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
    struct Target {
        MemoryContext own;
        size_t header_bytes;
    } target{own, header_bytes};
    c->value = detoast_into(
        raw,
        [](size_t len, void* arg) {
            auto* t = static_cast<Target*>(arg);
            return alloc_reusable(t->own, len, t->header_bytes);
        },
        &target);
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

bool holds_compressed(const InlineCompressed* c, const struct varlena* raw) {
    return c->raw != nullptr && VARSIZE(c->raw) == VARSIZE(raw) && std::memcmp(c->raw, raw, VARSIZE(raw)) == 0;
}

void forget_compressed(InlineCompressed* c) {
    if (c->raw == nullptr) return;
    pfree(c->raw);
    pfree(c->value);
    c->raw = c->value = nullptr;
}

void keep_compressed(InlineCompressed* c, const struct varlena* raw, struct varlena* value, MemoryContext cxt) {
    auto* copy = static_cast<struct varlena*>(MemoryContextAlloc(cxt, VARSIZE(raw)));
    std::memcpy(copy, raw, VARSIZE(raw));
    c->raw = copy;
    c->value = value;
}

}  // namespace sketch_pg
