// The watch a backend keeps on its database's folder of object files, so
// that the check of a mapped file between statements (check_file) makes no
// system call while no file there changed.
//
// The kernel (dnotify, fcntl F_NOTIFY) signals the backend (SIGIO) when a
// file of the folder is written, truncated, created, removed, renamed or has
// its attributes changed; the handler counts. The signal is sent before the
// call that made the change returns, so a change made between two
// statements is counted before the second starts. Writes through a mapping
// are not reported, which is why every add and lookup (through mappings)
// raises none; a header edited that way is still seen, since the check reads
// the mapped header every round. Where the watch cannot be set up (SIGIO
// handled by someone else, a file system without dnotify, no descriptor to
// spare) every round makes its system call, as before the watch.
#pragma once

#include "pg.hpp"

namespace sketch_pg {
namespace shared {

// Sets the watch up on `folder` once per process, before its first file
// is mapped. Never raises.
void watch_folder(const char* folder);

// Whether the watch is set up: a file changed since folder_changes returned
// a value would have moved it.
bool folder_watched();

// The count of changes signalled so far.
uint32 folder_changes();

}  // namespace shared
}  // namespace sketch_pg
