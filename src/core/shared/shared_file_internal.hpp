// What shared_file.cpp (the header, validation and mapping) and
// shared_file_create.cpp (creating, copying and removing files) share.
// Internal to src/core/shared/; shared_file.hpp is the interface.
#pragma once

#include <string>
#include <unistd.h>

#include "shared/shared_file.hpp"

namespace sketch {
namespace shared {

// The geometry validators of the registered kinds, by kind_index.
extern GeometryValidator validators[5];
// The slot of a kind in the kinds' tables, -1 for an unknown kind.
int kind_index(uint32_t kind);

// Closes a descriptor on scope exit unless released.
struct Fd {
    int fd = -1;
    explicit Fd(int f) : fd(f) {}
    ~Fd() {
        if (fd >= 0) close(fd);
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
};

std::string errstr(int err);
// The whole range, retrying short transfers and EINTR; false on failure
// (errno set; a pwrite that writes nothing sets EIO).
bool pread_full(int fd, void* buf, size_t len, off_t off);
bool pwrite_full(int fd, const void* buf, size_t len, off_t off);

constexpr uint64_t kFolioBytes = uint64_t(2) << 20;  // the PMD size on x86-64 and arm64 (4 KiB pages)

// Opens an existing object file for reading (or writing), refusing symlinks
// and anything but a regular file. Returns the descriptor and its size.
int open_existing(const std::string& path, const char* label, bool writable, uint64_t* size);
// Validates a header read from a file of `size` bytes.
void validate(const FileHeader& h, const uint8_t* raw, uint64_t size, const std::string& path, const char* label,
              uint32_t expected_kind);
// Reads the header of the file open as fd (size bytes) and validates it;
// ops is the sum of the op stripes.
FileHeader read_and_validate(int fd, uint64_t size, const std::string& path, const char* label,
                             uint32_t expected_kind);

}  // namespace shared
}  // namespace sketch
