// make_corpus DIR: writes the seed corpora of the fuzz targets, DIR/NAME/ for
// test/fuzz/fuzz_NAME.cpp: small valid inputs made by the core's own
// encoders, so that libFuzzer starts from every form and layout instead of
// guessing magic numbers and checksums. `make fuzz-corpus` rewrites
// test/fuzz/corpus with it.
#include <cctype>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <vector>

#include "bloom/bloom.hpp"
#include "bloom/bloom_format.hpp"
#include "cbf/cbf.hpp"
#include "cbf/cbf_format.hpp"
#include "filter_text.hpp"
#include "hex.hpp"
#include "shared/shared_file.hpp"
#include "reservoir/shared_reservoir.hpp"

namespace sb = sketch::bloom;
namespace cbf = sketch::cbf;
namespace sh = sketch::shared;
namespace sr = sketch::shared_reservoir;

namespace {

using Bytes = std::vector<uint8_t>;

std::string root;

// Writes DIR/target/name; a file name keeps letters and digits of `name`.
void seed(const char* target, std::string name, const Bytes& bytes) {
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    const std::string dir = root + "/" + target;
    mkdir(dir.c_str(), 0755);
    std::ofstream out(dir + "/" + name, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

// 0.1.0's text form of a value ("\x" and hex), which input still reads.
Bytes hex_text_of(const Bytes& bytes) {
    std::vector<char> text(sketch::hex::text_bytes(bytes.size()) + 1);
    sketch::hex::write_text(bytes.data(), bytes.size(), text.data());
    return Bytes(text.begin(), text.end() - 1);
}

// The text form values print in ("b64:" and base64).
Bytes text_of(const Bytes& bytes) {
    std::vector<char> text(sketch::filter_text::text_bytes(bytes.size()) + 1);
    sketch::filter_text::write_text(bytes.data(), bytes.size(), nullptr, 0, text.data());
    return Bytes(text.begin(), text.end() - 1);
}

// A filter's value as a seed of its text target, in both forms.
void seed_texts(const char* target, const std::string& name, const Bytes& value) {
    seed(target, name, text_of(value));
    seed(target, name + "_hex", hex_text_of(value));
}

template <typename T>
void append(Bytes& out, const T& v) {
    const auto* p = reinterpret_cast<const uint8_t*>(&v);
    out.insert(out.end(), p, p + sizeof v);
}

const char* const kLayouts[] = {"classic<3>",          "cbf<4>",
                                "block<uint64,5>",     "2*block<uint8,2>",
                                "multiblock<uint64[2],3>", "multiblock<uint32,8>/4",
                                "fast_multiblock32<8>", "fast_multiblock64<5>/1",
                                "3*fast_multiblock32<2>/2", "block<uint64[8],7>/8"};

// The class the seeds of versions 2 and 3 record (they hold hashed integers).
const sketch::ItemClass kIntegers{sketch::ItemClassCode::integer, 0};

// A bloom value of the filter's bits behind a header of that item class and
// sizing (their absence picks the format version), as a seed of the binary
// and text targets.
void bloom_value(const std::string& name, const sb::Filter& f, sketch::ItemClass item, const sb::Sizing& sizing) {
    const sb::Geometry& g = f.geometry();
    Bytes value(sb::external_size(g, sizing));
    sb::write_header(value.data(), g, 42, item, sizing);
    std::memcpy(value.data() + sb::header_bytes(sizing), f.bits(), g.bytes);
    seed("bloom_binary", name, value);
    seed_texts("bloom_text", name, value);
}

// A few hundred bits of each layout, with items in them, in every version of
// the format: 1 (no item class), 2 (items recorded as integers) and 3 (also
// the n and fpr it was sized for: with a class, as bloom_agg writes it, and
// without one, as bloom_empty does).
void bloom_values() {
    constexpr int kItems = 5;
    for (const char* spec : kLayouts) {
        sb::Filter f(sb::geometry_for_bits(sb::parse_layout(spec), 256));
        for (int i = 0; i < kItems; ++i) f.insert(sketch::hash_int(i, 42));
        // sized for the items it holds, at the rate they give it
        const sb::Sizing sized{kItems, sb::fpr_for(kItems, double(f.geometry().bits()), f.geometry().layout)};
        const std::string name = spec;
        bloom_value(name, f, {}, {});
        bloom_value(name + "_v2", f, kIntegers, {});
        bloom_value(name + "_v3", f, kIntegers, sized);
        bloom_value(name + "_v3_no_class", f, {}, sized);
    }
}

void cbf_values() {
    const std::pair<int64_t, double> sizes[] = {{5, 0.1}, {20, 0.01}, {3, 0.5}};
    for (const auto& [capacity, fpr] : sizes) {
        const cbf::Geometry g = cbf::geometry_for(capacity, fpr, cbf::kMaxCounters, 7);
        Bytes value(cbf::value_bytes(g));
        cbf::write_header(value.data(), g);
        for (int i = 0; i < capacity; ++i) cbf::add(g, value.data() + cbf::kHeaderBytes, sketch::hash_int(i, g.seed));
        const std::string name = "m" + std::to_string(g.m) + "_k" + std::to_string(g.k);
        seed("cbf_binary", name, value);
        seed_texts("cbf_text", name, value);
        cbf::write_header(value.data(), g, kIntegers);  // version 2: items recorded as integers
        seed("cbf_binary", name + "_v2", value);
        seed_texts("cbf_text", name + "_v2", value);
    }
}

void layouts() {
    for (const char* spec : kLayouts) seed("bloom_layout", spec, Bytes(spec, spec + std::strlen(spec)));
    for (const char* spec : {"classic", "fast_multiblock64", " 2 * Block < UINT64_T[4] , 3 > / 16", "multiblock<uint16>"})
        seed("bloom_layout", spec, Bytes(spec, spec + std::strlen(spec)));
}

// n, fpr and a size in bits, then a layout spec.
void sizings() {
    const std::pair<uint64_t, double> asks[] = {{1000, 0.01}, {1, 0.5}, {10000000, 1e-6}};
    for (const auto& [n, fpr] : asks)
        for (const char* spec : {"classic", "fast_multiblock32", "multiblock<uint64[2]>/3", "cbf<4>", "block<uint64,5>"}) {
            Bytes input;
            append(input, n);
            append(input, fpr);
            append(input, uint64_t(8 * n));
            input.insert(input.end(), spec, spec + std::strlen(spec));
            seed("bloom_sizing", std::to_string(n) + "_" + spec, input);
        }
}

void base64_texts() {
    for (const char* text : {"AA==", "AAE=", "AAEC", "3q2+7w==", "/+/+/w==", "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBka"})
        seed("base64", text, Bytes(text, text + std::strlen(text)));
}

void hex_texts() {
    for (const char* text : {"\\x", "\\x00ff", "\\xDEADbeef", "\\x0123456789abcdefABCDEF0123456789abcdef0123456789"})
        seed("hex", text, Bytes(text, text + std::strlen(text)));
}

// An options byte (0: as is), the file's size and a header as create_file writes it.
void file_header(const char* name, sh::Kind kind, const Bytes& geometry, uint64_t payload_bytes) {
    sh::FileHeader h;
    std::memset(&h, 0, sizeof h);
    h.magic = sh::kMagic;
    h.version = sh::kFormatVersion;
    h.kind = uint32_t(kind);
    h.header_bytes = sh::kHeaderBytes;
    h.geometry_len = uint32_t(geometry.size());
    h.total_bytes = sh::file_bytes(payload_bytes);
    h.payload_offset = sh::kHeaderBytes;
    h.payload_bytes = payload_bytes;
    h.file_id = 12345;
    std::memcpy(h.geometry, geometry.data(), geometry.size());
    h.checksum = sh::header_checksum(h);
    Bytes input{0};
    append(input, h.total_bytes);
    append(input, h);
    seed("shared_file", name, input);
}

void file_headers() {
    const sr::Geometry rg = sr::make_geometry(100, 32, true, 9);
    Bytes reservoir;
    append(reservoir, rg);
    file_header("reservoir", sh::Kind::reservoir, reservoir, sr::payload_bytes(rg));
    const sb::Geometry bg = sb::geometry_for_bits(sb::parse_layout("fast_multiblock32<8>"), 1 << 16);
    Bytes bloom(sb::kHeaderBytes);
    sb::write_header(bloom.data(), bg, 3);
    append(bloom, uint64_t(1000));
    append(bloom, 0.01);
    file_header("bloom", sh::Kind::bloom, bloom, bg.bytes + sb::kTailPad);
    Bytes test;
    append(test, uint64_t(4096));
    file_header("test", sh::Kind::test, test, 4096);
}

// The stored geometry, the payload size and the payload of small reservoirs
// in several states (empty, filling, full, a journal left pending by a crash).
void reservoirs() {
    struct Case {
        const char* name;
        int k, item_size;
        bool weighted;
        int adds, crash_after;
    };
    const Case cases[] = {{"uniform_empty", 4, 8, false, 0, 0},         {"uniform_filling", 8, 12, false, 3, 0},
                          {"uniform_full", 3, 16, false, 20, 0},         {"uniform_pending", 4, 8, false, 9, 3},
                          {"weighted_full", 5, 24, true, 30, 0},         {"weighted_pending", 2, 4, true, 6, 3},
                          {"weighted_staged", 6, 8, true, 7, 1}};
    for (const Case& c : cases) {
        const sr::Geometry g = sr::make_geometry(c.k, c.item_size, c.weighted, 77);
        Bytes payload(sr::payload_bytes(g) + 64);
        auto* base = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(payload.data()) + 63) & ~uintptr_t(63));
        sr::View v(g, base);
        for (int i = 0; i < c.adds; ++i) {
            const std::string item = "item" + std::to_string(i);
            v.add(reinterpret_cast<const uint8_t*>(item.data()), uint32_t(item.size()), 0, 1.0 + i % 4,
                  i + 1 == c.adds ? c.crash_after : 0);
        }
        Bytes input;
        append(input, g);
        append(input, sr::payload_bytes(g));
        input.insert(input.end(), base, base + sr::payload_bytes(g));
        seed("shared_reservoir", c.name, input);
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    root = argv[1];
    mkdir(root.c_str(), 0755);
    bloom_values();
    cbf_values();
    layouts();
    sizings();
    hex_texts();
    base64_texts();
    file_headers();
    reservoirs();
    return 0;
}
