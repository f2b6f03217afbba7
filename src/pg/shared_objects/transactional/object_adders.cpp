// The adders of an object and the closers that wait for them (see
// object_adders.hpp): an adder enters by its slot in the object's header,
// or by the object's heavyweight lock while a closer is counted.
#include "shared_objects/transactional/object_adders.hpp"

#include "pg_compat.hpp"
#include "shared_objects/registry/registry_internal.hpp"
#include "shared_objects/transactional/lock_classes.hpp"
#include "shared_objects/transactional/pending_list.hpp"

#include <sys/stat.h>

extern "C" {
#include "access/xact.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "storage/proc.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
}

namespace sketch_pg {
namespace shared {

namespace {

namespace sh = sketch::shared;

// An adder that enters while a closer is counted holds it row-exclusive, a
// closer share.
void object_tag(LOCKTAG* tag, uint64 file_id) { set_lock_tag(tag, file_id, LockClass::object); }


// A closer's hold on an object: the object's header page, counted closing
// until the (sub)transaction that took it ends. In TopMemoryContext.
struct Closing {
    sh::FileHeader* page;
    uint64 file_id;
    int level;
};
Closing* closings = nullptr;
int nclosings = 0;
int closings_capacity = 0;
bool closer_callbacks_registered = false;

void end_closing(int i) {
    sh::count_out(&closings[i].page->closing);
    sh::unmap_header_page(closings[i].page);
    closings[i] = closings[--nclosings];
}

// A top-level transaction counts its closings out after PostgreSQL let go
// of its locks: a drop's file goes at commit (shared_lifecycle.cpp), and an
// adder that found no closer counted must find it gone. (Only at the
// transaction's end: no longer in progress then, whatever else releases a
// resource owner as top level.)
void release_closings(ResourceReleasePhase phase, bool, bool is_top_level, void*) {
    if (phase != RESOURCE_RELEASE_AFTER_LOCKS || !is_top_level || IsTransactionState()) return;
    while (nclosings > 0) end_closing(nclosings - 1);
}

// A rolled back subtransaction froze nothing it did not keep (a freeze is
// immediate) and dropped nothing: its closings end with it.
void closings_at_subxact_end(SubXactEvent event, SubTransactionId, SubTransactionId, void*) {
    if (nclosings == 0) return;
    const int level = GetCurrentTransactionNestLevel();
    for (int i = nclosings - 1; i >= 0; --i) {
        if (closings[i].level < level) continue;
        if (event == SUBXACT_EVENT_ABORT_SUB) end_closing(i);
        if (event == SUBXACT_EVENT_COMMIT_SUB) closings[i].level = level - 1;
    }
}

bool holds_closing(uint64 file_id) {
    for (int i = 0; i < nclosings; ++i)
        if (closings[i].file_id == file_id) return true;
    return false;
}

// Room for one more closing, taken before anything is counted.
void reserve_closing() {
    if (!closer_callbacks_registered) {
        RegisterResourceReleaseCallback(release_closings, nullptr);
        RegisterSubXactCallback(closings_at_subxact_end, nullptr);
        closer_callbacks_registered = true;
    }
    if (nclosings < closings_capacity) return;
    const int n = closings_capacity == 0 ? 4 : closings_capacity * 2;
    closings = static_cast<Closing*>(closings == nullptr
                                         ? MemoryContextAlloc(TopMemoryContext, n * sizeof(Closing))
                                         : repalloc(closings, n * sizeof(Closing)));
    closings_capacity = n;
}

// The header page of incarnation file_id of object `name` (sh::map_header_page),
// with lock words of this server run. The run's first mapping of the file for
// writing clears those of the run before (sh::attach_file's adopt_lock), the
// closers' count and the adder slots among them. A drop maps nothing else, so
// after a restart it may be the first to touch the file: counted in before
// that clearing, it would be counted out by it, and the adders that then
// entered by their slots would go unseen, their adds committed into the
// dropped object; and the slots it read would be the run before's, whose ids
// may name live transactions of this one. So a file that no process of this
// run has mapped for writing yet is adopted here first. nullptr when the page
// cannot be had so (a damaged file, which no adder maps either, or one
// removed meanwhile). An adoption that fails for want of a resource (memory
// or address space for the whole file, a descriptor) raises, as
// map_header_page does: the next adder's first mapping would adopt the file
// after this closer and enter by its slot unseen.
sh::FileHeader* closing_page(const char* name, uint64 file_id) {
    char path[MAXPGPATH];
    object_path(name, path, sizeof path);
    sh::FileHeader* page = guarded([&] { return sh::map_header_page(path, file_id, name); });
    if (page == nullptr || __atomic_load_n(&page->lock_run, __ATOMIC_ACQUIRE) == server_run()) return page;
    PendingError failure;
    bool failed = false;
    try {
        sh::Mapping m = sh::attach_file(path, name, 0, true, server_run());
        sh::unmap(m);
    } catch (const sketch::Error& err) {
        // damaged, or gone: the page stays unadopted
        struct stat st;
        if (err.code() != sketch::Errc::corrupted && !(lstat(path, &st) != 0 && errno == ENOENT)) {
            capture_current(failure);
            failed = true;
        }
    } catch (...) {
        capture_current(failure);
        failed = true;
    }
    if (failed) {
        sh::unmap_header_page(page);
        raise(failure);
    }
    // (the path may name another file by now, which is what was adopted)
    if (__atomic_load_n(&page->lock_run, __ATOMIC_ACQUIRE) == server_run()) return page;
    sh::unmap_header_page(page);
    return nullptr;
}

}  // namespace

void enter_object(PendingObject& po) {
    if (po.adder_level != 0) return;
    const uint32 me = compat::process_number();
    if (!(me < sh::kAdderSlots && sh::enter_adder(po.entry->map.header(), me, compat::local_xid()))) {
        LOCKTAG tag;
        object_tag(&tag, po.file_id);
        (void)LockAcquire(&tag, RowExclusiveLock, false, false);
    }
    po.adder_level = GetCurrentTransactionNestLevel();
    if (sh::load_flags(po.entry->map.header()) & sh::kDropped) report_dropped_meanwhile(po.entry->name);
    check_mutable(po.entry);
}

void leave_object(const PendingObject& po) {
    const uint32 me = compat::process_number();
    if (me < sh::kAdderSlots && po.entry->loaded && po.entry->file_id == po.file_id)
        sh::leave_adder(po.entry->map.header(), me);
}

void wait_for_pending_adds(const char* name, uint64 file_id) {
    if (holds_closing(file_id)) return;  // adders are held off since
    reserve_closing();
    // Without the page (a damaged file) no adder can enter by a slot.
    if (sh::FileHeader* page = closing_page(name, file_id)) {
        closings[nclosings++] = Closing{page, file_id, GetCurrentTransactionNestLevel()};
        sh::count_in(&page->closing);
        // Before the lock: an adder that read the slot's id here may be
        // entering by the lock now, and must get it.
        const uint32 me = compat::process_number();
        for (uint32 i = 0; i < sh::kAdderSlots; ++i) {
            const LocalTransactionId id = sh::load_adder(page, i);
            if (id != InvalidLocalTransactionId && i != me) (void)VirtualXactLock(compat::vxid_of(i, id), true);
        }
    }
    LOCKTAG tag;
    object_tag(&tag, file_id);
    (void)LockAcquire(&tag, ShareLock, false, false);
}

}  // namespace shared
}  // namespace sketch_pg
