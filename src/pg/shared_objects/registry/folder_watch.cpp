#include "shared_objects/registry/folder_watch.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

extern "C" {
#include "storage/fd.h"
}

namespace sketch_pg {
namespace shared {

namespace {

volatile sig_atomic_t changes = 0;

void on_folder_change(int) { changes = changes + 1; }

enum class Signal : uint8 { unclaimed, ours, refused };
Signal signal_state = Signal::unclaimed;

int watch_fd = -1;       // the folder watched, held open: closing it ends the watch
dev_t watch_dev = 0;     // its identity, to tell it from a folder made anew
ino_t watch_ino = 0;
uint32 watch_number = 0; // current_folder_watch (0 while watch_fd is -1)
uint32 watches_made = 0;

// Whether SIGIO is (still) counted by on_folder_change. The first call takes
// the signal unless a handler of another library of the process has it; a
// later one sees whether someone took it since, after which nothing is
// trusted (the count no longer moves).
bool own_signal() {
    if (signal_state == Signal::refused) return false;
    struct sigaction old {};
    if (sigaction(SIGIO, nullptr, &old) != 0) return false;
    const bool handled = (old.sa_flags & SA_SIGINFO) || (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN);
    if (signal_state == Signal::ours) {
        if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == on_folder_change) return true;
        signal_state = Signal::refused;
        return false;
    }
    if (handled) {
        signal_state = Signal::refused;
        return false;
    }
    struct sigaction sa {};
    sa.sa_handler = on_folder_change;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    if (sigaction(SIGIO, &sa, nullptr) != 0) return false;
    signal_state = Signal::ours;
    return true;
}

// A process that blocks SIGIO (a background worker that never unblocked its
// signals) would count nothing until it unblocks it.
bool signal_blocked() {
    sigset_t mask;
    return pthread_sigmask(SIG_BLOCK, nullptr, &mask) != 0 || sigismember(&mask, SIGIO) == 1;
}

void unwatch() {
    if (watch_fd < 0) return;
    close(watch_fd);
    ReleaseExternalFD();
    watch_fd = -1;
    watch_number = 0;
}

bool is_watched(const struct stat& st) { return watch_fd >= 0 && st.st_dev == watch_dev && st.st_ino == watch_ino; }

}  // namespace

void watch_folder(const char* folder) {
    if (!own_signal() || signal_blocked()) {
        unwatch();
        return;
    }
    struct stat st;
    if (stat(folder, &st) != 0 || is_watched(st)) return;
    unwatch();
    if (!AcquireExternalFD()) return;
    const int fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    // the identity of the folder opened, which the path may no longer name
    if (fd < 0 || fstat(fd, &st) != 0 ||
        fcntl(fd, F_NOTIFY, DN_MODIFY | DN_CREATE | DN_DELETE | DN_RENAME | DN_ATTRIB | DN_MULTISHOT) != 0) {
        if (fd >= 0) close(fd);
        ReleaseExternalFD();
        return;
    }
    watch_fd = fd;
    watch_dev = st.st_dev;
    watch_ino = st.st_ino;
    watch_number = ++watches_made;
}

uint32 folder_watch_covering(const char* folder) {
    // The file was opened at a path in the folder watched before (its inode
    // is held by watch_fd, so no new folder takes its number); if the path
    // names it still, the file is in it: this code never renames folders.
    struct stat st;
    return stat(folder, &st) == 0 && is_watched(st) ? watch_number : 0;
}

uint32 current_folder_watch() { return watch_number; }

uint32 folder_changes() { return uint32(changes); }

}  // namespace shared
}  // namespace sketch_pg
