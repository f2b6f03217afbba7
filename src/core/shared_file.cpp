#include "shared_file.hpp"

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

#include "error.hpp"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace sketch {
namespace shared {

namespace {

GeometryValidator validators[5];
LockWordsReset lock_words_resets[5];

int kind_index(uint32_t kind) {
    switch (kind) {
        case uint32_t(Kind::bloom): return 1;
        case uint32_t(Kind::cbf): return 2;
        case uint32_t(Kind::test): return 3;
        case uint32_t(Kind::reservoir): return 4;
        default: return -1;
    }
}

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

constexpr uint64_t kFolioBytes = uint64_t(2) << 20;  // the PMD size on x86-64 and arm64 (4 KiB pages)

// Writes the header block (kHeaderBytes of `head`) and the payload (`payload`,
// or zeros if it is null) in writes aligned to kFolioBytes of the file: every
// piece after the first, then the first, which holds the header. A crash
// while the zeros go in thus leaves an all-zero file, which the next create
// adopts. stop (may be null) is polled between pieces; when it returns true
// the create is abandoned. Calls abandon(what, errno) on failure.
template <typename Abandon>
void write_aligned(int fd, const uint8_t* head, const uint8_t* payload, uint64_t payload_bytes, bool (*stop)(),
                   Abandon abandon) {
    const uint64_t total = file_bytes(payload_bytes);
    std::vector<uint8_t> buf(size_t(std::min<uint64_t>(total, kFolioBytes)), 0);
    for (uint64_t off = kFolioBytes; off < total; off += kFolioBytes) {
        if (stop != nullptr && stop()) abandon("finish (interrupted) the creation of", EINTR);
        const size_t len = size_t(std::min<uint64_t>(total - off, kFolioBytes));
        const uint8_t* src = payload != nullptr ? payload + (off - kHeaderBytes) : buf.data();
        if (!pwrite_full(fd, src, len, off_t(off))) abandon("write", errno);
    }
    const size_t len = buf.size();
    std::memcpy(buf.data(), head, kHeaderBytes);
    if (payload != nullptr) std::memcpy(buf.data() + kHeaderBytes, payload, len - kHeaderBytes);
    if (!pwrite_full(fd, buf.data(), len, 0)) abandon("write the header of", errno);
}

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

std::string parent_dir(const std::string& path) {
    size_t slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    if (slash == 0) return "/";
    return path.substr(0, slash);
}

void fsync_dir(const std::string& path) {
    int fd = open(parent_dir(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

// The lock of an object folder, held (flock on the folder itself) by every
// step that decides about a file at an object's path and then unlinks that
// path: a drop's removal of its file at commit, and a create's replacement
// of an orphan. A name can be dropped, its drop's commit seen and the name
// created again before the dropping backend removes the old file; without
// the lock that removal could check the old file, then the create replace
// it, then the removal unlink the path: the new object's file. Held for a
// few system calls; released by the kernel if the holder dies. Where the
// folder cannot be opened, nothing can be created or removed in it either.
struct DirLock {
    int fd;
    explicit DirLock(const std::string& path) : fd(open(parent_dir(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
        if (fd >= 0)
            while (flock(fd, LOCK_EX) != 0 && errno == EINTR) {
            }
    }
    ~DirLock() {
        if (fd >= 0) close(fd);  // closing releases the lock
    }
    DirLock(const DirLock&) = delete;
    DirLock& operator=(const DirLock&) = delete;
};

// Sets kDropped in the header of an object file open as fd (size bytes), so
// processes that map it let go; a file too short for a header has no flags.
void mark_dropped(int fd, uint64_t size) {
    if (size < sizeof(FileHeader)) return;
    void* base = mmap(nullptr, sizeof(FileHeader), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) return;
    set_flags(static_cast<FileHeader*>(base), kDropped);
    munmap(base, sizeof(FileHeader));
}

// How long a removal waits for the object's lock before leaving the payload's
// blocks in place (a holder that stopped); they then come back when the last
// mapping goes.
constexpr int kGiveBackWaitMs = 1000;

// Gives the payload's blocks of an object file that is marked dropped and
// unlinked (fd open, size bytes) back to the file system, as PostgreSQL
// truncates the file of a dropped relation at commit: every process that
// maps the file keeps it alive, and an idle one lets go only at its next
// call. The hole is punched under the object's lock, taken exclusively: a
// process that gets the lock afterwards finds kDropped and touches nothing,
// so no one writes into the hole (a write there would need new blocks: a
// SIGBUS on a full disk). Unlocked readers (lookups, frozen objects) read
// zeros there. The header (flags, lock) stays.
void give_back_payload(int fd, uint64_t size) noexcept {
    if (size <= kHeaderBytes) return;
    void* base = mmap(nullptr, kHeaderBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) return;
    auto* h = static_cast<FileHeader*>(base);
    RWLock lock(&h->lock, reinterpret_cast<uint32_t*>(static_cast<uint8_t*>(base) + kSlotsOffset));
    const uint32_t me = current_process_id();
    if (lock.lock_exclusive(me, kGiveBackWaitMs) == LockResult::acquired) {
        // A file system without holes keeps the blocks until the last mapping goes.
        (void)fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off_t(kHeaderBytes),
                        off_t(size - kHeaderBytes));
        lock.unlock_exclusive(me);
    }
    munmap(base, kHeaderBytes);
}

// Opens an existing object file for reading (or writing), refusing symlinks
// and anything but a regular file. Returns the descriptor and its size.
int open_existing(const std::string& path, const char* label, bool writable, uint64_t* size) {
    int fd = open(path.c_str(), (writable ? O_RDWR : O_RDONLY) | O_NOFOLLOW | O_CLOEXEC);
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
                 "file \"%s\" of shared object \"%s\" is incomplete: %s left by an interrupted create; remove it "
                 "and retry",
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
    const int ki = kind_index(h.kind);
    if (ki < 0 || validators[ki] == nullptr)
        fail(Errc::corrupted, "file \"%s\" of shared object \"%s\" holds an unknown kind of object (%u)", p, label,
             h.kind);
    if (expected_kind != 0 && h.kind != expected_kind)
        fail(Errc::corrupted, "file \"%s\" of shared object \"%s\" holds a %s, not a %s", p, label,
             kind_name(h.kind), kind_name(expected_kind));
    if (h.header_bytes != kHeaderBytes || h.payload_offset != kHeaderBytes || h.geometry_len > kGeometryBytes ||
        h.payload_bytes > kMaxPayloadBytes || h.total_bytes != h.payload_offset + h.payload_bytes)
        fail(Errc::corrupted, "file \"%s\" of shared object \"%s\" has an inconsistent header", p, label);
    if (size < h.total_bytes)
        fail(Errc::corrupted,
             "file \"%s\" of shared object \"%s\" is truncated: %llu bytes, its header says %llu", p, label,
             (unsigned long long)size, (unsigned long long)h.total_bytes);
    if (size > h.total_bytes)
        fail(Errc::corrupted,
             "file \"%s\" of shared object \"%s\" is extended: %llu bytes, its header says %llu", p, label,
             (unsigned long long)size, (unsigned long long)h.total_bytes);
    validators[ki](label, h.geometry, h.geometry_len, h.payload_bytes);
}

FileHeader read_and_validate(int fd, uint64_t size, const std::string& path, const char* label,
                             uint32_t expected_kind) {
    FileHeader h;
    std::memset(&h, 0, sizeof h);
    if (size < sizeof(FileHeader) + 0) {
        if (size > 0 && pread_full(fd, &h, size_t(size), 0) && all_zero(fd, size))
            fail(Errc::corrupted,
                 "file \"%s\" of shared object \"%s\" is incomplete: an empty file left by an interrupted create; "
                 "remove it and retry",
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

}  // namespace

const char* kind_name(uint32_t kind) {
    switch (kind) {
        case uint32_t(Kind::bloom): return "bloom";
        case uint32_t(Kind::cbf): return "cbf";
        case uint32_t(Kind::reservoir): return "reservoir";
        case uint32_t(Kind::test): return "test";
        default: return nullptr;
    }
}

void register_kind(Kind kind, GeometryValidator validator, LockWordsReset reset_lock_words) {
    const int ki = kind_index(uint32_t(kind));
    validators[ki] = validator;
    lock_words_resets[ki] = reset_lock_words;
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

void create_file(const std::string& path, const char* label, const CreateSpec& spec, Existing existing) {
    const int ki = kind_index(uint32_t(spec.kind));
    if (ki < 0 || validators[ki] == nullptr) fail(Errc::internal, "unknown shared object kind %u", uint32_t(spec.kind));
    if (spec.geometry_len > kGeometryBytes) fail(Errc::internal, "geometry too large");
    if (spec.payload_bytes > kMaxPayloadBytes)
        fail(Errc::program_limit, "shared object \"%s\" would need %llu bytes; the limit is %llu", label,
             (unsigned long long)spec.payload_bytes, (unsigned long long)kMaxPayloadBytes);
    validators[ki](label, spec.geometry, spec.geometry_len, spec.payload_bytes);
    const uint64_t total = file_bytes(spec.payload_bytes);
    const char* p = path.c_str();

    int fd = -1;
    bool created = false;
    for (int attempt = 0; fd < 0; ++attempt) {
        fd = open(p, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0) {
            created = true;
            break;
        }
        if (errno != EEXIST)
            fail(Errc::io_error, "could not create file \"%s\" for shared object \"%s\": %s", p, label,
                 errstr(errno).c_str());
        // Something is there already.
        int efd = open(p, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
        if (efd < 0) {
            if (errno == ELOOP)
                fail(Errc::corrupted, "file \"%s\" of shared object \"%s\" is a symbolic link; refusing to follow it",
                     p, label);
            if (errno == ENOENT && attempt < 3) continue;  // removed meanwhile
            fail(Errc::io_error, "could not open existing file \"%s\" of shared object \"%s\": %s", p, label,
                 errstr(errno).c_str());
        }
        Fd guard(efd);
        struct stat st;
        if (fstat(efd, &st) != 0 || !S_ISREG(st.st_mode))
            fail(Errc::corrupted, "\"%s\" exists and is not a regular file; left untouched", p);
        const uint64_t size = uint64_t(st.st_size);
        if (st.st_uid == geteuid() && (size == 0 || (size == total && all_zero(efd, size)))) {
            // An empty file, or the full-size all-zero file of an interrupted create: adopt it.
            if (fchmod(efd, 0600) != 0)
                fail(Errc::io_error, "could not chmod \"%s\": %s", p, errstr(errno).c_str());
            fd = guard.fd;
            guard.fd = -1;
            break;
        }
        FileHeader h;
        std::memset(&h, 0, sizeof h);
        if (!pread_full(efd, &h, size_t(std::min<uint64_t>(size, sizeof h)), 0))
            fail(Errc::io_error, "could not read \"%s\": %s", p, errstr(errno).c_str());
        if (h.magic == kMagic) {
            bool valid = true;
            try {
                validate(h, reinterpret_cast<const uint8_t*>(&h), size, path, label, 0);
            } catch (const Error&) {
                valid = false;
            }
            if (valid && existing == Existing::replace_orphan && attempt < 3) {
                // The orphan may be the file of a drop that has committed but
                // not removed it yet, still mapped by other processes: mark it
                // dropped so they let go, and unlink it only while the path
                // still names it (under the folder's lock, as the drop does).
                bool removed = false;
                {
                    DirLock lock(path);
                    struct stat now;
                    if (lstat(p, &now) == 0 && now.st_dev == st.st_dev && now.st_ino == st.st_ino) {
                        mark_dropped(efd, size);
                        if (unlink(p) != 0 && errno != ENOENT)
                            fail(Errc::io_error, "could not remove abandoned file \"%s\": %s", p,
                                 errstr(errno).c_str());
                        removed = true;
                    }
                }
                if (removed) give_back_payload(efd, size);
                continue;
            }
            fail(Errc::corrupted, "file \"%s\" for shared object \"%s\" already exists; left untouched", p, label);
        }
        if (h.magic == 0)
            fail(Errc::corrupted,
                 "file \"%s\" of shared object \"%s\" is incomplete: left by an interrupted create; remove it and "
                 "retry",
                 p, label);
        fail(Errc::corrupted, "file \"%s\" exists and is not a sketchshare object file; left untouched", p);
    }

    Fd guard(fd);
    auto abandon = [&](const char* what, int err) {
        if (created) unlink(p);
        fail(err == ENOSPC ? Errc::program_limit : Errc::io_error,
             "could not %s file \"%s\" of shared object \"%s\" (%llu bytes): %s", what, p, label,
             (unsigned long long)total, errstr(err).c_str());
    };
    if (int err = posix_fallocate(fd, 0, off_t(total))) abandon("reserve space for", err);

    std::vector<uint8_t> head(kHeaderBytes, 0);
    auto* h = reinterpret_cast<FileHeader*>(head.data());
    h->magic = 0;
    h->version = kFormatVersion;
    h->kind = uint32_t(spec.kind);
    h->header_bytes = kHeaderBytes;
    h->geometry_len = spec.geometry_len;
    h->total_bytes = total;
    h->payload_offset = kHeaderBytes;
    h->payload_bytes = spec.payload_bytes;
    h->file_id = spec.file_id;
    std::memcpy(h->geometry, spec.geometry, spec.geometry_len);
    h->checksum = header_checksum(*h);
    h->flags = spec.initial_flags;
    h->created_run = spec.run;
    // The whole file is written (the payload as zeros if there is no initial
    // one), in writes that start and end on 2 MiB boundaries, header included
    // in the first. That leaves no unwritten extents behind posix_fallocate
    // (whose first write through a mapping costs a journalled conversion) and
    // fills the page cache with large folios, which the kernel maps with one
    // PMD entry per 2 MiB: a backend that attaches the object takes a few page
    // faults instead of one per 4 KiB page (each of them an ext4 page_mkwrite),
    // which dominated the cost of adds from new connections.
    write_aligned(fd, head.data(), spec.initial_payload, spec.payload_bytes, spec.stop, abandon);
    if (spec.durable && fdatasync(fd) != 0) abandon("sync", errno);
    const uint64_t magic = kMagic;
    if (!pwrite_full(fd, &magic, sizeof magic, 0)) abandon("write the header of", errno);
    if (spec.durable) {
        if (fdatasync(fd) != 0) abandon("sync", errno);
        fsync_dir(path);
    }
}

FileHeader read_header(const std::string& path, const char* label, uint32_t expected_kind) {
    uint64_t size = 0;
    Fd fd(open_existing(path, label, false, &size));
    return read_and_validate(fd.fd, size, path, label, expected_kind);
}

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
        std::memset(m.slots(), 0, kReaderSlots * sizeof(uint32_t));
        std::memset(m.base + kStripesOffset, 0, kItemStripes * sizeof(uint32_t));
        if (LockWordsReset reset = lock_words_resets[kind_index(h->kind)]) reset(m.payload());
        __atomic_store_n(&h->lock_run, run, __ATOMIC_RELEASE);
    }
    flock(fd, LOCK_UN);
}

}  // namespace

Mapping attach_file(const std::string& path, const char* label, uint32_t expected_kind, bool writable,
                    uint64_t run) {
    uint64_t size = 0;
    Fd fd(open_existing(path, label, writable, &size));
    FileHeader h = read_and_validate(fd.fd, size, path, label, expected_kind);
    void* base = mmap(nullptr, size_t(h.total_bytes), PROT_READ | (writable ? PROT_WRITE : 0), MAP_SHARED, fd.fd, 0);
    if (base == MAP_FAILED)
        fail(errno == ENOMEM ? Errc::out_of_memory : Errc::io_error,
             "could not map file \"%s\" of shared object \"%s\": %s", path.c_str(), label, errstr(errno).c_str());
#ifdef MADV_HUGEPAGE
    // Pages not in the page cache yet (after a reboot) are then read in as
    // 2 MiB folios and mapped whole, as create_file leaves them. Advice only:
    // ignored where transparent huge pages are off or unsupported.
    if (h.total_bytes >= kFolioBytes) (void)madvise(base, size_t(h.total_bytes), MADV_HUGEPAGE);
#endif
    Mapping m;
    m.base = static_cast<uint8_t*>(base);
    m.size = h.total_bytes;
    m.writable = writable;
    if (writable) {
        try {
            adopt_lock(fd.fd, m, run, label);
        } catch (...) {
            unmap(m);
            throw;
        }
    }
    return m;
}

void unmap(Mapping& m) noexcept {
    if (m.base != nullptr) munmap(m.base, size_t(m.size));
    m.base = nullptr;
    m.size = 0;
}

void sync_mapping(const Mapping& m, const char* label) {
    if (msync(m.base, size_t(m.size), MS_SYNC) != 0)
        fail(Errc::io_error, "could not sync shared object \"%s\": %s", label, errstr(errno).c_str());
}

void copy_file(const std::string& from, const std::string& to, const char* label, bool require_frozen,
               uint64_t new_file_id, uint64_t run, uint64_t max_bytes) {
    uint64_t size = 0;
    Fd in(open_existing(from, label, false, &size));
    FileHeader h = read_and_validate(in.fd, size, from, label, 0);
    if (require_frozen && !(h.flags & kFrozen))
        fail(Errc::object_state, "file \"%s\" holds a shared object that is not frozen; freeze it first",
             from.c_str());
    if (h.total_bytes > max_bytes)
        fail(Errc::program_limit, "file \"%s\" has %llu bytes, more than the %llu allowed (did it change?)",
             from.c_str(), (unsigned long long)h.total_bytes, (unsigned long long)max_bytes);
    Fd out(open(to.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (out.fd < 0)
        fail(Errc::io_error, "could not create file \"%s\": %s", to.c_str(),
             errno == EEXIST ? "it already exists" : errstr(errno).c_str());
    auto abandon = [&](const char* what, int err) {
        unlink(to.c_str());
        fail(err == ENOSPC ? Errc::program_limit : Errc::io_error, "could not %s \"%s\": %s", what, to.c_str(),
             errstr(err).c_str());
    };
    if (int err = posix_fallocate(out.fd, 0, off_t(h.total_bytes))) abandon("reserve space for", err);
    std::vector<uint8_t> buf(kFolioBytes);
    for (uint64_t off = kHeaderBytes; off < h.total_bytes;) {  // 2 MiB aligned writes: see write_aligned
        size_t chunk = size_t(std::min<uint64_t>(h.total_bytes, (off / kFolioBytes + 1) * kFolioBytes) - off);
        if (!pread_full(in.fd, buf.data(), chunk, off_t(off))) abandon("read the source of", errno ? errno : EIO);
        if (!pwrite_full(out.fd, buf.data(), chunk, off_t(off))) abandon("write", errno);
        off += chunk;
    }
    // A clean header: new identity, free lock, no reader slots, frozen.
    std::vector<uint8_t> head(kHeaderBytes, 0);
    auto* nh = reinterpret_cast<FileHeader*>(head.data());
    std::memcpy(nh, &h, offsetof(FileHeader, checksum));
    nh->magic = 0;
    nh->file_id = new_file_id;
    nh->checksum = header_checksum(*nh);
    nh->flags = h.flags & kFrozen;
    nh->ops = h.ops;
    nh->created_run = run;
    if (!pwrite_full(out.fd, head.data(), head.size(), 0)) abandon("write", errno);
    if (fdatasync(out.fd) != 0) abandon("sync", errno);
    const uint64_t magic = kMagic;
    if (!pwrite_full(out.fd, &magic, sizeof magic, 0) || fdatasync(out.fd) != 0) abandon("write", errno);
    fsync_dir(to);
}

namespace {

// remove_file's decision and unlink, under the folder's lock. An object file
// (this format's magic) is marked dropped first, and its descriptor handed
// out in *dropped_fd (else -1) with its size, for give_back_payload.
bool unlink_if_ours(const std::string& path, uint64_t file_id, bool remains, int* dropped_fd,
                    uint64_t* dropped_size) noexcept {
    *dropped_fd = -1;
    const char* p = path.c_str();
    DirLock lock(path);
    struct stat st;
    if (lstat(p, &st) != 0) return false;
    const bool any = file_id == 0;
    // A symlink planted at the path: the link goes, never what it points to.
    if (S_ISLNK(st.st_mode)) return (any || remains) && unlink(p) == 0;
    if (!S_ISREG(st.st_mode)) return false;
    int fd = open(p, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return false;
    Fd guard(fd);
    if (fstat(fd, &st) != 0) return false;
    const uint64_t size = uint64_t(st.st_size);
    FileHeader h;
    std::memset(&h, 0, sizeof h);
    if (!pread_full(fd, &h, size_t(std::min<uint64_t>(size, sizeof h)), 0)) return false;
    constexpr uint64_t kIdEnd = offsetof(FileHeader, file_id) + sizeof(uint64_t);
    bool ours = remains;
    if (any) {
        ours = true;
    } else if (h.magic == kMagic && size >= kIdEnd) {
        ours = h.file_id == file_id;  // another incarnation is not ours to remove
    } else if (h.magic == 0) {
        // Zeros where the magic goes (or an empty file): possibly a create
        // of the name in progress, which writes the magic last. Left for the
        // next create, which adopts or reports it.
        ours = false;
    }
    // Anything else (too short for a header, a wrong magic) is, at a drop's
    // commit (remains), what damage left of the dropped object's file: no
    // create writes such a file, and the name is free for a new one only once
    // it is gone. (At the rollback of a create it may be a foreign file that
    // the create refused to replace, and it stays.)
    if (!ours) return false;
    if (h.magic != kMagic) return unlink(p) == 0;
    mark_dropped(fd, size);
    if (unlink(p) != 0) return false;
    *dropped_fd = fd;
    *dropped_size = size;
    guard.fd = -1;
    return true;
}

}  // namespace

// The payload's blocks are given back after the folder's lock is released:
// that may wait for the object's lock, and other names' creates and drops
// need the folder's.
bool remove_file(const std::string& path, uint64_t file_id, bool remains) noexcept {
    int fd = -1;
    uint64_t size = 0;
    if (!unlink_if_ours(path, file_id, remains, &fd, &size)) return false;
    Fd guard(fd);
    if (fd >= 0) give_back_payload(fd, size);
    return true;
}

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
