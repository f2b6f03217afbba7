// Object files that grow by sub-filters (see shared_file.hpp): the bytes a
// header's published sub-filters need, following another process's growth
// in a mapping, and extending the file for the next sub-filter.
#include <cerrno>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shared/held_items.hpp"
#include "shared/shared_file_internal.hpp"

namespace sketch {
namespace shared {

namespace {

uint32_t published(const FileHeader& h) { return h.subfilters == 0 ? 1 : h.subfilters; }

}  // namespace

GrownPayload grown_payload_of(const FileHeader& h) {
    const GrownPayload grown = grown_payload_of_kind(h.kind);
    return grown != nullptr && grown(h.geometry, h.geometry_len, 1) != 0 ? grown : nullptr;
}

FileSpan file_span(const FileHeader& h, const char* path, const char* label) {
    const uint32_t count = published(h);
    const GrownPayload grown = grown_payload_of(h);
    if (grown == nullptr) {
        if (count != 1)
            fail(Errc::corrupted, "file \"%s\" of shared object \"%s\" publishes %u sub-filters, but does not grow",
                 path, label, count);
        return FileSpan{h.total_bytes, h.total_bytes};
    }
    if (count > kMaxSubfilters)
        fail(Errc::corrupted, "file \"%s\" of shared object \"%s\" publishes %u sub-filters; at most %u exist", path,
             label, count, kMaxSubfilters);
    uint64_t payload = 0;
    try {
        payload = grown(h.geometry, h.geometry_len, count);
    } catch (const Error&) {
        fail(Errc::corrupted, "file \"%s\" of shared object \"%s\" publishes %u sub-filters, more than it can have",
             path, label, count);
    }
    const uint64_t used = file_bytes(payload);
    // A growth a crash interrupted leaves at most the next sub-filter.
    uint64_t most = used;
    if (count < kMaxSubfilters) {
        try {
            most = file_bytes(grown(h.geometry, h.geometry_len, count + 1));
        } catch (const Error&) {
            // the next sub-filter is past every limit: no growth made it
        }
    }
    return FileSpan{used, most};
}

uint64_t used_bytes(const FileHeader& h) { return file_span(h, "?", "?").used; }

uint64_t most_bytes(const Mapping& m) noexcept {
    const uint32_t count = load_subfilters(m.header());
    if (m.grown == nullptr || count > kMaxSubfilters) return m.size;
    try {
        return file_bytes(m.grown(m.fixed.geometry, m.fixed.geometry_len, count < kMaxSubfilters ? count + 1 : count));
    } catch (...) {
        return m.size;  // no next sub-filter: no growth made one
    }
}

uint64_t grown_file_bytes(const Mapping& m, uint32_t count) {
    const uint64_t payload = m.grown(m.fixed.geometry, m.fixed.geometry_len, count);
    if (payload > kMaxPayloadBytes)
        fail(Errc::program_limit, "%u sub-filters need %llu bytes; the limit is %llu", count,
             (unsigned long long)payload, (unsigned long long)kMaxPayloadBytes);
    return file_bytes(payload);
}

bool follow_growth(Mapping& m, const std::string& path, const char* label) {
    const uint32_t count = load_subfilters(m.header());
    if (m.grown == nullptr || count <= m.subfilters) return false;
    if (count > kMaxSubfilters)
        fail(Errc::corrupted, "file \"%s\" of shared object \"%s\" publishes %u sub-filters; at most %u exist",
             path.c_str(), label, count, kMaxSubfilters);
    const uint64_t bytes = naming(label, [&] { return grown_file_bytes(m, count); });
    struct stat st;
    if ((m.fd >= 0 ? fstat(m.fd, &st) : stat(path.c_str(), &st)) != 0 || uint64_t(st.st_size) < bytes)
        fail(Errc::corrupted, "file \"%s\" of shared object \"%s\" publishes %u sub-filters (%llu bytes), more than it holds",
             path.c_str(), label, count, (unsigned long long)bytes);
    void* base = mremap(m.base, size_t(m.size), size_t(bytes), MREMAP_MAYMOVE);
    if (base == MAP_FAILED)
        fail(errno == ENOMEM ? Errc::out_of_memory : Errc::io_error,
             "could not map the sub-filters of shared object \"%s\": %s", label, errstr(errno).c_str());
#ifdef MADV_HUGEPAGE
    if (bytes >= kFolioBytes) (void)madvise(base, size_t(bytes), MADV_HUGEPAGE);  // as attach_file does
#endif
    m.base = static_cast<uint8_t*>(base);
    m.size = bytes;
    m.subfilters = count;
    return true;
}

int extend_file(const Mapping& m, const std::string& path, uint64_t from_bytes, uint64_t to_bytes) noexcept {
    Fd own(m.fd >= 0 ? -1 : open(path.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC));
    const int fd = m.fd >= 0 ? m.fd : own.fd;
    if (fd < 0) return errno;
    // The tail of an interrupted growth may be partly allocated: it goes, so
    // that the new sub-filter is all zeros.
    if (ftruncate(fd, off_t(from_bytes)) != 0) return errno;
    if (int err = posix_fallocate(fd, off_t(from_bytes), off_t(to_bytes - from_bytes))) return err;
    if (fdatasync(fd) != 0) return errno;
    return 0;
}

}  // namespace shared
}  // namespace sketch
