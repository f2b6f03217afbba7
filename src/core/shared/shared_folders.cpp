// The folders of object files: their listings (object files, numbered
// folders), and the sweeps over them (unfinished creates, a whole folder).
#include "shared/shared_file.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "shared/shared_file_internal.hpp"

namespace sketch {
namespace shared {

namespace {

// Calls f(name) for each entry of folder dir but "." and ".."; a folder that
// cannot be read has none.
template <typename F>
void each_entry(const std::string& dir, F&& f) {
    const std::unique_ptr<DIR, int (*)(DIR*)> d(opendir(dir.c_str()), closedir);
    if (!d) return;
    while (const struct dirent* entry = readdir(d.get()))
        if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0) f(entry->d_name);
}

// The entries of dir named as an object may be named.
std::vector<std::string> object_names(const std::string& dir) {
    std::vector<std::string> names;
    each_entry(dir, [&](const char* n) {
        if (valid_object_name(n, strlen(n))) names.emplace_back(n);
    });
    return names;
}

}  // namespace

std::vector<ObjectFile> object_files(const std::string& dir) {
    std::vector<ObjectFile> found;
    for (const std::string& name : object_names(dir)) {
        // O_NONBLOCK: a FIFO placed here must not hang the listing.
        Fd fd(open((dir + "/" + name).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
        struct stat st;
        FileHeader h;
        if (fd.fd < 0 || fstat(fd.fd, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        if (pread(fd.fd, &h, sizeof h, 0) != ssize_t(sizeof h) || h.magic != kMagic) continue;
        found.push_back(ObjectFile{name, h.file_id, h.created_run});
    }
    return found;
}

void remove_abandoned_creates(const std::string& dir) noexcept {
    try {
        for (const std::string& name : object_names(dir)) remove_abandoned_create(dir + "/" + name);
    } catch (...) {
        // out of memory listing the folder: they stay, to be tried again
    }
}

std::vector<uint32_t> numbered_folders(const std::string& dir) {
    std::vector<uint32_t> found;
    each_entry(dir, [&](const char* n) {
        char* end = nullptr;
        errno = 0;
        const unsigned long v = strtoul(n, &end, 10);
        if (n[0] < '1' || n[0] > '9' || *end != '\0' || errno != 0 || v > UINT32_MAX) return;
        struct stat st;
        if (lstat((dir + "/" + n).c_str(), &st) == 0 && S_ISDIR(st.st_mode)) found.push_back(uint32_t(v));
    });
    return found;
}

void remove_folder(const std::string& dir) noexcept {
    try {
        for (const std::string& n : object_names(dir)) remove_file(dir + "/" + n, 0);
        rmdir(dir.c_str());  // fails, harmlessly, if anything else is left
    } catch (...) {
        // out of memory listing the folder: it stays, to be tried again
    }
}

}  // namespace shared
}  // namespace sketch
