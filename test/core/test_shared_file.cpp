// The object file: create, attach with validation, damaged and symlinked
// files refused and left untouched, interrupted-create recovery.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <set>
#include <csignal>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include "error.hpp"
#include "shared/shared_file.hpp"
#include "test_shared_test_kind.hpp"

namespace sh = sketch::shared;

namespace {

constexpr uint64_t kRun = 1;  // the server run the tests map files in

class SharedFile : public TestKindFiles {
protected:
    static std::string slurp(const std::string& p) {
        std::ifstream in(p, std::ios::binary);
        return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    }
    static void spit(const std::string& p, const std::string& bytes) {
        std::ofstream out(p, std::ios::binary | std::ios::trunc);
        out.write(bytes.data(), std::streamsize(bytes.size()));
    }
    // The error message of attaching p, "" if it attaches.
    static std::string attach_error(const std::string& p) {
        try {
            sh::Mapping m = sh::attach_file(p, "obj", 0, true, kRun);
            sh::unmap(m);
            return "";
        } catch (const sketch::Error& e) {
            return e.what();
        }
    }
    // Damages a good file with f, then checks attach's message and that the file is untouched.
    template <typename F>
    void expect_refused(F damage, const char* message_part) {
        std::string p = path("victim");
        unlink(p.c_str());
        sh::create_file(p, "obj", spec(), sh::Existing::refuse);
        std::string bytes = slurp(p);
        damage(bytes);
        spit(p, bytes);
        std::string msg = attach_error(p);
        EXPECT_NE(msg.find(message_part), std::string::npos) << msg;
        EXPECT_EQ(slurp(p), bytes) << "the file must be left untouched";
    }
};

TEST_F(SharedFile, CreateThenAttach) {
    std::string p = path("a");
    sh::create_file(p, "a", spec(42), sh::Existing::refuse);
    struct stat st;
    ASSERT_EQ(lstat(p.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    EXPECT_EQ(uint64_t(st.st_size), sh::kHeaderBytes + geometry);
    EXPECT_GE(uint64_t(st.st_blocks) * 512, uint64_t(st.st_size));  // blocks reserved up front
    sh::Mapping m = sh::attach_file(p, "a", uint32_t(sh::Kind::test), true, kRun);
    EXPECT_EQ(m.header()->magic, sh::kMagic);
    EXPECT_EQ(m.header()->file_id, 42u);
    EXPECT_EQ(m.header()->payload_bytes, geometry);
    EXPECT_EQ(uint64_t(m.payload() - m.base), uint64_t(sh::kHeaderBytes));
    m.payload()[5] = 9;  // writes reach the file
    sh::sync_mapping(m, "a");
    sh::unmap(m);
    EXPECT_EQ(slurp(p)[sh::kHeaderBytes + 5], 9);
    EXPECT_EQ(sh::read_header(p, "a", 0).file_id, 42u);
}

TEST_F(SharedFile, InitialPayloadAndFlags) {
    std::vector<uint8_t> payload(geometry, 0xab);
    sh::CreateSpec s = spec();
    s.initial_payload = payload.data();
    s.initial_flags = sh::kFrozen;
    sh::create_file(path("b"), "b", s, sh::Existing::refuse);
    sh::Mapping m = sh::attach_file(path("b"), "b", 0, false, kRun);
    EXPECT_EQ(m.payload()[geometry - 1], 0xab);
    EXPECT_EQ(sh::load_flags(m.header()), uint32_t(sh::kFrozen));
    sh::unmap(m);
}

TEST_F(SharedFile, ExistingFilesAreNotClobbered) {
    std::string p = path("c");
    sh::create_file(p, "c", spec(1), sh::Existing::refuse);
    EXPECT_THROW(sh::create_file(p, "c", spec(2), sh::Existing::refuse), sketch::Error);
    EXPECT_EQ(sh::read_header(p, "c", 0).file_id, 1u);
    // An abandoned (orphan) object file is replaced when the caller knows it is one.
    sh::create_file(p, "c", spec(3), sh::Existing::replace_orphan);
    EXPECT_EQ(sh::read_header(p, "c", 0).file_id, 3u);
    // A foreign file is never replaced.
    spit(path("d"), "hello, world");
    EXPECT_THROW(sh::create_file(path("d"), "d", spec(), sh::Existing::replace_orphan), sketch::Error);
    EXPECT_EQ(slurp(path("d")), "hello, world");
}

TEST_F(SharedFile, SymlinksAreRefused) {
    std::string target = path("target");
    sh::create_file(target, "t", spec(), sh::Existing::refuse);
    std::string before = slurp(target);
    std::string link = path("link");
    ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
    EXPECT_NE(attach_error(link).find("symbolic link"), std::string::npos);
    try {
        sh::create_file(link, "link", spec(), sh::Existing::replace_orphan);
        ADD_FAILURE() << "create through a symlink succeeded";
    } catch (const sketch::Error& e) {
        EXPECT_NE(std::string(e.what()).find("symbolic link"), std::string::npos) << e.what();
    }
    // a dangling symlink is refused too (O_EXCL|O_NOFOLLOW), creating nothing
    std::string dangling = path("dangling");
    ASSERT_EQ(symlink(path("nowhere").c_str(), dangling.c_str()), 0);
    EXPECT_THROW(sh::create_file(dangling, "x", spec(), sh::Existing::refuse), sketch::Error);
    EXPECT_NE(access(path("nowhere").c_str(), F_OK), 0);
    EXPECT_EQ(slurp(target), before);
}

TEST_F(SharedFile, DamagedFilesAreRefusedAndLeftUntouched) {
    expect_refused([](std::string& b) { b.resize(b.size() - 100); }, "truncated");
    expect_refused([](std::string& b) { b.resize(100); }, "truncated");
    expect_refused([](std::string& b) { b.append(4096, '\0'); }, "extended");
    expect_refused([](std::string& b) { b[0] ^= 0x20; }, "wrong magic");
    expect_refused(
        [](std::string& b) {
            uint64_t swapped = __builtin_bswap64(sh::kMagic);
            std::memcpy(&b[0], &swapped, 8);
        },
        "other byte order");
    expect_refused(
        [](std::string& b) {
            uint32_t v = 2;
            std::memcpy(&b[offsetof(sh::FileHeader, version)], &v, 4);
        },
        "format version 2");
    expect_refused([](std::string& b) { b[offsetof(sh::FileHeader, geometry)] ^= 1; }, "checksum");
    expect_refused([](std::string& b) { b[offsetof(sh::FileHeader, payload_bytes)] ^= 1; }, "checksum");
    expect_refused([](std::string& b) { std::memset(&b[0], 0, sh::kHeaderBytes); }, "interrupted create");
    expect_refused([](std::string& b) { std::memset(&b[0], 0, 8); }, "partly written header");
}

// A mapping keeps the header it validated: an edit of the mapped header
// (the geometry, or the geometry with its checksum rewritten) changes
// nothing it reads, and file_changed sees it, as it sees the file truncated
// (even below the header, which it must not read then), extended, replaced,
// removed or a symbolic link put in its place: through the descriptor the
// mapping keeps, and through the path once that is let go of. Put back byte
// for byte, the file is unchanged again.
class MappedFileChanges : public SharedFile, public ::testing::WithParamInterface<bool> {
protected:
    // Maps a new file `name`, keeping its descriptor or not (the parameter).
    sh::Mapping map_new(const std::string& p, uint64_t file_id) {
        sh::create_file(p, "m", spec(file_id), sh::Existing::refuse);
        sh::Mapping m = sh::attach_file(p, "m", 0, true, kRun);
        EXPECT_GE(m.fd, 0);
        if (!GetParam()) sh::drop_descriptor(m);
        return m;
    }
};

TEST_P(MappedFileChanges, AreSeenAndTheValidatedHeaderKept) {
    const std::string p = path("m");
    sh::Mapping m = map_new(p, 21);
    EXPECT_EQ(m.fixed.file_id, 21u);
    ASSERT_EQ(m.fixed.geometry_len, sizeof geometry);
    EXPECT_EQ(std::memcmp(m.fixed.geometry, &geometry, sizeof geometry), 0);
    EXPECT_FALSE(sh::file_changed(m, p.c_str()));
    m.payload()[3] = 1;  // the payload and the mutable words are the objects' to change
    sh::set_flags(m.header(), sh::kFrozen);
    sh::add_ops(m.header(), 1, 1);
    EXPECT_FALSE(sh::file_changed(m, p.c_str()));
    const std::string used = slurp(p);

    // edits of the mapped header, then the file put back in place
    auto expect_edit_seen = [&](auto edit, const char* what) {
        edit(m.header());
        EXPECT_TRUE(sh::file_changed(m, p.c_str())) << what;
        EXPECT_EQ(std::memcmp(m.fixed.geometry, &geometry, sizeof geometry), 0) << what;
        EXPECT_EQ(m.fixed.geometry_len, sizeof geometry) << what;
        spit(p, used);
        EXPECT_FALSE(sh::file_changed(m, p.c_str())) << what << ", put back";
    };
    expect_edit_seen([](sh::FileHeader* h) { h->geometry[0] ^= 1; }, "geometry");
    expect_edit_seen(
        [](sh::FileHeader* h) {
            h->geometry[1] ^= 1;
            h->checksum = sh::header_checksum(*h);
        },
        "geometry and checksum");
    expect_edit_seen([](sh::FileHeader* h) { h->checksum ^= 1; }, "checksum");
    expect_edit_seen([](sh::FileHeader* h) { h->payload_bytes *= 2; }, "payload size");
    expect_edit_seen([](sh::FileHeader* h) { h->magic = 0; }, "magic");

    // the file's size
    auto expect_seen = [&](const std::string& command, const char* what) {
        ASSERT_EQ(std::system(command.c_str()), 0) << command;
        EXPECT_TRUE(sh::file_changed(m, p.c_str())) << what;
        spit(p, used);
        EXPECT_FALSE(sh::file_changed(m, p.c_str())) << what << ", put back";
    };
    const std::string size = std::to_string(sh::kHeaderBytes + geometry);
    expect_seen("truncate -s " + std::to_string(sh::kHeaderBytes) + " " + p, "truncated to its header");
    expect_seen("truncate -s 0 " + p, "truncated to nothing");
    expect_seen("truncate -s 0 " + p + " && truncate -s " + size + " " + p, "truncated and extended back");
    expect_seen("truncate -s " + size + "0 " + p, "extended");
    sh::unmap(m);
    EXPECT_EQ(m.fd, -1);

    // the file removed or replaced at its path
    auto expect_gone = [&](const char* name, const std::string& command, const char* what) {
        const std::string q = path(name);
        sh::Mapping g = map_new(q, 22);
        EXPECT_FALSE(sh::file_changed(g, q.c_str())) << what;
        std::string run = command;
        for (size_t at; (at = run.find('@')) != std::string::npos;) run.replace(at, 1, q);
        ASSERT_EQ(std::system(run.c_str()), 0) << run;
        EXPECT_TRUE(sh::file_changed(g, q.c_str())) << what;
        sh::unmap(g);
    };
    expect_gone("r1", "cp @ @.new && mv @.new @", "replaced");
    expect_gone("r2", "rm @", "removed");
    expect_gone("r3", "rm @ && touch @", "another file at its path");
}

INSTANTIATE_TEST_SUITE_P(SharedFile, MappedFileChanges, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "descriptor" : "path"; });

// A kind's validator runs the core's checks of its geometry through naming,
// so that a refused geometry names the object, with the check's code.
TEST(SharedGeometry, ValidatorsNameTheObject) {
    try {
        sh::naming("seen", [] { sketch::fail(sketch::Errc::corrupted, "counting Bloom filter has 0 hashes"); });
        ADD_FAILURE() << "no error";
    } catch (const sketch::Error& e) {
        EXPECT_EQ(e.code(), sketch::Errc::corrupted);
        EXPECT_STREQ(e.what(), "shared object \"seen\": counting Bloom filter has 0 hashes");
    }
    EXPECT_EQ(sh::naming("seen", [] { return 7; }), 7);
}

TEST_F(SharedFile, WrongKindIsRefused) {
    sh::create_file(path("k"), "k", spec(), sh::Existing::refuse);
    try {
        sh::attach_file(path("k"), "k", uint32_t(sh::Kind::cbf), true, kRun);
        ADD_FAILURE();
    } catch (const sketch::Error& e) {
        EXPECT_NE(std::string(e.what()).find("holds a test, not a cbf"), std::string::npos) << e.what();
    }
}

// A file without the magic is what a create leaves until it finishes; its
// creator holds an exclusive flock on it meanwhile. Nobody holding it: the
// creator is gone, and the next create replaces the file, whatever it holds.
TEST_F(SharedFile, AbandonedCreateIsReplaced) {
    const uint64_t total = sh::kHeaderBytes + geometry;
    std::string partial(total - 4096, '\0');  // another size, a partly written header, data
    partial[8] = 1;
    partial[12] = 2;
    partial[partial.size() - 1] = 3;
    const std::pair<const char*, std::string> leftovers[] = {
        {"zero", std::string(total, '\0')}, {"empty", ""}, {"short", std::string(5, '\0')}, {"partial", partial}};
    uint64_t id = 5;
    for (const auto& [name, bytes] : leftovers) {
        spit(path(name), bytes);
        sh::create_file(path(name), name, spec(id), sh::Existing::refuse);
        EXPECT_EQ(sh::read_header(path(name), name, 0).file_id, id) << name;
        EXPECT_EQ(slurp(path(name)).size(), total) << name;
        ++id;
    }
}

// ... while a live creator holds it, the file is a create in progress: a
// create of the name is refused (object_in_use), a removal leaves it, and
// neither touches it.
TEST_F(SharedFile, CreateInProgressIsLeftAlone) {
    const std::string p = path("busy");
    const std::string bytes(sh::kHeaderBytes + geometry, '\0');
    spit(p, bytes);
    const int holder = open(p.c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(holder, 0);
    ASSERT_EQ(flock(holder, LOCK_EX | LOCK_NB), 0);
    try {
        sh::create_file(p, "busy", spec(), sh::Existing::replace_orphan);
        ADD_FAILURE();
    } catch (const sketch::Error& e) {
        EXPECT_EQ(e.code(), sketch::Errc::object_in_use);
        EXPECT_NE(std::string(e.what()).find("is being created by another process"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(sh::remove_abandoned_create(p));
    sh::remove_abandoned_creates(dir);
    EXPECT_FALSE(sh::remove_file(p, 7, true)) << "a drop's commit leaves a create in progress";
    EXPECT_FALSE(sh::remove_file(p, 7)) << "so does a rollback";
    EXPECT_EQ(slurp(p), bytes);
    close(holder);  // the creator is gone
    EXPECT_TRUE(sh::remove_abandoned_create(p));
    EXPECT_NE(access(p.c_str(), F_OK), 0);
    // A drop's commit, and the sweep of a folder, remove abandoned creates too.
    spit(p, bytes);
    EXPECT_TRUE(sh::remove_file(p, 7, true));
    spit(p, bytes);
    spit(path("done"), "");
    sh::create_file(path("done"), "done", spec(8), sh::Existing::refuse);
    sh::remove_abandoned_creates(dir);
    EXPECT_NE(access(p.c_str(), F_OK), 0);
    EXPECT_EQ(sh::read_header(path("done"), "done", 0).file_id, 8u) << "a finished file stays";
}

// A file at an object name that is neither an object file nor unfinished
// (its first bytes are not zero) is never replaced.
TEST_F(SharedFile, ForeignFileIsLeftAlone) {
    std::string data(sh::kHeaderBytes + geometry, '\0');
    data[0] = 'x';
    spit(path("data"), data);
    EXPECT_THROW(sh::create_file(path("data"), "data", spec(), sh::Existing::replace_orphan), sketch::Error);
    EXPECT_FALSE(sh::remove_abandoned_create(path("data")));
    EXPECT_EQ(slurp(path("data")), data);
}

TEST_F(SharedFile, FailedReservationLeavesNoFile) {
    // RLIMIT_FSIZE makes posix_fallocate fail (EFBIG) like a full disk would.
    std::string p = path("big");
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl{4096, 4096};
        setrlimit(RLIMIT_FSIZE, &rl);
        try {
            sh::create_file(p, "big", spec(), sh::Existing::refuse);
            _exit(1);
        } catch (const sketch::Error& e) {
            _exit(std::string(e.what()).find("could not reserve space") != std::string::npos ? 0 : 2);
        }
    }
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    EXPECT_NE(access(p.c_str(), F_OK), 0) << "no file left behind";
}

TEST_F(SharedFile, RemoveMarksDroppedForExistingMappings) {
    std::string p = path("r");
    sh::create_file(p, "r", spec(11), sh::Existing::refuse);
    sh::Mapping m = sh::attach_file(p, "r", 0, true, kRun);
    EXPECT_FALSE(sh::remove_file(p, 12));  // another incarnation: left alone
    EXPECT_EQ(access(p.c_str(), F_OK), 0);
    EXPECT_TRUE(sh::remove_file(p, 11));
    EXPECT_NE(access(p.c_str(), F_OK), 0);
    EXPECT_TRUE(sh::load_flags(m.header()) & sh::kDropped);
    sh::unmap(m);
    EXPECT_FALSE(sh::remove_file(p, 0));
}

// A removed object file's payload blocks go back at once, although a
// process still maps it (an idle backend lets go only at its next call): its
// mapping reads zeros there and still sees the header (kDropped). The hole is
// punched under the object's lock: while a live process holds it, the
// removal gives up after its bounded wait and the blocks stay.
TEST_F(SharedFile, RemoveGivesThePayloadsBlocksBack) {
    geometry = 16 << 20;
    auto blocks_of = [](int fd) {
        struct stat st;
        EXPECT_EQ(fstat(fd, &st), 0);
        return uint64_t(st.st_blocks) * 512;
    };
    auto mapped_and_filled = [&](const std::string& p, uint64_t id) {
        sh::create_file(p, "g", spec(id), sh::Existing::refuse);
        sh::Mapping m = sh::attach_file(p, "g", 0, true, kRun);
        std::memset(m.payload(), 0xab, geometry);
        return m;
    };
    std::string p = path("g");
    sh::Mapping m = mapped_and_filled(p, 41);
    int fd = open(p.c_str(), O_RDONLY);  // to see the blocks once unlinked
    ASSERT_GE(fd, 0);
    EXPECT_GE(blocks_of(fd), geometry);
    EXPECT_TRUE(sh::remove_file(p, 41));
    // at most the 2 MiB page of the file's cache that holds the header, which the kernel may keep whole
    EXPECT_LE(blocks_of(fd), uint64_t(2) << 20);
    EXPECT_EQ(m.payload()[0] | m.payload()[geometry - 1], 0);
    EXPECT_TRUE(sh::load_flags(m.header()) & sh::kDropped);
    EXPECT_EQ(m.header()->file_id, 41u);
    close(fd);
    sh::unmap(m);

    m = mapped_and_filled(p, 42);
    sketch::ReadTicket held;
    const uint32_t live = uint32_t(getppid());  // alive, and not the removing process
    ASSERT_EQ(m.lock().lock_shared(live, 0, &held), sketch::LockResult::acquired);
    fd = open(p.c_str(), O_RDONLY);
    const auto start = std::chrono::steady_clock::now();
    EXPECT_TRUE(sh::remove_file(p, 42));
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_GT(waited, 0.5);
    EXPECT_LT(waited, 5.0);
    EXPECT_GE(blocks_of(fd), geometry);
    EXPECT_EQ(m.payload()[geometry - 1], 0xab);
    EXPECT_EQ(m.lock().writer(), 0u) << "the removal let go of its claim";
    m.lock().unlock_shared(live, held);
    close(fd);
    sh::unmap(m);
}

// Lock words left by another server run (a file copied while they were held)
// are cleared by the run's first writable mapping, so a live process whose id
// they happen to name holds nothing; the kind's own words (its registered
// reset) go too. A later mapping in the same run leaves the words of that
// run's holders alone. A read-only mapping changes nothing.
TEST_F(SharedFile, AFileFromAnotherRunHasItsLockCleared) {
    sh::register_kind(sh::Kind::test, validate_test_geometry, [](uint8_t* payload) { std::memset(payload, 0, 4); });
    std::string p = path("run");
    sh::create_file(p, "run", spec(31), sh::Existing::refuse);
    const uint32_t live = uint32_t(getpid());  // alive, as an unrelated process of the new run would be
    {
        sh::Mapping old = sh::attach_file(p, "run", 0, true, kRun);
        old.header()->lock.writer = live;
        old.header()->lock.slotless = 2;
        old.header()->overflowing = 3;  // transactions of the old run, ended by its end
        old.header()->closing = 2;
        *sh::adder_slot(old.header(), 200) = 77;
        old.slots()[17] = live;
        reinterpret_cast<uint32_t*>(old.base + sh::kStripesOffset)[900] = live;
        std::memcpy(old.payload(), &live, 4);
        sh::unmap(old);
    }
    sh::Mapping ro = sh::attach_file(p, "run", 0, false, kRun + 1);
    EXPECT_EQ(ro.header()->lock.writer, live);
    EXPECT_EQ(ro.header()->lock_run, kRun);
    sh::unmap(ro);

    sh::Mapping m = sh::attach_file(p, "run", 0, true, kRun + 1);
    EXPECT_EQ(m.header()->lock_run, kRun + 1);
    EXPECT_EQ(sh::load_count(&m.header()->overflowing), 0u);
    EXPECT_EQ(sh::load_count(&m.header()->closing), 0u);
    EXPECT_EQ(sh::load_adder(m.header(), 200), 0u);
    EXPECT_EQ(m.lock().writer(), 0u);
    EXPECT_EQ(m.lock().readers(), 0u);
    EXPECT_EQ(reinterpret_cast<uint32_t*>(m.base + sh::kStripesOffset)[900], 0u);
    EXPECT_EQ(m.payload()[0] | m.payload()[3], 0);
    EXPECT_EQ(m.lock().lock_exclusive(live + 1, 0), sketch::LockResult::acquired);  // nothing to wait for
    m.lock().unlock_exclusive(live + 1);

    m.header()->lock.writer = live;  // held in this run: a second mapping of the run keeps it
    sh::Mapping again = sh::attach_file(p, "run", 0, true, kRun + 1);
    EXPECT_EQ(again.lock().writer(), live);
    sh::unmap(again);
    sh::unmap(m);
}

// A closer's page of the header maps the incarnation it names only, and
// what it writes there is what the object's mappings read.
TEST_F(SharedFile, TheHeaderPageIsTheIncarnationNamed) {
    std::string p = path("page");
    sh::create_file(p, "page", spec(55), sh::Existing::refuse);
    EXPECT_EQ(sh::map_header_page(p, 56, "page"), nullptr);
    EXPECT_EQ(sh::map_header_page(path("none"), 55, "none"), nullptr);
    sh::FileHeader* page = sh::map_header_page(p, 55, "page");
    ASSERT_NE(page, nullptr);
    sh::Mapping m = sh::attach_file(p, "page", 0, true, 1);
    sh::count_in(&page->closing);
    EXPECT_EQ(sh::load_count(&m.header()->closing), 1u);
    EXPECT_FALSE(sh::enter_adder(m.header(), 3, 9));
    sh::count_out(&page->closing);
    EXPECT_TRUE(sh::enter_adder(m.header(), 3, 9));
    EXPECT_EQ(sh::load_adder(page, 3), 9u);
    sh::unmap_header_page(page);
    sh::unmap(m);
    ASSERT_EQ(truncate(p.c_str(), 4096), 0);  // damaged: shorter than its header
    EXPECT_EQ(sh::map_header_page(p, 55, "page"), nullptr);
    // a file that is there but cannot be opened is an error, not "no adders"
    struct rlimit fds;
    ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &fds), 0);
    const struct rlimit none = {0, fds.rlim_max};
    ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &none), 0);
    bool refused = false;
    try {
        sh::map_header_page(p, 55, "page");
    } catch (const sketch::Error& e) {
        refused = std::string(e.what()).find("could not open the header") != std::string::npos;
    }
    ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &fds), 0);
    EXPECT_TRUE(refused);
}

// A count of transactions (overflowing, closing) never wraps below 0 (the
// next one counted in would then make it 0 while it waits).
TEST(TransactionCount, CountsInAndOutNeverBelowZero) {
    sh::FileHeader h{};
    for (uint32_t* count : {&h.overflowing, &h.closing}) {
        sh::count_in(count);
        sh::count_in(count);
        sh::count_out(count);
        EXPECT_EQ(sh::load_count(count), 1u);
        sh::count_out(count);
        sh::count_out(count);  // one too many
        EXPECT_EQ(sh::load_count(count), 0u);
        sh::count_in(count);
        EXPECT_EQ(sh::load_count(count), 1u);
    }
    EXPECT_EQ(h.overflowing, 1u);
    EXPECT_EQ(h.closing, 1u);
}

// Every adder slot is its own word of the table between the op stripes and
// the reader slots, and neighbouring slots lie on different cache lines.
TEST(AdderSlots, EachSlotIsItsOwnWordOfTheTable) {
    std::vector<uint8_t> page(sh::kSlotsOffset, 0);
    auto* h = reinterpret_cast<sh::FileHeader*>(page.data());
    std::set<uintptr_t> words;
    for (uint32_t i = 0; i < sh::kAdderSlots; ++i) {
        const auto at = reinterpret_cast<uintptr_t>(sh::adder_slot(h, i)) - reinterpret_cast<uintptr_t>(h);
        EXPECT_GE(at, sh::kAdderSlotsOffset);
        EXPECT_LT(at, sh::kSlotsOffset);
        EXPECT_EQ(at % 4, 0u);
        words.insert(at);
        if (i > 0) {
            const auto before = reinterpret_cast<uintptr_t>(sh::adder_slot(h, i - 1)) - reinterpret_cast<uintptr_t>(h);
            EXPECT_NE(at / 64, before / 64);
        }
    }
    EXPECT_EQ(words.size(), size_t(sh::kAdderSlots));
}

// An adder enters its slot while no closer is counted; with one counted it
// is refused and its slot is left empty.
TEST(AdderSlots, EnterWhileNoCloserIsCounted) {
    std::vector<uint8_t> page(sh::kSlotsOffset, 0);
    auto* h = reinterpret_cast<sh::FileHeader*>(page.data());
    EXPECT_TRUE(sh::enter_adder(h, 37, 1234));
    EXPECT_EQ(sh::load_adder(h, 37), 1234u);
    sh::leave_adder(h, 37);
    EXPECT_EQ(sh::load_adder(h, 37), 0u);
    sh::count_in(&h->closing);
    EXPECT_FALSE(sh::enter_adder(h, 37, 1235));
    EXPECT_EQ(sh::load_adder(h, 37), 0u);
    sh::count_out(&h->closing);
    EXPECT_TRUE(sh::enter_adder(h, 37, 1236));
    EXPECT_EQ(sh::load_adder(h, 37), 1236u);
}

// The store-then-load handshake: an adder entering while a closer counts
// itself in and reads the slot, the closer starting a little later or
// earlier in each round (a sweep of delays, so that some rounds overlap).
// In every round at least one must see the other: a store that a later load
// of the same thread could pass (a release store and an acquire load) lets
// both miss.
TEST(AdderSlots, AnAdderAndACloserNeverMissEachOther) {
    constexpr int kRounds = 400000;
    std::vector<uint8_t> page(sh::kSlotsOffset, 0);
    auto* h = reinterpret_cast<sh::FileHeader*>(page.data());
    std::atomic<int> go{-1};
    std::atomic<int> done{0};
    std::vector<char> adder_entered(kRounds), closer_saw(kRounds);
    auto pause = [](int spins) {
        for (volatile int k = 0; k < spins; k = k + 1) {
        }
    };
    std::thread adder([&] {
        for (int r = 0; r < kRounds; ++r) {
            while (go.load(std::memory_order_acquire) != r) {
            }
            pause(r % 7 * 3);
            adder_entered[r] = sh::enter_adder(h, 5, uint32_t(r + 1));
            done.fetch_add(1, std::memory_order_acq_rel);
        }
    });
    for (int r = 0; r < kRounds; ++r) {
        go.store(r, std::memory_order_release);
        pause(r % 61);
        sh::count_in(&h->closing);
        closer_saw[r] = sh::load_adder(h, 5) == uint32_t(r + 1);
        while (done.load(std::memory_order_acquire) != r + 1) {
        }
        sh::count_out(&h->closing);
        sh::leave_adder(h, 5);
    }
    adder.join();
    int missed = 0, both = 0;
    for (int r = 0; r < kRounds; ++r) {
        missed += adder_entered[r] && !closer_saw[r];
        both += adder_entered[r] && closer_saw[r];
    }
    EXPECT_EQ(missed, 0);
    EXPECT_GT(both, 0) << "no round overlapped: the test saw no race";
}

// A drop removes what damage left of its file, so the name can be created
// again, but never another incarnation, a create in progress (zero magic) or
// the target of a symlink.
TEST_F(SharedFile, RemoveTakesWhatDamageLeftOfTheDroppedFile) {
    std::string p = path("v");
    // Damages a fresh file of incarnation 21, then removes it as a drop's
    // commit (remains) or a create's rollback does.
    auto damaged = [&](auto damage, bool remains) {
        unlink(p.c_str());
        sh::create_file(p, "v", spec(21), sh::Existing::refuse);
        std::string bytes = slurp(p);
        damage(bytes);
        spit(p, bytes);
        return sh::remove_file(p, 21, remains);
    };
    auto cut_to_100 = [](std::string& b) { b.resize(100); };  // magic and file_id still there
    auto cut_to_1 = [](std::string& b) { b.resize(1); };
    auto wrong_magic = [](std::string& b) { b[0] ^= 0x20; };
    auto swapped = [](std::string& b) { std::reverse(b.begin(), b.begin() + 8); };
    auto truncated = [](std::string& b) { b.resize(b.size() - 100); };
    for (bool remains : {true, false}) {
        EXPECT_TRUE(damaged(cut_to_100, remains));
        EXPECT_NE(access(p.c_str(), F_OK), 0);
        EXPECT_TRUE(damaged(truncated, remains));
    }
    // not identifiable: a drop takes them, a rolled-back create (which may
    // have refused a foreign file there) leaves them
    for (auto damage : {+cut_to_1, +wrong_magic, +swapped}) {
        EXPECT_TRUE(damaged(damage, true));
        EXPECT_NE(access(p.c_str(), F_OK), 0);
        EXPECT_FALSE(damaged(damage, false));
        EXPECT_EQ(access(p.c_str(), F_OK), 0);
    }
    // left alone: another incarnation
    auto other_id = [](std::string& b) { b[offsetof(sh::FileHeader, file_id)] ^= 1; };
    EXPECT_FALSE(damaged(other_id, true));
    EXPECT_EQ(access(p.c_str(), F_OK), 0);
    // taken by both: what a create left unfinished (no magic: a header
    // without it, zeros, nothing) when no process holds it (its creator is
    // gone; CreateInProgressIsLeftAlone has one that is not)
    auto no_magic = [](std::string& b) { std::memset(&b[0], 0, 8); };
    auto zeros = [](std::string& b) { std::memset(&b[0], 0, b.size()); };
    auto empty = [](std::string& b) { b.clear(); };
    auto three_zeros = [](std::string& b) { b.assign(3, '\0'); };
    for (bool remains : {true, false})
        for (auto damage : {+no_magic, +zeros, +empty, +three_zeros}) {
            EXPECT_TRUE(damaged(damage, remains));
            EXPECT_NE(access(p.c_str(), F_OK), 0);
        }
    // a symlink: the link goes, its target stays
    unlink(p.c_str());
    std::string target = path("target");
    sh::create_file(target, "t", spec(21), sh::Existing::refuse);
    std::string before = slurp(target);
    ASSERT_EQ(symlink(target.c_str(), p.c_str()), 0);
    EXPECT_FALSE(sh::remove_file(p, 21));
    EXPECT_TRUE(sh::remove_file(p, 21, true));
    struct stat st;
    EXPECT_NE(lstat(p.c_str(), &st), 0);
    EXPECT_EQ(slurp(target), before);
}

// A create that replaces an orphan (for instance the file of a drop that has
// committed but not removed it yet) marks it dropped, so that processes that
// still map it let go instead of writing to a file no one else sees.
TEST_F(SharedFile, ReplacedOrphanIsMarkedDropped) {
    std::string p = path("o");
    sh::create_file(p, "o", spec(31), sh::Existing::refuse);
    sh::Mapping m = sh::attach_file(p, "o", 0, true, kRun);
    sh::create_file(p, "o", spec(32), sh::Existing::replace_orphan);
    EXPECT_TRUE(sh::load_flags(m.header()) & sh::kDropped);
    EXPECT_EQ(sh::read_header(p, "o", 0).file_id, 32u);
    EXPECT_FALSE(sh::remove_file(p, 31));  // the old drop's removal leaves the new file
    EXPECT_EQ(sh::read_header(p, "o", 0).file_id, 32u);
    sh::unmap(m);
}

// Payloads are written in 2 MiB aligned pieces (create and copy): every byte
// lands once, in place, whatever the size, and no payload means zeros.
TEST_F(SharedFile, LargePayloadsAreWrittenWhole) {
    for (uint64_t bytes : {uint64_t(2) << 20, (uint64_t(5) << 20) + 4321, uint64_t(100)}) {
        geometry = bytes;
        std::vector<uint8_t> payload(bytes);
        for (uint64_t i = 0; i < bytes; ++i) payload[i] = uint8_t(i * 2654435761u >> 13);
        const std::string name = "big" + std::to_string(bytes);
        sh::CreateSpec s = spec(5);
        s.initial_payload = payload.data();
        s.initial_flags = sh::kFrozen;
        sh::create_file(path(name.c_str()), "big", s, sh::Existing::refuse);
        sh::create_file(path((name + "z").c_str()), "big", spec(6), sh::Existing::refuse);
        sh::copy_file(path(name.c_str()), path((name + "c").c_str()), "big", true, 8, kRun);
        for (const char* suffix : {"", "c"}) {
            const std::string bytes_on_disk = slurp(path((name + suffix).c_str()));
            ASSERT_EQ(bytes_on_disk.size(), sh::kHeaderBytes + bytes);
            EXPECT_EQ(std::memcmp(bytes_on_disk.data() + sh::kHeaderBytes, payload.data(), bytes), 0) << name << suffix;
            EXPECT_EQ(sh::read_header(path((name + suffix).c_str()), "big", 0).payload_bytes, bytes);
        }
        const std::string zeros = slurp(path((name + "z").c_str()));
        ASSERT_EQ(zeros.size(), sh::kHeaderBytes + bytes);
        EXPECT_EQ(zeros.find_first_not_of('\0', sh::kHeaderBytes), std::string::npos);
        EXPECT_EQ(sh::read_header(path((name + "z").c_str()), "big", 0).file_id, 6u);
    }
}

// A large create polls spec.stop between its 2 MiB writes: stopping removes the
// file; a process that dies in the middle leaves an all-zero file (the header
// goes in last), which the next create replaces (the dead process holds no
// lock on it).
namespace {
int polls = 0;
bool stop_at_third() { return ++polls >= 3; }
bool die_at_second() {
    if (++polls >= 2) _exit(0);
    return false;
}
}  // namespace

TEST_F(SharedFile, LargeCreateStopsAndCrashesCleanly) {
    geometry = uint64_t(7) << 20;  // 4 pieces of 2 MiB
    sh::CreateSpec s = spec(9);
    s.stop = stop_at_third;
    polls = 0;
    EXPECT_THROW(sh::create_file(path("stopped"), "stopped", s, sh::Existing::refuse), sketch::Error);
    EXPECT_EQ(polls, 3);
    EXPECT_NE(access(path("stopped").c_str(), F_OK), 0) << "no file left behind";

    pid_t pid = fork();
    if (pid == 0) {
        sh::CreateSpec c = spec(10);
        c.stop = die_at_second;
        polls = 0;
        sh::create_file(path("crashed"), "crashed", c, sh::Existing::refuse);
        _exit(1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_EQ(WEXITSTATUS(status), 0);
    const std::string left = slurp(path("crashed"));
    ASSERT_EQ(left.size(), sh::kHeaderBytes + geometry);
    EXPECT_EQ(left.find_first_not_of('\0'), std::string::npos) << "all zero";
    sh::create_file(path("crashed"), "crashed", spec(11), sh::Existing::refuse);
    EXPECT_EQ(sh::read_header(path("crashed"), "crashed", 0).file_id, 11u);
}

// Processes count ops in their stripes, two of them sharing one here: the
// count stays exact, from the mapping and from the file.
TEST_F(SharedFile, OpsCountedInStripesStayExact) {
    std::string p = path("ops");
    sh::create_file(p, "ops", spec(1), sh::Existing::refuse);
    sh::Mapping m = sh::attach_file(p, "ops", 0, true, kRun);
    const uint32_t owners[] = {7, 8, 9, 7 + sh::kOpStripes};  // the last shares 7's stripe
    std::vector<pid_t> children;
    for (uint32_t owner : owners) {
        const pid_t pid = fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            sh::Mapping own = sh::attach_file(p, "ops", 0, true, kRun);
            for (int i = 0; i < 100000; ++i) sh::add_ops(own.header(), owner, 1);
            _exit(0);
        }
        children.push_back(pid);
    }
    for (pid_t pid : children) {
        int status = 0;
        ASSERT_EQ(waitpid(pid, &status, 0), pid);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    EXPECT_EQ(sh::load_ops(m.header()), 400000u);
    EXPECT_EQ(sh::read_header(p, "ops", 0).ops, 400000u);
    sh::unmap(m);
}

// Threads of one process share one mapping as backends do: writes under the
// exclusive lock, reads and counted adds under the shared one. What
// ThreadSanitizer (make unit-tsan) checks of the object file's lock: it
// cannot follow the processes of the test above.
TEST_F(SharedFile, ThreadsShareOneMappingUnderItsLock) {
    std::string p = path("threads");
    sh::create_file(p, "threads", spec(1), sh::Existing::refuse);
    sh::Mapping m = sh::attach_file(p, "threads", 0, true, kRun);
    struct Payload {
        uint64_t a, b;  // writers keep them equal
        uint64_t adds;
    };
    auto* data = reinterpret_cast<Payload*>(m.payload());
    constexpr int kThreads = 4, kRounds = 2000;
    std::vector<int> torn(kThreads, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            sketch::RWLock lock = m.lock();
            const uint32_t me = sketch::current_thread_id();
            for (int i = 0; i < kRounds; ++i) {
                if (i % 8 == 0) {
                    while (lock.lock_exclusive(me, 50) != sketch::LockResult::acquired) {
                    }
                    data->a++;
                    data->b++;
                    lock.unlock_exclusive(me);
                } else {
                    sketch::ReadTicket ticket;
                    while (lock.lock_shared(me, 50, &ticket) != sketch::LockResult::acquired) {
                    }
                    torn[t] += data->a != data->b;
                    __atomic_fetch_add(&data->adds, 1, __ATOMIC_RELAXED);
                    sh::add_ops(m.header(), me, 1);
                    lock.unlock_shared(me, ticket);
                }
            }
        });
    for (auto& th : threads) th.join();
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(torn[t], 0) << "thread " << t << " saw a half-done write";
    EXPECT_EQ(data->a, uint64_t(kThreads * kRounds / 8));
    EXPECT_EQ(data->b, data->a);
    EXPECT_EQ(sh::load_ops(m.header()), data->adds);
    sh::unmap(m);
}

TEST_F(SharedFile, CopyRequiresFrozenAndCleansTheHeader) {
    std::string p = path("src");
    sh::create_file(p, "src", spec(1), sh::Existing::refuse);
    EXPECT_THROW(sh::copy_file(p, path("dst"), "src", true, 2, kRun), sketch::Error);
    EXPECT_NE(access(path("dst").c_str(), F_OK), 0);
    sh::Mapping m = sh::attach_file(p, "src", 0, true, kRun);
    m.payload()[1] = 7;
    m.header()->lock.writer = 12345;  // a stale lock word is not copied
    sh::add_ops(m.header(), 1001, 3);  // two processes: two stripes
    sh::add_ops(m.header(), 1002, 2);
    EXPECT_EQ(sh::load_ops(m.header()), 5u);
    EXPECT_EQ(sh::read_header(p, "src", 0).ops, 5u);  // the stripes folded in
    sh::set_flags(m.header(), sh::kFrozen);
    sh::copy_file(p, path("dst"), "src", true, 2, kRun + 5);
    sh::Mapping c = sh::attach_file(path("dst"), "dst", 0, false, kRun);
    EXPECT_EQ(c.header()->file_id, 2u);
    EXPECT_EQ(c.header()->created_run, kRun + 5);  // written by the run that copied it
    EXPECT_EQ(c.payload()[1], 7);
    EXPECT_EQ(c.header()->lock.writer, 0u);
    EXPECT_EQ(sh::load_ops(c.header()), 5u);
    EXPECT_EQ(c.header()->ops, 5u);  // the total in the word, the copy's stripes clear
    EXPECT_EQ(sh::load_flags(c.header()), uint32_t(sh::kFrozen));
    EXPECT_THROW(sh::copy_file(p, path("dst"), "src", true, 3, kRun), sketch::Error);  // O_EXCL
    // a source larger than the bound is refused before the copy is created
    const uint64_t total = c.header()->total_bytes;
    try {
        sh::copy_file(p, path("dst2"), "src", true, 4, kRun, total - 1);
        ADD_FAILURE() << "copied a file over the bound";
    } catch (const sketch::Error& e) {
        EXPECT_EQ(e.code(), sketch::Errc::program_limit);
    }
    EXPECT_NE(access(path("dst2").c_str(), F_OK), 0);
    sh::copy_file(p, path("dst2"), "src", true, 4, kRun, total);
    sh::unmap(c);
    sh::unmap(m);
}

TEST(SharedNames, OnlyIdentifiers) {
    auto ok = [](const char* s) { return sh::valid_object_name(s, strlen(s)); };
    EXPECT_TRUE(ok("seen"));
    EXPECT_TRUE(ok("events-2026.11_v2"));
    EXPECT_TRUE(ok(std::string(63, 'a').c_str()));
    EXPECT_FALSE(ok(std::string(64, 'a').c_str()));
    EXPECT_FALSE(ok(""));
    EXPECT_FALSE(ok(".hidden"));
    EXPECT_FALSE(ok(".."));
    EXPECT_FALSE(ok("../etc/passwd"));
    EXPECT_FALSE(ok("a/b"));
    EXPECT_FALSE(ok("a b"));
    EXPECT_FALSE(ok("caf\xc3\xa9"));
}

TEST_F(SharedFile, EnsureDirectoryRefusesSymlinks) {
    sh::ensure_directory(dir, "x/y", "test");
    struct stat st;
    ASSERT_EQ(stat((dir + "/x/y").c_str(), &st), 0);
    EXPECT_TRUE(S_ISDIR(st.st_mode));
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    ASSERT_EQ(symlink("/tmp", (dir + "/evil").c_str()), 0);
    EXPECT_THROW(sh::ensure_directory(dir, "evil", "test"), sketch::Error);
    EXPECT_THROW(sh::ensure_directory(dir, "evil/z", "test"), sketch::Error);
}

}  // namespace

// What a drop of the extension removes, and what the orphan sweep looks at:
// the object files with their incarnations and the runs that wrote them,
// nothing else (a stray file, a header without magic, a symlink, a FIFO that
// must not hang the listing, a bad name).
TEST_F(SharedFile, ObjectFilesListsOnlyObjectFiles) {
    sh::create_file(path("one"), "one", spec(101), sh::Existing::refuse);
    sh::CreateSpec two = spec(102);
    two.run = 77;
    sh::create_file(path("two"), "two", two, sh::Existing::refuse);
    spit(path("stray"), "not an object file");
    spit(path("nomagic"), std::string(sh::kHeaderBytes, '\0'));
    ASSERT_EQ(symlink(path("one").c_str(), path("link").c_str()), 0);
    ASSERT_EQ(mkfifo(path("fifo").c_str(), 0600), 0);
    spit(path(".hidden"), slurp(path("two")));
    std::vector<sh::ObjectFile> found = sh::object_files(dir);
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    ASSERT_EQ(found.size(), 2u);
    EXPECT_EQ(found[0].name, "one");
    EXPECT_EQ(found[0].file_id, 101u);
    EXPECT_EQ(found[1].name, "two");
    EXPECT_EQ(found[1].file_id, 102u);
    EXPECT_EQ(found[0].created_run, 0u);
    EXPECT_EQ(found[1].created_run, 77u);
    EXPECT_TRUE(sh::object_files(dir + "/missing").empty());
}

// The folders of dropped databases: found by their number, emptied of what
// sits at object names, and removed once empty.
TEST_F(SharedFile, FoldersOfDroppedDatabases) {
    for (const char* d : {"123", "0123", "abc", "5x", "4294967296"}) ASSERT_EQ(mkdir(path(d).c_str(), 0700), 0);
    spit(path("77"), "a file, not a folder");
    EXPECT_EQ(sh::numbered_folders(dir), std::vector<uint32_t>{123});
    EXPECT_TRUE(sh::numbered_folders(dir + "/missing").empty());

    const std::string db = path("123");
    sh::create_file(db + "/obj", "obj", spec(), sh::Existing::refuse);
    sh::Mapping m = sh::attach_file(db + "/obj", "obj", 0, true, kRun);
    spit(db + "/stray", "not an object file");
    ASSERT_EQ(mkdir((db + "/sub").c_str(), 0700), 0);
    sh::remove_folder(db);
    EXPECT_TRUE(sh::load_flags(m.header()) & sh::kDropped);  // a process still mapping it lets go
    sh::unmap(m);
    EXPECT_NE(access((db + "/obj").c_str(), F_OK), 0);
    EXPECT_NE(access((db + "/stray").c_str(), F_OK), 0);
    EXPECT_EQ(access(db.c_str(), F_OK), 0);  // the folder holds a folder: it stays
    ASSERT_EQ(rmdir((db + "/sub").c_str()), 0);
    sh::remove_folder(db);
    EXPECT_NE(access(db.c_str(), F_OK), 0);
}
