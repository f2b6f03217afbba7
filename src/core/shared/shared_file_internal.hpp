// What shared_file.cpp (the header, validation and mapping) and
// shared_file_create.cpp (creating, copying and removing files) share.
// Internal to src/core/shared/; shared_file.hpp is the interface.
#pragma once

#include <string>
#include <unistd.h>

#include "shared/shared_file.hpp"

namespace sketch {
namespace shared {

// What a kind registered (register_kind): its geometry validator, and its
// growth function if it grows; nullptr for a kind unknown or not registered.
GeometryValidator validator_of(uint32_t kind);
GrownPayload grown_payload_of_kind(uint32_t kind);

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
// The sizes a file with header h (validated but for its size) may have: the
// bytes its published sub-filters need, and the most it may hold (the next
// sub-filter too, whose growth a crash interrupted); both total_bytes for an
// object that does not grow. Throws corrupted naming the file.
struct FileSpan {
    uint64_t used;
    uint64_t most;
};
FileSpan file_span(const FileHeader& h, const char* path, const char* label);
// The most bytes the file m maps may have now: what its published
// sub-filters and the next one need (m.size for an object that does not
// grow). Never throws.
uint64_t most_bytes(const Mapping& m) noexcept;
// The kind's growth function if the object of header h grows, else nullptr.
GrownPayload grown_payload_of(const FileHeader& h);
// Reads the header of the file open as fd (size bytes) and validates it;
// ops is the sum of the op stripes.
FileHeader read_and_validate(int fd, uint64_t size, const std::string& path, const char* label,
                             uint32_t expected_kind);

}  // namespace shared
}  // namespace sketch
