#include "shared_objects/folder_watch.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

extern "C" {
#include "storage/fd.h"
}

namespace sketch_pg {
namespace shared {

namespace {

volatile sig_atomic_t changes = 0;
bool tried = false;
bool watched = false;

void on_folder_change(int) { changes = changes + 1; }

// Takes SIGIO unless something else of this process handles it already.
bool claim_signal() {
    struct sigaction old {};
    if (sigaction(SIGIO, nullptr, &old) != 0) return false;
    if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN) return false;
    struct sigaction sa {};
    sa.sa_handler = on_folder_change;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    return sigaction(SIGIO, &sa, nullptr) == 0;
}

}  // namespace

void watch_folder(const char* folder) {
    if (tried) return;
    tried = true;
    if (!AcquireExternalFD()) return;
    const int fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || !claim_signal()) {
        if (fd >= 0) close(fd);
        ReleaseExternalFD();
        return;
    }
    // The descriptor stays open for the life of the process: closing it ends
    // the watch.
    watched = fcntl(fd, F_NOTIFY, DN_MODIFY | DN_CREATE | DN_DELETE | DN_RENAME | DN_ATTRIB | DN_MULTISHOT) == 0;
    if (!watched) {
        close(fd);
        ReleaseExternalFD();
    }
}

bool folder_watched() { return watched; }

uint32 folder_changes() { return uint32(changes); }

}  // namespace shared
}  // namespace sketch_pg
