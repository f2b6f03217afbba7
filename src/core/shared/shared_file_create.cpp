// Object files: creating one (create_file), copying one in (copy_file),
// removing one (remove_file), the handling of creates left unfinished. The
// header, its validation and the mapping are in shared_file.cpp, the
// folders' listings in shared_folders.cpp.
#include "shared/shared_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "shared/shared_file_internal.hpp"
#include "error.hpp"

namespace sketch {
namespace shared {

namespace {

// Writes the header block (kHeaderBytes of `head`) and the payload (`payload`,
// or zeros if it is null) in writes aligned to kFolioBytes of the file: every
// piece after the first, then the first, which holds the header (the magic
// still zero: create_file writes it last). stop (may be null) is polled
// between pieces; when it returns true the create is abandoned. Calls
// abandon(what, errno) on failure.
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

// A create holds an exclusive flock on its file from the moment the file
// appears until the header's magic is written: whoever finds a file without
// the magic can tell a create in progress (the lock is held) from one whose
// process is gone, killed or crashed in whatever server run (the kernel
// released the lock). The file is made and locked under the folder's lock,
// which every removal takes, so no one sees it unlocked in between.
int open_new_locked(const std::string& path) {
    DirLock lock(path);
    int fd = open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) (void)flock(fd, LOCK_EX | LOCK_NB);  // a new file: no one else can hold it
    return fd;
}

// A header read from a file (zeros past the file's end) without the magic:
// what a create leaves until it finishes.
bool unfinished(const FileHeader& h) { return h.magic == 0; }

// For an unfinished file open as fd: true if its creator is gone, and fd then
// holds the creation lock (until it is closed).
bool creator_gone(int fd) { return flock(fd, LOCK_EX | LOCK_NB) == 0; }

enum class Leftover { none, removed, in_progress };

// Removes path, under the folder's lock, if it is an unfinished create whose
// creator is gone; in_progress if its creator is still at work.
Leftover remove_if_abandoned(const std::string& path) noexcept {
    const char* p = path.c_str();
    DirLock lock(path);
    // O_NONBLOCK: a FIFO placed here must not hang the call.
    Fd fd(open(p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
    struct stat st;
    if (fd.fd < 0 || fstat(fd.fd, &st) != 0 || !S_ISREG(st.st_mode)) return Leftover::none;
    FileHeader h;
    std::memset(&h, 0, sizeof h);
    if (!pread_full(fd.fd, &h, size_t(std::min<uint64_t>(uint64_t(st.st_size), sizeof h.magic)), 0) ||
        !unfinished(h))
        return Leftover::none;
    if (!creator_gone(fd.fd)) return Leftover::in_progress;
    return unlink(p) == 0 ? Leftover::removed : Leftover::none;
}

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

// ---- create_file, in pieces ----

// The kind, geometry and size of a new object, checked before anything is
// touched.
void check_spec(const char* label, const CreateSpec& spec) {
    const GeometryValidator validator = validator_of(uint32_t(spec.kind));
    if (validator == nullptr) fail(Errc::internal, "unknown shared object kind %u", uint32_t(spec.kind));
    if (spec.geometry_len > kGeometryBytes) fail(Errc::internal, "geometry too large");
    if (std::max(spec.payload_bytes, spec.grown_payload_bytes) > kMaxPayloadBytes)
        fail(Errc::program_limit, "shared object \"%s\" would need %llu bytes; the limit is %llu", label,
             (unsigned long long)std::max(spec.payload_bytes, spec.grown_payload_bytes),
             (unsigned long long)kMaxPayloadBytes);
    validator(label, spec.geometry, spec.geometry_len, spec.payload_bytes);
}

// Replaces the orphan at the path (a valid object file no committed object
// names), open as efd, of size bytes, st its stat.
void replace_orphan(const std::string& path, int efd, const struct stat& st, uint64_t size) {
    const char* p = path.c_str();
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
                fail(Errc::io_error, "could not remove abandoned file \"%s\": %s", p, errstr(errno).c_str());
            removed = true;
        }
    }
    if (removed) give_back_payload(efd, size);
}

// What is at the path when create_file cannot make its file there (EEXIST):
// an orphan (Existing::replace_orphan) or an unfinished create whose process
// is gone is removed, and the caller tries again (attempt: the tries made
// before); a file removed meanwhile is tried again too. Anything else is left
// untouched and refused.
void make_way(const std::string& path, const char* label, Existing existing, int attempt) {
    const char* p = path.c_str();
    // Something is there already.
    int efd = open(p, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (efd < 0) {
        if (errno == ELOOP)
            fail(Errc::corrupted, "file \"%s\" of shared object \"%s\" is a symbolic link; refusing to follow it",
                 p, label);
        if (errno == ENOENT && attempt < 3) return;  // removed meanwhile
        fail(Errc::io_error, "could not open existing file \"%s\" of shared object \"%s\": %s", p, label,
             errstr(errno).c_str());
    }
    Fd guard(efd);
    struct stat st;
    if (fstat(efd, &st) != 0 || !S_ISREG(st.st_mode))
        fail(Errc::corrupted, "\"%s\" exists and is not a regular file; left untouched", p);
    const uint64_t size = uint64_t(st.st_size);
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
            replace_orphan(path, efd, st, size);
            return;
        }
        fail(Errc::corrupted, "file \"%s\" for shared object \"%s\" already exists; left untouched", p, label);
    }
    if (unfinished(h)) {
        // A create that never finished (its process killed, or the server
        // crashed) is replaced; one still at work is not.
        if (remove_if_abandoned(path) == Leftover::in_progress)
            fail(Errc::object_in_use, "shared object \"%s\" is being created by another process", label);
        if (attempt < 3) return;
        fail(Errc::corrupted, "file \"%s\" of shared object \"%s\" is incomplete and could not be removed", p,
             label);
    }
    fail(Errc::corrupted, "file \"%s\" exists and is not a sketchshare object file; left untouched", p);
}

// Makes the new file at the path, locked (open_new_locked), once what was
// there is out of the way (make_way).
int open_new_file(const std::string& path, const char* label, Existing existing) {
    const char* p = path.c_str();
    int fd = -1;
    for (int attempt = 0; fd < 0; ++attempt) {
        fd = open_new_locked(path);
        if (fd >= 0) break;
        if (errno != EEXIST)
            fail(Errc::io_error, "could not create file \"%s\" for shared object \"%s\": %s", p, label,
                 errstr(errno).c_str());
        make_way(path, label, existing, attempt);
    }
    return fd;
}

// Writes the new file (fd, made by open_new_file): its blocks reserved, the
// header and payload, the magic last. On failure the file is removed.
void write_new_file(int fd, const std::string& path, const char* label, const CreateSpec& spec) {
    const uint64_t payload = std::max(spec.payload_bytes, spec.grown_payload_bytes);
    const uint64_t total = file_bytes(payload);
    const char* p = path.c_str();
    auto abandon = [&](const char* what, int err) {
        unlink(p);
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
    h->total_bytes = file_bytes(spec.payload_bytes);
    h->payload_offset = kHeaderBytes;
    h->payload_bytes = spec.payload_bytes;
    h->file_id = spec.file_id;
    std::memcpy(h->geometry, spec.geometry, spec.geometry_len);
    h->checksum = header_checksum(*h);
    h->flags = spec.initial_flags;
    h->item_class = spec.item_class;
    h->ops = spec.ops;
    h->subfilters = spec.subfilters;
    h->held = spec.held;
    h->created_run = spec.run;
    // The whole file is written (the payload as zeros if there is no initial
    // one), in writes that start and end on 2 MiB boundaries, header included
    // in the first. That leaves no unwritten extents behind posix_fallocate
    // (whose first write through a mapping costs a journalled conversion) and
    // fills the page cache with large folios, which the kernel maps with one
    // PMD entry per 2 MiB: a backend that attaches the object takes a few page
    // faults instead of one per 4 KiB page (each of them an ext4 page_mkwrite),
    // which dominated the cost of adds from new connections.
    write_aligned(fd, head.data(), spec.initial_payload, payload, spec.stop, abandon);
    if (spec.durable && fdatasync(fd) != 0) abandon("sync", errno);
    const uint64_t magic = kMagic;
    if (!pwrite_full(fd, &magic, sizeof magic, 0)) abandon("write the header of", errno);
    if (spec.durable) {
        if (fdatasync(fd) != 0) abandon("sync", errno);
        fsync_dir(path);
    }
}

}  // namespace

void create_file(const std::string& path, const char* label, const CreateSpec& spec, Existing existing) {
    check_spec(label, spec);
    Fd guard(open_new_file(path, label, existing));
    write_new_file(guard.fd, path, label, spec);
}

void copy_file(const std::string& from, const std::string& to, const char* label, bool require_frozen,
               uint64_t new_file_id, uint64_t run, uint64_t max_bytes, bool (*stop)()) {
    uint64_t size = 0;
    Fd in(open_existing(from, label, false, &size));
    FileHeader h = read_and_validate(in.fd, size, from, label, 0);
    if (require_frozen && !(h.flags & kFrozen))
        fail(Errc::object_state, "file \"%s\" holds a shared object that is not frozen; freeze it first",
             from.c_str());
    const uint64_t used = used_bytes(h);  // an unpublished tail is not copied
    if (used > max_bytes)
        fail(Errc::program_limit, "file \"%s\" has %llu bytes, more than the %llu allowed (did it change?)",
             from.c_str(), (unsigned long long)used, (unsigned long long)max_bytes);
    Fd out(open_new_locked(to));
    if (out.fd < 0)
        fail(Errc::io_error, "could not create file \"%s\": %s", to.c_str(),
             errno == EEXIST ? "it already exists" : errstr(errno).c_str());
    auto abandon = [&](const char* what, int err) {
        unlink(to.c_str());
        fail(err == ENOSPC ? Errc::program_limit : Errc::io_error, "could not %s \"%s\": %s", what, to.c_str(),
             errstr(err).c_str());
    };
    if (int err = posix_fallocate(out.fd, 0, off_t(used))) abandon("reserve space for", err);
    std::vector<uint8_t> buf(kFolioBytes);
    for (uint64_t off = kHeaderBytes; off < used;) {  // 2 MiB aligned writes: see write_aligned
        if (stop != nullptr && stop()) abandon("finish (interrupted) the copy to", EINTR);
        size_t chunk = size_t(std::min<uint64_t>(used, (off / kFolioBytes + 1) * kFolioBytes) - off);
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
    nh->item_class = h.item_class;
    nh->subfilters = h.subfilters;
    nh->held = h.held;
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
    } else if (unfinished(h)) {
        // A create that has not written the magic yet: removed only once its
        // process is gone, never while it is at work on the name.
        ours = creator_gone(fd);
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

bool remove_abandoned_create(const std::string& path) noexcept {
    return remove_if_abandoned(path) == Leftover::removed;
}

}  // namespace shared
}  // namespace sketch