// Object files: the header and its validation, reading headers, mapping a
// file (attach_file), the checks of a mapped file, the kinds' registry.
// Creating, copying and removing files, and listing the folders, are in
// shared_file_create.cpp.
#include "shared/shared_file.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <memory>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "shared/shared_file_internal.hpp"
#include "error.hpp"
#include "item_class.hpp"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace sketch {
namespace shared {

namespace {

// The kinds this build knows, in kind_slot's order, with what each
// registered (register_kind).
struct KindEntry {
    Kind kind;
    const char* name;
    GeometryValidator validator;
    LockWordsReset reset_lock_words;
    GrownPayload grown_payload;
};
KindEntry kinds[kKinds] = {
    {Kind::bloom, "bloom", nullptr, nullptr, nullptr},
    {Kind::cbf, "cbf", nullptr, nullptr, nullptr},
    {Kind::reservoir, "reservoir", nullptr, nullptr, nullptr},
    {Kind::test, "test", nullptr, nullptr, nullptr},
};

}  // namespace

int kind_slot(uint32_t kind) {
    for (int i = 0; i < kKinds; ++i)
        if (uint32_t(kinds[i].kind) == kind) return i;
    return -1;
}

GeometryValidator validator_of(uint32_t kind) {
    const int s = kind_slot(kind);
    return s < 0 ? nullptr : kinds[s].validator;
}

GrownPayload grown_payload_of_kind(uint32_t kind) {
    const int s = kind_slot(kind);
    return s < 0 ? nullptr : kinds[s].grown_payload;
}

std::string errstr(int err) { return std::strerror(err); }

bool pread_full(int fd, void* buf, size_t len, off_t off) {
    auto* p = static_cast<uint8_t*>(buf);
    while (len > 0) {
        ssize_t n = pread(fd, p, len, off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        p += n;
        len -= size_t(n);
        off += n;
    }
    return true;
}

bool pwrite_full(int fd, const void* buf, size_t len, off_t off) {
    auto* p = static_cast<const uint8_t*>(buf);
    while (len > 0) {
        ssize_t n = pwrite(fd, p, len, off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (n == 0) errno = EIO;
            return false;
        }
        p += n;
        len -= size_t(n);
        off += n;
    }
    return true;
}

namespace {

// True if the first `len` bytes of fd are all zero (read errors: false).
bool all_zero(int fd, uint64_t len) {
    std::vector<uint8_t> buf(1 << 16);
    uint64_t off = 0;
    while (off < len) {
        size_t chunk = size_t(std::min<uint64_t>(buf.size(), len - off));
        if (!pread_full(fd, buf.data(), chunk, off_t(off))) return false;
        for (size_t i = 0; i < chunk; ++i)
            if (buf[i] != 0) return false;
        off += chunk;
    }
    return true;
}

}  // namespace

// Opens an existing object file for reading (or writing), refusing symlinks
// and anything but a regular file. Returns the descriptor and its size.
// O_NONBLOCK: opening a FIFO for reading would wait for a writer, beyond any
// cancel; it is refused once open (it changes nothing for a regular file).
int open_existing(const std::string& path, const char* label, bool writable, uint64_t* size) {
    int fd = open(path.c_str(), (writable ? O_RDWR : O_RDONLY) | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        int err = errno;
        if (err == ELOOP)
            fail(Errc::corrupted, "file \"%s\" of shared object \"%s\" is a symbolic link; refusing to follow it",
                 path.c_str(), label);
        if (err == ENOENT) fail(Errc::io_error, "file \"%s\" of shared object \"%s\" is missing", path.c_str(), label);
        fail(Errc::io_error, "could not open file \"%s\" of shared object \"%s\": %s", path.c_str(), label,
             errstr(err).c_str());
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        fail(Errc::corrupted, "file \"%s\" of shared object \"%s\" is not a regular file", path.c_str(), label);
    }
    *size = uint64_t(st.st_size);
    return fd;
}

// Validates a header read from a file of `size` bytes.
void validate(const FileHeader& h, const uint8_t* raw, uint64_t size, const std::string& path, const char* label,
              uint32_t expected_kind) {
    const char* p = path.c_str();
    if (h.magic != kMagic) {
        if (h.magic == __builtin_bswap64(kMagic))
            fail(Errc::corrupted,
                 "file \"%s\" of shared object \"%s\" was written on a machine of the other byte order", p, label);
        if (h.magic == 0) {
            bool zero = true;
            for (size_t i = 0; i < sizeof(FileHeader); ++i) zero = zero && raw[i] == 0;
            fail(Errc::corrupted,
                 "file \"%s\" of shared object \"%s\" is incomplete: %s left by an interrupted create",
                 p, label, zero ? "an empty header" : "a partly written header");
        }
        fail(Errc::corrupted, "file \"%s\" of shared object \"%s\" is not a sketchshare object file (wrong magic)", p,
             label);
    }
    if (h.version != kFormatVersion)
        fail(Errc::corrupted, "file \"%s\" of shared object \"%s\" has format version %u; this build reads version %u",
             p, label, h.version, kFormatVersion);
    if (h.checksum != header_checksum(h))
        fail(Errc::corrupted, "file \"%s\" of shared object \"%s\" has a damaged header (checksum mismatch)", p,
             label);
    const GeometryValidator validator = validator_of(h.kind);
    if (validator == nullptr)
        fail(Errc::corrupted, "file \"%s\" of shared object \"%s\" holds an unknown kind of object (%u)", p, label,
             h.kind);
    if (expected_kind != 0 && h.kind != expected_kind)
        fail(Errc::corrupted, "file \"%s\" of shared object \"%s\" holds a %s, not a %s", p, label,
             kind_name(h.kind), kind_name(expected_kind));
    if (h.header_bytes != kHeaderBytes || h.payload_offset != kHeaderBytes || h.geometry_len > kGeometryBytes ||
        h.payload_bytes > kMaxPayloadBytes || h.total_bytes != h.payload_offset + h.payload_bytes)
        fail(Errc::corrupted, "file \"%s\" of shared object \"%s\" has an inconsistent header", p, label);
    validator(label, h.geometry, h.geometry_len, h.payload_bytes);
    // Mutable, so outside the checksum, but only ever set to a word a build
    // writes: any other (an unknown code, a built-in type's oid past those
    // initdb fixes) is damage, refused here rather than by every later use.
    ItemClass items;
    if (!item_class_of_word(h.item_class, &items))
        fail(Errc::corrupted, "file \"%s\" of shared object \"%s\" records an item class this build does not know",
             p, label);
    const FileSpan span = file_span(h, p, label);
    if (size < span.used)
        fail(Errc::corrupted,
             "file \"%s\" of shared object \"%s\" is truncated: %llu bytes, its header says %llu", p, label,
             (unsigned long long)size, (unsigned long long)span.used);
    if (size > span.most)
        fail(Errc::corrupted,
             "file \"%s\" of shared object \"%s\" is extended: %llu bytes, its header says %llu", p, label,
             (unsigned long long)size, (unsigned long long)span.used);
}

FileHeader read_and_validate(int fd, uint64_t size, const std::string& path, const char* label,
                             uint32_t expected_kind) {
    FileHeader h;
    std::memset(&h, 0, sizeof h);
    if (size < sizeof(FileHeader) + 0) {
        if (size > 0 && pread_full(fd, &h, size_t(size), 0) && all_zero(fd, size))
            fail(Errc::corrupted,
                 "file \"%s\" of shared object \"%s\" is incomplete: an empty file left by an interrupted create",
                 path.c_str(), label);
        fail(Errc::corrupted, "file \"%s\" of shared object \"%s\" is truncated: %llu bytes, shorter than its header",
             path.c_str(), label, (unsigned long long)size);
    }
    if (!pread_full(fd, &h, sizeof h, 0))
        fail(Errc::io_error, "could not read file \"%s\" of shared object \"%s\": %s", path.c_str(), label,
             errstr(errno).c_str());
    validate(h, reinterpret_cast<const uint8_t*>(&h), size, path, label, expected_kind);
    // The op stripes, into the one count a reader of the header sees.
    std::vector<uint8_t> stripes(64 * kOpStripes);
    if (!pread_full(fd, stripes.data(), stripes.size(), off_t(kOpStripesOffset)))
        fail(Errc::io_error, "could not read file \"%s\" of shared object \"%s\": %s", path.c_str(), label,
             errstr(errno).c_str());
    for (uint32_t i = 0; i < kOpStripes; ++i) {
        uint64_t n;
        std::memcpy(&n, stripes.data() + 64 * i, sizeof n);
        h.ops += n;
    }
    return h;
}

const char* kind_name(uint32_t kind) {
    const int s = kind_slot(kind);
    return s < 0 ? nullptr : kinds[s].name;
}

void register_kind(Kind kind, GeometryValidator validator, LockWordsReset reset_lock_words,
                   GrownPayload grown_payload) {
    KindEntry& k = kinds[kind_slot(uint32_t(kind))];
    k.validator = validator;
    k.reset_lock_words = reset_lock_words;
    k.grown_payload = grown_payload;
}

uint64_t header_checksum(const FileHeader& h) {
    const uint8_t* start = reinterpret_cast<const uint8_t*>(&h) + sizeof(h.magic);
    const uint8_t* end = reinterpret_cast<const uint8_t*>(&h.checksum);
    return XXH3_64bits(start, size_t(end - start));
}

bool valid_object_name(const char* name, size_t len) {
    if (len == 0 || len > 63 || name[0] == '.') return false;
    for (size_t i = 0; i < len; ++i) {
        char c = name[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                  c == '-' || c == '.';
        if (!ok) return false;
    }
    return true;
}

void ensure_directory(const std::string& base, const std::string& rel, const char* what) {
    size_t pos = 0;
    while (pos != std::string::npos) {
        pos = rel.find('/', pos == 0 ? 0 : pos + 1);
        std::string part = base + "/" + rel.substr(0, pos);
        if (mkdir(part.c_str(), 0700) != 0 && errno != EEXIST)
            fail(Errc::io_error, "could not create directory \"%s\" for %s: %s", part.c_str(), what,
                 errstr(errno).c_str());
        struct stat st;
        if (lstat(part.c_str(), &st) != 0)
            fail(Errc::io_error, "could not stat directory \"%s\": %s", part.c_str(), errstr(errno).c_str());
        if (!S_ISDIR(st.st_mode))
            fail(Errc::corrupted, "\"%s\" is not a directory (symbolic links are not followed for %s)",
                 part.c_str(), what);
    }
}

FileHeader read_header(const std::string& path, const char* label, uint32_t expected_kind) {
    uint64_t size = 0;
    Fd fd(open_existing(path, label, false, &size));
    return read_and_validate(fd.fd, size, path, label, expected_kind);
}

// One page: the mutable words and the adder slots lie in the first 4 KiB.
constexpr size_t kHeaderPage = kSlotsOffset;

FileHeader* map_header_page(const std::string& path, uint64_t file_id, const char* label) {
    const auto refuse = [&](const char* what) {
        fail(Errc::io_error, "could not %s the header of shared object \"%s\" (\"%s\"): %s", what, label,
             path.c_str(), errstr(errno).c_str());
    };
    Fd fd(open(path.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC));
    if (fd.fd < 0) {
        // Not there, or not a file (a symbolic link, a directory, a socket):
        // no adder maps it either, and a drop of the object must go on.
        if (errno == ENOENT || errno == ELOOP || errno == ENOTDIR || errno == EISDIR || errno == ENXIO) return nullptr;
        refuse("open");
    }
    struct stat st;
    if (fstat(fd.fd, &st) != 0) refuse("read");
    if (!S_ISREG(st.st_mode) || uint64_t(st.st_size) < kHeaderBytes) return nullptr;
    FileHeader h;
    if (!pread_full(fd.fd, &h, sizeof h, 0)) refuse("read");
    if (h.magic != kMagic || h.file_id != file_id) return nullptr;
    void* p = mmap(nullptr, kHeaderPage, PROT_READ | PROT_WRITE, MAP_SHARED, fd.fd, 0);
    if (p == MAP_FAILED) refuse("map");
    return static_cast<FileHeader*>(p);
}

void unmap_header_page(FileHeader* h) noexcept { munmap(h, kHeaderPage); }

void validate_header(const FileHeader& h, uint64_t size, const std::string& path, const char* label,
                     uint32_t expected_kind) {
    validate(h, reinterpret_cast<const uint8_t*>(&h), size, path, label, expected_kind);
}

namespace {

// The lock words name their holders by process id, which means something
// only in the server run that wrote them. A file carried over from another
// run (a base backup taken while an add held a reader slot or a stripe, then
// started as a standby elsewhere; a file-level backup put back) may name ids
// that now belong to unrelated live processes, on which a writer would wait
// forever, and an add would spin forever inside the lock on a stripe. So the
// first process of a run to map the file for writing clears the lock words:
// flock keeps the others of that run out until it is done, and after it they
// find lock_run current, so no holder of this run is ever cleared.
void adopt_lock(int fd, const Mapping& m, uint64_t run, const char* label) {
    FileHeader* h = m.header();
    if (__atomic_load_n(&h->lock_run, __ATOMIC_ACQUIRE) == run) return;
    int rc;
    while ((rc = flock(fd, LOCK_EX)) != 0 && errno == EINTR) {
    }
    if (rc != 0) fail(Errc::io_error, "could not lock the file of shared object \"%s\": %s", label, errstr(errno).c_str());
    if (__atomic_load_n(&h->lock_run, __ATOMIC_ACQUIRE) != run) {
        h->lock.writer = 0;
        h->lock.waiters = 0;
        h->lock.slotless = 0;
        h->overflowing = 0;
        h->closing = 0;
        std::memset(m.base + kAdderSlotsOffset, 0, kAdderSlots * sizeof(uint32_t));
        std::memset(m.slots(), 0, kReaderSlots * sizeof(uint32_t));
        std::memset(m.base + kStripesOffset, 0, kItemStripes * sizeof(uint32_t));
        if (LockWordsReset reset = kinds[kind_slot(h->kind)].reset_lock_words) reset(m.payload());
        __atomic_store_n(&h->lock_run, run, __ATOMIC_RELEASE);
    }
    flock(fd, LOCK_UN);
}

// True if st (the file at the path, or the descriptor mapped) is still the
// file m maps, at its size (or longer, for an object that grows, by what its
// published sub-filters and the next one may take: other processes' growth),
// and the mapped header's immutable part is what was validated (its checksum
// recomputed: an edit that also rewrote the stored checksum is seen too).
// The size is checked first: the header is read only while the file covers it.
bool unchanged(const Mapping& m, const struct stat& st) noexcept {
    const uint64_t size = uint64_t(st.st_size);
    if (uint64_t(st.st_dev) != m.dev || uint64_t(st.st_ino) != m.ino || size < m.size || !S_ISREG(st.st_mode) ||
        (size > m.size && size > most_bytes(m)))
        return false;
    return header_unchanged(m);
}

FixedHeader fixed_part(const FileHeader& h) {
    FixedHeader f{};
    f.geometry_len = h.geometry_len;
    f.file_id = h.file_id;
    f.checksum = h.checksum;
    std::memcpy(f.geometry, h.geometry, sizeof f.geometry);
    return f;
}

}  // namespace

bool header_unchanged(const Mapping& m) noexcept {
    const FileHeader* h = m.header();
    return h->magic == kMagic && h->checksum == m.fixed.checksum && header_checksum(*h) == m.fixed.checksum;
}

bool file_changed(const Mapping& m, const char* path) noexcept {
    struct stat st;
    // The file mapped has no link left once removed or replaced at its path.
    if (m.fd >= 0) return fstat(m.fd, &st) != 0 || st.st_nlink == 0 || !unchanged(m, st);
    return lstat(path, &st) != 0 || !unchanged(m, st);
}

void drop_descriptor(Mapping& m) noexcept {
    if (m.fd >= 0) close(m.fd);
    m.fd = -1;
}

Mapping attach_file(const std::string& path, const char* label, uint32_t expected_kind, bool writable,
                    uint64_t run) {
    uint64_t size = 0;
    Fd fd(open_existing(path, label, writable, &size));
    FileHeader h = read_and_validate(fd.fd, size, path, label, expected_kind);
    // The published sub-filters, not an unpublished tail after them.
    const uint64_t used = used_bytes(h);
    void* base = mmap(nullptr, size_t(used), PROT_READ | (writable ? PROT_WRITE : 0), MAP_SHARED, fd.fd, 0);
    if (base == MAP_FAILED)
        fail(errno == ENOMEM ? Errc::out_of_memory : Errc::io_error,
             "could not map file \"%s\" of shared object \"%s\": %s", path.c_str(), label, errstr(errno).c_str());
#ifdef MADV_HUGEPAGE
    // Pages not in the page cache yet (after a reboot) are then read in as
    // 2 MiB folios and mapped whole, as create_file leaves them. Advice only:
    // ignored where transparent huge pages are off or unsupported.
    if (used >= kFolioBytes) (void)madvise(base, size_t(used), MADV_HUGEPAGE);
#endif
    Mapping m;
    m.base = static_cast<uint8_t*>(base);
    m.size = used;
    m.subfilters = h.subfilters == 0 ? 1 : h.subfilters;
    m.grown = grown_payload_of(h);
    m.writable = writable;
    m.fixed = fixed_part(h);
    // The header was validated as read before the mapping was made: the
    // mapping must still show that file, at that size and with that header.
    struct stat st;
    const bool known = fstat(fd.fd, &st) == 0;
    m.dev = known ? uint64_t(st.st_dev) : 0;
    m.ino = known ? uint64_t(st.st_ino) : 0;
    if (!known || !unchanged(m, st)) {
        unmap(m);
        fail(Errc::corrupted, "file \"%s\" of shared object \"%s\" changed while it was being mapped", path.c_str(),
             label);
    }
    if (writable) {
        try {
            adopt_lock(fd.fd, m, run, label);
        } catch (...) {
            unmap(m);
            throw;
        }
    }
    m.fd = fd.fd;
    fd.fd = -1;
    return m;
}

void unmap(Mapping& m) noexcept {
    if (m.base != nullptr) munmap(m.base, size_t(m.size));
    m.base = nullptr;
    m.size = 0;
    drop_descriptor(m);
}

void sync_mapping(const Mapping& m, const char* label) {
    if (msync(m.base, size_t(m.size), MS_SYNC) != 0)
        fail(Errc::io_error, "could not sync shared object \"%s\": %s", label, errstr(errno).c_str());
}

}  // namespace shared
}  // namespace sketch
