// Images of object files: taking one from a mapping, checking one, writing
// one back as a file (see file_image.hpp).
#include "shared/file_image.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "shared/shared_file_internal.hpp"
#include "error.hpp"

namespace sketch {
namespace shared {

namespace {

// What an image is called in messages, in place of a file's path.
constexpr const char* kImagePath = "(its image in the catalog)";

}  // namespace

void write_image(const Mapping& m, uint8_t* out) noexcept {
    const FileHeader* h = m.header();
    std::memset(out, 0, kHeaderBytes);
    auto* image = reinterpret_cast<FileHeader*>(out);
    std::memcpy(image, h, offsetof(FileHeader, checksum) + sizeof h->checksum);
    image->flags = load_flags(h) & kFrozen;
    image->item_class = load_item_class(h);
    image->ops = load_ops(h);
    // the sub-filters the image holds: those m maps (the caller has followed any growth)
    image->subfilters = m.grown != nullptr ? m.subfilters : __atomic_load_n(&h->subfilters, __ATOMIC_ACQUIRE);
    image->held = __atomic_load_n(&h->held, __ATOMIC_ACQUIRE);
    std::memcpy(out + kHeaderBytes, m.payload(), size_t(m.size - kHeaderBytes));
}

FileHeader check_image(const uint8_t* image, uint64_t len, const char* label, uint32_t kind, uint64_t file_id) {
    if (len < kHeaderBytes)
        fail(Errc::corrupted, "the image of shared object \"%s\" is truncated: %llu bytes, shorter than a header",
             label, (unsigned long long)len);
    FileHeader h;
    std::memcpy(&h, image, sizeof h);
    validate(h, image, len, kImagePath, label, kind);
    if (h.file_id != file_id)
        fail(Errc::corrupted, "the image of shared object \"%s\" belongs to another incarnation of it", label);
    return h;
}

void restore_image(const std::string& path, const char* label, const uint8_t* image, uint64_t len, uint64_t run,
                   bool durable, bool (*stop)()) {
    FileHeader h;
    std::memcpy(&h, image, sizeof h);
    if (len != used_bytes(h)) fail(Errc::internal, "restore_image: an unchecked image");
    CreateSpec spec{};
    spec.kind = Kind(h.kind);
    spec.geometry = h.geometry;
    spec.geometry_len = h.geometry_len;
    spec.payload_bytes = h.payload_bytes;
    spec.grown_payload_bytes = len - kHeaderBytes;
    spec.file_id = h.file_id;
    spec.initial_payload = image + kHeaderBytes;
    spec.initial_flags = h.flags & kFrozen;
    spec.item_class = h.item_class;
    spec.ops = h.ops;
    spec.subfilters = h.subfilters;
    spec.held = h.held;
    spec.durable = durable;
    spec.run = run;
    spec.stop = stop;
    create_file(path, label, spec, Existing::refuse);
}

bool being_created(const std::string& path) noexcept {
    Fd fd(open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
    struct stat st;
    if (fd.fd < 0 || fstat(fd.fd, &st) != 0 || !S_ISREG(st.st_mode)) return false;
    uint64_t magic = 0;
    if (!pread_full(fd.fd, &magic, size_t(std::min<uint64_t>(uint64_t(st.st_size), sizeof magic)), 0) || magic != 0)
        return false;
    return flock(fd.fd, LOCK_SH | LOCK_NB) != 0;  // its creator holds it
}

}  // namespace shared
}  // namespace sketch
