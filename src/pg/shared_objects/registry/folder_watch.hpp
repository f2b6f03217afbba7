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
// handled by someone else or blocked, a file system without dnotify, no
// descriptor to spare) every round makes its system call, as before the
// watch.
//
// The watch is on the folder's inode, not its path: DROP EXTENSION removes
// the folder with the last file and a later create makes a new one, whose
// changes the old watch never hears of. So each load asks for the folder now
// at the path (watch_folder, which moves the watch there) and trusts the
// count for the file it mapped only when that folder is still the one
// watched after the mapping (folder_watch_covering).
#pragma once

#include "pg.hpp"

namespace sketch_pg {
namespace shared {

// Before a file of `folder` is mapped: watches the folder now at that path,
// moving the watch there from a folder removed or replaced. Never raises.
void watch_folder(const char* folder);

// After a file of `folder` was mapped (watch_folder and then folder_changes
// before it): the watch that covers the file, 0 if none (the folder at the
// path is not the one watched, or nothing is). A file's count can be trusted
// while this stays the current one (current_folder_watch).
uint32 folder_watch_covering(const char* folder);

// The watch in place now, 0 if none; a new number each time it moves.
uint32 current_folder_watch();

// The count of changes signalled so far.
uint32 folder_changes();

}  // namespace shared
}  // namespace sketch_pg
