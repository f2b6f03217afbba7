// The server run (registry_internal.hpp): which start of the postmaster,
// or restart after a backend crash, the processes of this one belong to.
#include "shared_objects/registry/registry_internal.hpp"

#include <cstdio>
#include <cstring>

extern "C" {
#include "storage/fd.h"
#include "storage/pg_shmem.h"
#include "utils/timestamp.h"
}

namespace sketch_pg {
namespace shared {

namespace {

// The id the kernel gave the server's System V shared memory segment, read
// from this process's mappings (/proc/self/maps names it /SYSV<key> and
// shows the id as its inode), where every backend has it from the
// postmaster; 0 if it is not found. The postmaster creates the segment anew,
// under the same key, at its start and at the restart after a backend crash,
// and the kernel gives it a new id. Read from the mapping, the id is the
// same for every process of a run even if the segment has been removed
// meanwhile (ipcrm, or systemd's RemoveIPC), when asking the kernel for the
// key's segment (shmget) would fail in backends started since.
uint64 shmem_segment_id() {
    char want[32];
    snprintf(want, sizeof want, "/SYSV%08lx", (unsigned long)UsedShmemSegID);
    FILE* maps = AllocateFile("/proc/self/maps", "r");
    if (maps == nullptr) return 0;
    uint64 id = 0;
    char line[512];
    while (id == 0 && fgets(line, sizeof line, maps) != nullptr) {
        unsigned long inode = 0;
        int path = 0;  // address, perms, offset, device, inode, then the path
        if (sscanf(line, "%*s %*s %*s %*s %lu %n", &inode, &path) == 1 && path > 0 &&
            strncmp(line + path, want, strlen(want)) == 0)
            id = inode;
    }
    FreeFile(maps);
    return id;
}

}  // namespace

// The server run a file's lock words must belong to (sh::attach_file clears
// words of another), and that writes the files of new objects: new at every
// start of the postmaster (its start time) and at every restart after a
// backend crash (a new shared memory segment). No process of an earlier run
// is alive then, so the ids its words hold are stale, even one the kernel
// has since given to a new process. Computed once per process.
uint64 server_run() {
    static const uint64 run = uint64(PgStartTime) * 0x9E3779B97F4A7C15ULL ^ shmem_segment_id();
    return run;
}

}  // namespace shared
}  // namespace sketch_pg
