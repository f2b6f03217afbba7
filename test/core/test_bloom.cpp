// Bloom engine: layouts, kernels on every path, atomics, formats, formulas.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <thread>

#include "bloom/bloom.hpp"
#include "bloom/bloom_format.hpp"
#include "test_bloom_util.hpp"

using namespace sketch;
using namespace sketch::bloom;
using bloom_test::keys;
using bloom_test::layout_specs;

namespace {

Geometry geo(const std::string& spec, uint64_t bits) { return geometry_for_bits(parse_layout(spec), bits); }

bool pad_is_zero(const Filter& f) {
    for (size_t i = 0; i < kTailPad; ++i)
        if (f.bits()[f.geometry().bytes + i] != 0) return false;
    return true;
}

}  // namespace

TEST(BloomLayout, ParseAndFormatRoundTrip) {
    for (const std::string& spec : layout_specs()) {
        Layout l = parse_layout(spec);
        if (spec != "block<uint8,1>") {  // that one is classic<1>
            EXPECT_EQ(format_layout(l), spec) << spec;
        }
        EXPECT_EQ(parse_layout(format_layout(l)), l) << spec;
    }
    EXPECT_EQ(format_layout(parse_layout(" Block < uint64_t , 5 > ")), "block<uint64,5>");
    EXPECT_EQ(format_layout(parse_layout("block<uint64[1],5>")), "block<uint64,5>");
    EXPECT_EQ(format_layout(parse_layout("fast_multiblock32<5>/20")), "fast_multiblock32<5>");  // natural stride
    EXPECT_EQ(format_layout(parse_layout("1*block<uint8,1>")), "classic<1>");
    EXPECT_EQ(parse_layout("classic").k, 0u);
    EXPECT_EQ(parse_layout("fast_multiblock64").kp, 0u);
    EXPECT_EQ(parse_layout("multiblock<uint16>/1").stride, 1u);
}

TEST(BloomLayout, BadSpecsThrow) {
    for (const char* bad : {"", "bloom", "block", "block<>", "block<uint128,3>", "block<uint64,0>", "block<uint64,33>",
                            "multiblock<uint64[3],2>", "fast_multiblock32<0>", "fast_multiblock16<4>", "classic<0>", "classic<33>",
                            "cbf", "cbf<0>", "cbf<7>/1", "0*block<uint64,2>", "33*block<uint64,2>", "block<uint64,5>/9",
                            "block<uint64,5>/0", "block<uint64,5>x", "fast_multiblock32<8>/40", "classic/1"}) {
        try {
            parse_layout(bad);
            ADD_FAILURE() << "accepted " << bad;
        } catch (const Error& e) {
            EXPECT_EQ(e.code(), Errc::invalid_parameter) << bad;
        }
    }
}

TEST(BloomLayout, GeometryRounding) {
    Geometry g = geo("block<uint64,5>", 1000);
    EXPECT_EQ(g.bytes, 128u);  // 125 bytes rounded up to whole blocks
    EXPECT_EQ(g.positions, 16u);
    g = geo("fast_multiblock32<5>/4", 1000);  // 20-byte subarrays every 4 bytes
    EXPECT_EQ(g.bytes, 128u);
    EXPECT_EQ(g.positions, 28u);
    g = geo("cbf<3>", 1000);
    EXPECT_EQ(g.bits(), 1024u);
    EXPECT_EQ(geo("cbf<3>", 1).bits(), 64u);
    EXPECT_EQ(geo("classic<3>", 1).bytes, 1u);
    try {
        geo("classic<3>", kMaxBits + 1);
        ADD_FAILURE();
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), Errc::program_limit);
        EXPECT_NE(std::string(e.what()).find("512 MiB"), std::string::npos);
    }
    EXPECT_EQ(geo("multiblock<uint64[8],32>", kMaxBits).bytes, kMaxBytes);
    EXPECT_THROW(geometry_for_bytes(parse_layout("block<uint64,5>"), 13, Errc::corrupted), Error);
    EXPECT_EQ(geometry_for_bytes(parse_layout("fast_multiblock32<5>/4"), 128, Errc::corrupted).positions, 28u);
}

// Boost.Bloom's test_insertion: no false negatives, and insert reports news.
TEST(BloomKernels, NoFalseNegativesEveryLayout) {
    auto ks = keys(3000, 1);
    for (const std::string& spec : layout_specs()) {
        Filter f(geo(spec, 3000 * 12));
        size_t fresh = 0;
        for (auto& h : ks) fresh += f.insert(h);
        EXPECT_GT(fresh, 1500u) << spec;  // some inserts are false "not new" (FPR)
        for (auto& h : ks) {
            ASSERT_TRUE(f.contains(h)) << spec;
            ASSERT_FALSE(f.insert(h)) << spec << ": a second insert is not new";
        }
        EXPECT_TRUE(pad_is_zero(f)) << spec;
    }
}

TEST(BloomKernels, EmptyFilterContainsNothing) {
    auto ks = keys(1000, 2);
    for (const std::string& spec : layout_specs()) {
        Filter f(geo(spec, 4096));
        for (auto& h : ks) ASSERT_FALSE(f.contains(h)) << spec;
    }
}

// Boost.Bloom's test_bulk_operations: bulk insert/lookup equal one by one.
TEST(BloomKernels, BulkEqualsOneByOne) {
    auto ks = keys(5000, 3);
    auto others = keys(5000, 4);
    for (const std::string& spec : layout_specs()) {
        Geometry g = geo(spec, 5000 * 10);
        Filter a(g), b(g);
        for (auto& h : ks) a.insert(h);
        insert_many(g, b.bits(), ks.data(), ks.size());
        ASSERT_TRUE(a == b) << spec;
        std::vector<char> out(others.size());
        size_t hits = contains_many(g, a.bits(), others.data(), others.size(), reinterpret_cast<bool*>(out.data()));
        size_t expect = 0;
        for (size_t i = 0; i < others.size(); ++i) {
            bool one = a.contains(others[i]);
            expect += one;
            ASSERT_EQ(bool(out[i]), one) << spec;
        }
        EXPECT_EQ(hits, expect) << spec;
        EXPECT_EQ(contains_many(g, a.bits(), ks.data(), ks.size(), nullptr), ks.size()) << spec;
    }
}

// Every code path (scalar, SSE2, AVX2) sets exactly the same bits.
TEST(BloomKernels, AllPathsBitIdentical) {
    auto ks = keys(4000, 5);
    auto others = keys(4000, 6);
    std::vector<Path> paths = {Path::scalar, Path::sse2};
    if (path_available(Path::avx2)) paths.push_back(Path::avx2);
    else std::printf("note: this CPU has no AVX2; AVX2 path not compared\n");
    for (const char* fam : {"fast_multiblock32", "fast_multiblock64"}) {
        for (int kp = 1; kp <= int(kMaxKp); ++kp) {
            for (const char* extra : {"", "/1", "/4"}) {
                for (const char* k : {"", "2*"}) {
                    std::string spec = std::string(k) + fam + "<" + std::to_string(kp) + ">" + extra;
                    Geometry g = geo(spec, 4000 * 12);
                    Filter ref(g);
                    for (auto& h : ks) ref.insert(h, Path::scalar);
                    for (Path p : paths) {
                        Filter f(g), bulk(g);
                        for (auto& h : ks) f.insert(h, p);
                        insert_many(g, bulk.bits(), ks.data(), ks.size(), p);
                        ASSERT_TRUE(f == ref) << spec << " " << path_name(p);
                        ASSERT_TRUE(bulk == ref) << spec << " " << path_name(p) << " bulk";
                        ASSERT_TRUE(pad_is_zero(f)) << spec << " " << path_name(p);
                        for (auto& h : others) ASSERT_EQ(ref.contains(h, p), ref.contains(h, Path::scalar)) << spec;
                    }
                }
            }
        }
    }
}

// insert_atomic sets the same bits as insert; contains_concurrent agrees.
TEST(BloomKernels, AtomicEqualsPlain) {
    auto ks = keys(3000, 7);
    auto others = keys(3000, 8);
    for (const std::string& spec : layout_specs()) {
        Geometry g = geo(spec, 3000 * 10);
        Filter a(g), b(g);
        size_t fresh = 0;
        for (auto& h : ks) {
            a.insert(h);
            fresh += insert_atomic(g, b.bits(), h);
        }
        ASSERT_TRUE(a == b) << spec;
        EXPECT_GT(fresh, 1500u) << spec;  // some inserts are false "not new" (FPR)
        for (auto& h : ks) ASSERT_FALSE(insert_atomic(g, b.bits(), h)) << spec;
        for (auto& h : others) ASSERT_EQ(contains_concurrent(g, a.bits(), h), a.contains(h)) << spec;
        EXPECT_TRUE(pad_is_zero(b)) << spec;
    }
}

// Several threads insert disjoint keys at once; none is lost, and the array
// equals the single-threaded one (OR is order-independent).
TEST(BloomKernels, ConcurrentInsertsLoseNothing) {
    const int threads = 4;
    const size_t per = 20000;
    auto ks = keys(threads * per, 9);
    for (const std::string spec : {"classic<7>", "block<uint64,5>", "block<uint8,3>/1", "multiblock<uint16,8>/1",
                                   "fast_multiblock32<8>", "fast_multiblock64<5>/1", "block<uint64[8],9>", "cbf<7>"}) {
        Geometry g = geo(spec, 1 << 16);  // small, so threads collide on words
        Filter shared(g), serial(g);
        std::vector<std::thread> pool;
        for (int t = 0; t < threads; ++t) {
            pool.emplace_back([&, t] {
                for (size_t i = t * per; i < (t + 1) * per; ++i) {
                    insert_atomic(g, shared.bits(), ks[i]);
                    (void)contains_concurrent(g, shared.bits(), ks[(i * 7919) % ks.size()]);
                }
            });
        }
        for (auto& th : pool) th.join();
        for (auto& h : ks) {
            ASSERT_TRUE(contains_concurrent(g, shared.bits(), h)) << spec;
            ASSERT_TRUE(shared.contains(h)) << spec;
            serial.insert(h);
        }
        EXPECT_TRUE(shared == serial) << spec;
    }
}

// Boost.Bloom's test_combination: union and intersection.
TEST(BloomKernels, UnionAndIntersection) {
    auto a_keys = keys(2000, 10), b_keys = keys(2000, 11);
    for (const std::string& spec : layout_specs()) {
        Geometry g = geo(spec, 4000 * 12);
        Filter a(g), b(g), both(g);
        for (auto& h : a_keys) a.insert(h), both.insert(h);
        for (auto& h : b_keys) b.insert(h), both.insert(h);
        Filter u(a);
        union_into(u.bits(), b.bits(), g.bytes);
        ASSERT_TRUE(u == both) << spec;
        Filter i(a);
        intersect_into(i.bits(), b.bits(), g.bytes);
        Filter self(a);
        intersect_into(self.bits(), a.bits(), g.bytes);
        ASSERT_TRUE(self == a) << spec;
        EXPECT_LE(count_bits(i.bits(), g.bytes), count_bits(a.bits(), g.bytes)) << spec;
        // An item in both sets is in the intersection.
        Filter a2(a), b2(b);
        a2.insert(keys(1, 99)[0]);
        b2.insert(keys(1, 99)[0]);
        intersect_into(a2.bits(), b2.bits(), g.bytes);
        EXPECT_TRUE(a2.contains(keys(1, 99)[0])) << spec;
    }
}

// The cbf<K> projection target: the documented probes and bit order.
TEST(BloomKernels, CbfProbesAndBitOrder) {
    Geometry g = cbf_geometry(3, 1024);
    EXPECT_EQ(g.bits(), 1024u);
    Filter f(g);
    Hash128 h{0x123456789abcdefull, 0xfedcba9876543210ull};
    f.insert(h);
    const uint64_t step = h.hi | 1;
    const uint64_t* words = reinterpret_cast<const uint64_t*>(f.bits());
    uint64_t expect[16] = {};
    for (uint64_t i = 0; i < 3; ++i) {
        uint64_t p = (h.lo + i * step) & 1023;
        expect[p >> 6] |= uint64_t(1) << (p & 63);
    }
    for (int w = 0; w < 16; ++w) EXPECT_EQ(words[w], expect[w]);
    // A projection built by setting bits by hand is probed the same way.
    Filter manual(g);
    uint64_t* mw = reinterpret_cast<uint64_t*>(manual.bits());
    for (int w = 0; w < 16; ++w) mw[w] = expect[w];
    EXPECT_TRUE(manual.contains(h));
    EXPECT_THROW(cbf_geometry(3, 1000), Error);
    EXPECT_THROW(cbf_geometry(3, 32), Error);
    EXPECT_THROW(cbf_geometry(0, 64), Error);
}

TEST(BloomFormat, RoundTripAndValidation) {
    for (const std::string& spec : layout_specs()) {
        Geometry g = geo(spec, 777);
        std::vector<uint8_t> buf(external_size(g), 0xAB);
        write_header(buf.data(), g, 42);
        Header h = read_external(buf.data(), buf.size(), Errc::corrupted);
        EXPECT_EQ(h.geometry, g) << spec;
        EXPECT_EQ(h.geometry.positions, g.positions) << spec;
        EXPECT_EQ(h.seed, 42u);
        EXPECT_THROW(read_external(buf.data(), buf.size() - 1, Errc::corrupted), Error) << spec;
    }
    Geometry g = geo("block<uint64,5>", 1024);
    std::vector<uint8_t> good(external_size(g), 0);
    write_header(good.data(), g, 0);
    auto mutated = [&](size_t off, uint8_t v) {
        std::vector<uint8_t> b = good;
        b[off] = v;
        return b;
    };
    struct Case {
        size_t off;
        uint8_t value;
    };
    for (Case c : {Case{0, 2}, Case{1, 9}, Case{2, 7}, Case{3, 0}, Case{3, 33}, Case{4, 0}, Case{4, 40}, Case{5, 1},
                   Case{6, 9}, Case{8, 1}, Case{12, 1}, Case{13, 0x44}}) {
        auto b = mutated(c.off, c.value);
        try {
            read_external(b.data(), b.size(), Errc::invalid_text);
            ADD_FAILURE() << "accepted a header with byte " << c.off << " = " << int(c.value);
        } catch (const Error& e) {
            EXPECT_EQ(e.code(), Errc::invalid_text);
        }
    }
    EXPECT_THROW(read_external(good.data(), 10, Errc::corrupted), Error);
}

// Version 3 records the n and fpr a filter was sized for, after version 2's
// fields; a header without them stays version 1 or 2, byte for byte.
TEST(BloomFormat, Version3RecordsItsSizing) {
    const Geometry g = geo("block<uint64,5>", 1024);
    const Sizing sizing{1000, 0.01};
    std::vector<uint8_t> v(external_size(g, sizing), 0);
    EXPECT_EQ(v.size(), kSizedHeaderBytes + g.bytes);
    write_header(v.data(), g, 9, {}, sizing);
    EXPECT_EQ(v[0], 3);
    EXPECT_EQ(header_bytes_of(v.data()), kSizedHeaderBytes);
    Header h = read_external(v.data(), v.size(), Errc::corrupted);
    EXPECT_EQ(h.geometry, g);
    EXPECT_EQ(h.seed, 9u);
    EXPECT_FALSE(h.item.known());
    EXPECT_EQ(h.sizing.n, 1000u);
    EXPECT_EQ(h.sizing.fpr, 0.01);
    const ItemClass text{ItemClassCode::text, 0};
    write_header(v.data(), g, 9, text, sizing);
    EXPECT_EQ(read_external(v.data(), v.size(), Errc::corrupted).item, text);
    EXPECT_THROW(read_external(v.data(), v.size() - 1, Errc::corrupted), Error);
    EXPECT_THROW(read_header(v.data(), kHeaderBytes, Errc::corrupted), Error) << "a version 3 header cut at 28 bytes";

    std::vector<uint8_t> plain(external_size(g), 0);
    write_header(plain.data(), g, 9, text);
    EXPECT_EQ(plain[0], 2);
    EXPECT_EQ(0, std::memcmp(plain.data() + 1, v.data() + 1, kHeaderBytes - 1)) << "the fields of version 2 are the same";
    EXPECT_FALSE(read_external(plain.data(), plain.size(), Errc::corrupted).sizing.known());
}

TEST(BloomFormat, Version3RefusesSizingsNoFilterHas) {
    const Geometry g = geo("block<uint64,5>", 1024);
    for (const Sizing bad : {Sizing{0, 0.01}, Sizing{1000, 0}, Sizing{1000, -0.5}, Sizing{1000, 1},
                             Sizing{1000, std::nan("")}, Sizing{1000, std::numeric_limits<double>::infinity()}}) {
        std::vector<uint8_t> v(external_size(g, Sizing{1, 0.5}), 0);
        write_header(v.data(), g, 0, {}, Sizing{1, 0.5});
        std::memcpy(v.data() + 28, &bad.n, 8);
        std::memcpy(v.data() + 36, &bad.fpr, 8);
        try {
            read_external(v.data(), v.size(), Errc::invalid_binary);
            ADD_FAILURE() << "accepted n " << bad.n << " fpr " << bad.fpr;
        } catch (const Error& e) {
            EXPECT_EQ(e.code(), Errc::invalid_binary);
        }
    }
}

// Boost.Bloom's test_capacity, in the same spirit.
TEST(BloomFormulas, CapacityAndFpr) {
    for (const std::string& spec : layout_specs()) {
        Layout l = parse_layout(spec);
        EXPECT_EQ(fpr_for(0, 1000, l), 0.0);
        EXPECT_EQ(fpr_for(10, 0, l), 1.0);
        double prev = 1.0;
        for (double m = 1e4; m <= 1e6; m *= 2) {
            double f = fpr_for(10000, m, l);
            EXPECT_LE(f, prev) << spec;
            prev = f;
        }
        for (double target : {0.1, 0.01, 1e-3}) {
            Geometry g = capacity_for(10000, target, l);
            EXPECT_LE(fpr_for(10000, double(g.bits()), g.layout), target) << spec;
            // One step smaller would miss the target (cbf: half the size).
            if (l.kind != Kind::cbf && g.positions > 1) {
                Geometry smaller = geometry_for_positions(g.layout, g.positions - 1);
                EXPECT_GT(fpr_for(10000, double(smaller.bits()), g.layout), target) << spec;
            }
        }
    }
    // Classic: the closed form.
    Layout c7 = parse_layout("classic<7>");
    EXPECT_NEAR(fpr_for(1000, 10000, c7), std::pow(1 - std::exp(-7.0 * 1000 / 10000), 7), 1e-4);
    // A natural stride written out changes nothing.
    EXPECT_EQ(fpr_for(1000, 16000, parse_layout("block<uint64,5>/8")), fpr_for(1000, 16000, parse_layout("block<uint64,5>")));
    // Overlap improves FPR by a factor around 0.6..0.9.
    double ratio = fpr_for(1000, 16000, parse_layout("block<uint64,5>/1")) / fpr_for(1000, 16000, parse_layout("block<uint64,5>"));
    EXPECT_GT(ratio, 0.5);
    EXPECT_LT(ratio, 1.0);
    // K' chosen: the configuration table's optimum for block<uint64,K> at c = 16 is 6.
    Geometry g = capacity_for(100000, fpr_for(100000, 1600000, parse_layout("block<uint64,6>")), parse_layout("block<uint64>"));
    EXPECT_EQ(g.layout.kp, 6u);
    // Classic: K chosen.
    g = capacity_for(100000, 0.01, parse_layout("classic"));
    EXPECT_TRUE(g.layout.k == 6u || g.layout.k == 7u) << g.layout.k;
    // Default: a SIMD layout with K' set.
    Layout d = default_layout(1000000, 0.01);
    EXPECT_TRUE(d.kind == Kind::fast_multiblock32 || d.kind == Kind::fast_multiblock64);
    EXPECT_GT(d.kp, 0u);
}

TEST(BloomFormulas, BadInputs) {
    Layout l = parse_layout("block<uint64,5>");
    EXPECT_THROW(capacity_for(0, 0.01, l), Error);
    EXPECT_THROW(capacity_for(10, 0.0, l), Error);
    EXPECT_THROW(capacity_for(10, 1.0, l), Error);
    EXPECT_THROW(capacity_for(10, std::nan(""), l), Error);
    try {
        capacity_for(uint64_t(1) << 40, 1e-9, l);
        ADD_FAILURE();
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), Errc::program_limit);
    }
}
