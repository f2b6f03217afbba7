// Layout specs: parsing, canonical form, geometry.
#include "bloom/bloom_layout.hpp"

#include <cctype>
#include <cstring>

namespace sketch {
namespace bloom {

namespace {

const char* const kBlockNames[kBlockTypes] = {"uint8", "uint16", "uint32", "uint64", "uint64[2]", "uint64[4]", "uint64[8]"};
const unsigned kBlockBytes[kBlockTypes] = {1, 2, 4, 8, 16, 32, 64};

// A tiny cursor over the normalized (lower-case, space-free) spec.
struct Cursor {
    const std::string& s;
    const std::string& original;
    size_t i = 0;

    bool eat(const char* token) {
        size_t n = std::strlen(token);
        if (s.compare(i, n, token) != 0) return false;
        i += n;
        return true;
    }
    bool done() const { return i == s.size(); }
    [[noreturn]] void bad(const char* what) const {
        fail(Errc::invalid_parameter,
             "invalid bloom layout \"%s\": %s (expected e.g. 'classic', 'block<uint64,5>', "
             "'multiblock<uint64[8],3>', 'fast_multiblock32<8>', '2*fast_multiblock64<5>/1', 'cbf<7>')",
             original.c_str(), what);
    }
    // A decimal number in [lo, hi].
    unsigned number(const char* name, unsigned lo, unsigned hi) {
        const size_t start = i;
        uint64_t v = 0;
        for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i)
            if (v <= hi) v = v * 10 + unsigned(s[i] - '0');  // past hi it is out of range whatever follows
        if (i == start) bad("a number was expected");
        if (v < lo || v > hi) {
            fail(Errc::invalid_parameter, "invalid bloom layout \"%s\": %s must be between %u and %u, got %s",
                 original.c_str(), name, lo, hi, s.substr(start, i - start).c_str());
        }
        return unsigned(v);
    }
    BlockType block() {
        if (eat("uint64[1]") || eat("uint64_t[1]")) return BlockType::u64;
        // Longest names first: "uint64[8]" before "uint64".
        for (int b = int(kBlockTypes) - 1; b >= 0; --b) {
            std::string name = kBlockNames[b];
            std::string with_t = name;
            with_t.insert(name.find('[') == std::string::npos ? name.size() : name.find('['), "_t");
            if (eat(with_t.c_str()) || eat(name.c_str())) {
                if (i < s.size() && s[i] == '[') bad("a block array must be uint64[2], uint64[4] or uint64[8]");
                return BlockType(b);
            }
        }
        bad("unknown block type (uint8, uint16, uint32, uint64, uint64[2], uint64[4] or uint64[8])");
    }
};

}  // namespace

unsigned block_bytes(BlockType b) { return kBlockBytes[unsigned(b)]; }
const char* block_name(BlockType b) { return kBlockNames[unsigned(b)]; }

bool is_classic(const Layout& l) {
    return l.kind == Kind::block && l.block == BlockType::u8 && l.kp == 1 && (l.stride == 0 || l.stride == 1);
}

unsigned used_bytes(const Layout& l) {
    switch (l.kind) {
        case Kind::block: return block_bytes(l.block);
        case Kind::multiblock: return block_bytes(l.block) * l.kp;
        case Kind::fast_multiblock32: return 4 * l.kp;
        case Kind::fast_multiblock64: return 8 * l.kp;
        case Kind::cbf: return 8;
    }
    return 0;
}

unsigned stride_bytes(const Layout& l) { return l.stride != 0 ? l.stride : used_bytes(l); }

Layout parse_layout(const std::string& spec) {
    std::string s;
    for (char c : spec)
        if (!std::isspace(static_cast<unsigned char>(c))) s += char(std::tolower(static_cast<unsigned char>(c)));
    Cursor c{s, spec};
    Layout l;
    if (s.empty()) c.bad("empty layout");
    if (c.eat("classic")) {
        l.kind = Kind::block;
        l.block = BlockType::u8;
        l.kp = 1;
        l.k = 0;
        if (c.eat("<")) {
            l.k = c.number("K", 1, kMaxK);
            if (!c.eat(">")) c.bad("'>' expected");
        }
        if (!c.done()) c.bad("unexpected text after the layout");
        return l;
    }
    if (c.eat("cbf")) {
        l.kind = Kind::cbf;
        l.block = BlockType::u64;
        l.kp = 1;
        if (!c.eat("<")) c.bad("cbf needs its K, as in cbf<7>");
        l.k = c.number("K", 1, kMaxK);
        if (!c.eat(">")) c.bad("'>' expected");
        if (!c.done()) c.bad("unexpected text after the layout");
        return l;
    }
    if (!s.empty() && std::isdigit(static_cast<unsigned char>(s[0]))) {
        l.k = c.number("K", 1, kMaxK);
        if (!c.eat("*")) c.bad("'*' expected after K");
    }
    if (c.eat("multiblock<")) {
        l.kind = Kind::multiblock;
        l.block = c.block();
        if (c.eat(",")) l.kp = c.number("K'", 1, kMaxKp);
        if (!c.eat(">")) c.bad("'>' expected");
    } else if (c.eat("block<")) {
        l.kind = Kind::block;
        l.block = c.block();
        if (c.eat(",")) l.kp = c.number("K'", 1, kMaxKp);
        if (!c.eat(">")) c.bad("'>' expected");
    } else if (c.eat("fast_multiblock32") || c.eat("fast_multiblock64")) {
        l.kind = s[c.i - 2] == '3' ? Kind::fast_multiblock32 : Kind::fast_multiblock64;
        l.block = l.kind == Kind::fast_multiblock32 ? BlockType::u32 : BlockType::u64;
        if (c.eat("<")) {
            l.kp = c.number("K'", 1, kMaxKp);
            if (!c.eat(">")) c.bad("'>' expected");
        }
    } else {
        c.bad("unknown subfilter (classic, block, multiblock, fast_multiblock32, fast_multiblock64 or cbf)");
    }
    if (c.eat("/")) {
        l.stride = c.number("stride", 1, 65535);
        if (l.kp != 0 && l.stride > used_bytes(l)) {
            fail(Errc::invalid_parameter, "invalid bloom layout \"%s\": stride must be between 1 and %u bytes (the subarray size)",
                 spec.c_str(), used_bytes(l));
        }
        if (l.kp != 0 && l.stride == used_bytes(l)) l.stride = 0;  // natural
    }
    if (!c.done()) c.bad("unexpected text after the layout");
    return l;
}

std::string format_layout(const Layout& l) {
    if (l.kind == Kind::cbf) return "cbf<" + std::to_string(l.k) + ">";
    if (is_classic(l)) return l.k == 0 ? "classic" : "classic<" + std::to_string(l.k) + ">";
    std::string out;
    if (l.k != 1) out += std::to_string(l.k) + "*";
    switch (l.kind) {
        case Kind::block:
        case Kind::multiblock:
            out += l.kind == Kind::block ? "block<" : "multiblock<";
            out += block_name(l.block);
            if (l.kp != 0) out += "," + std::to_string(l.kp);
            out += ">";
            break;
        case Kind::fast_multiblock32:
        case Kind::fast_multiblock64:
            out += l.kind == Kind::fast_multiblock32 ? "fast_multiblock32" : "fast_multiblock64";
            if (l.kp != 0) out += "<" + std::to_string(l.kp) + ">";
            break;
        case Kind::cbf: break;
    }
    if (l.stride != 0) out += "/" + std::to_string(l.stride);
    return out;
}

void validate_layout(const Layout& l) {
    if (unsigned(l.kind) > unsigned(Kind::cbf)) fail(Errc::invalid_parameter, "unknown bloom layout kind %u", unsigned(l.kind));
    if (unsigned(l.block) >= kBlockTypes) fail(Errc::invalid_parameter, "unknown bloom block type %u", unsigned(l.block));
    if (l.k < 1 || l.k > kMaxK) fail(Errc::invalid_parameter, "bloom K must be between 1 and %u, got %u", kMaxK, l.k);
    if (l.kp < 1 || l.kp > kMaxKp) fail(Errc::invalid_parameter, "bloom K' must be between 1 and %u, got %u", kMaxKp, l.kp);
    switch (l.kind) {
        case Kind::fast_multiblock32:
            if (l.block != BlockType::u32) fail(Errc::invalid_parameter, "fast_multiblock32 uses uint32 blocks");
            break;
        case Kind::fast_multiblock64:
            if (l.block != BlockType::u64) fail(Errc::invalid_parameter, "fast_multiblock64 uses uint64 blocks");
            break;
        case Kind::cbf:
            if (l.block != BlockType::u64 || l.kp != 1 || l.stride != 0)
                fail(Errc::invalid_parameter, "cbf<K> has no block type, K' or stride");
            return;
        default: break;
    }
    if (l.stride != 0 && (l.stride >= used_bytes(l)))
        fail(Errc::invalid_parameter, "bloom stride of %u bytes must be below the subarray size of %u bytes (0 = natural)",
             l.stride, used_bytes(l));
}

[[noreturn]] static void too_many_bits(uint64_t bits) {
    fail(Errc::program_limit, "bloom capacity of %llu bits exceeds the maximum of %llu bits (%s)",
         static_cast<unsigned long long>(bits), static_cast<unsigned long long>(kMaxBits), kMaxBitsNote);
}

Geometry geometry_for_positions(const Layout& l, uint64_t r) {
    validate_layout(l);
    Geometry g;
    g.layout = l;
    if (l.kind == Kind::cbf) fail(Errc::internal, "cbf has no positions");
    if (r < 1) r = 1;
    const uint64_t stride = stride_bytes(l), used = used_bytes(l);
    if (r > kMaxBytes || (r - 1) * stride + used > kMaxBytes) too_many_bits(((r - 1) * stride + used) * 8);
    g.positions = r;
    g.bytes = (r - 1) * stride + used;
    return g;
}

Geometry geometry_for_bits(const Layout& l, uint64_t bits) {
    validate_layout(l);
    if (bits > kMaxBits) too_many_bits(bits);
    if (l.kind == Kind::cbf) {
        uint64_t m = 64;
        while (m < bits) m <<= 1;
        if (m > kMaxBits) too_many_bits(m);  // the power of two it rounds up to
        Geometry g;
        g.layout = l;
        g.bytes = m / 8;
        g.positions = 0;
        return g;
    }
    const uint64_t want = (bits + 7) / 8;
    const uint64_t stride = stride_bytes(l), used = used_bytes(l);
    uint64_t r = want <= used ? 1 : 1 + (want - used + stride - 1) / stride;
    return geometry_for_positions(l, r);
}

Geometry geometry_for_bytes(const Layout& l, uint64_t bytes, Errc code) {
    validate_layout(l);
    if (bytes > kMaxBytes) fail(code, "bloom bit array of %llu bytes exceeds the maximum of %llu", static_cast<unsigned long long>(bytes),
                                static_cast<unsigned long long>(kMaxBytes));
    if (l.kind == Kind::cbf) {
        if (bytes < 8 || (bytes & (bytes - 1)) != 0)
            fail(code, "cbf bit array must be a power of two of at least 64 bits, got %llu bytes", static_cast<unsigned long long>(bytes));
        Geometry g;
        g.layout = l;
        g.bytes = bytes;
        return g;
    }
    const uint64_t stride = stride_bytes(l), used = used_bytes(l);
    if (bytes < used || (bytes - used) % stride != 0)
        fail(code, "bloom bit array of %llu bytes does not fit layout %s", static_cast<unsigned long long>(bytes), format_layout(l).c_str());
    return geometry_for_positions(l, 1 + (bytes - used) / stride);
}

}  // namespace bloom
}  // namespace sketch
