// Decoding and validation of a reservoir's external envelope (layout in
// reservoir_format.hpp).
#include "reservoir/reservoir_format.hpp"

#include <cctype>
#include <cmath>
#include <cstring>

#include "reservoir/reservoir.hpp"

namespace sketch::reservoir {

namespace {

constexpr size_t kFixedHeaderBytes = 1 + 1 + 4 + 8;  // version, flags, k, seen

uint64_t get_be(const uint8_t* p, size_t bytes) {
    uint64_t v = 0;
    for (size_t i = 0; i < bytes; ++i) v = (v << 8) | p[i];
    return v;
}

double get_double(const uint8_t* p) {
    const uint64_t bits = get_be(p, 8);
    double x;
    std::memcpy(&x, &bits, sizeof x);
    return x;
}

// Bytes each item takes at least: its length word and, weighted, its key.
size_t item_frame_bytes(bool weighted) { return 4 + (weighted ? 8 : 0); }

}  // namespace

void check_envelope(int64_t version, int64_t flags, int64_t k, int64_t seen, int64_t count, Errc code) {
    if (version != kExternalVersion)
        fail(code, "Unsupported format version %lld (this build reads version %u).", static_cast<long long>(version),
             static_cast<unsigned>(kExternalVersion));
    if (flags != 0 && flags != kExternalWeighted) fail(code, "Unknown flags.");
    if (k < 1 || k > kMaxK) fail(code, "k must be between 1 and %d.", kMaxK);
    if (seen < 0) fail(code, "\"seen\" must not be negative.");
    if (count != (seen < k ? seen : k)) fail(code, "The number of items must be min(seen, k).");
}

void check_key(double key, Errc code) {
    if (std::isnan(key) || key > 0.0) fail(code, "Keys are logarithms of numbers in (0, 1]: they must be <= 0.");
}

BinaryHeader read_binary(const uint8_t* data, size_t len) {
    constexpr Errc code = Errc::invalid_binary;
    if (len < kFixedHeaderBytes) fail(code, "Too short: %zu bytes end inside the header.", len);
    const int64_t version = data[0];
    const int64_t flags = data[1];
    const int64_t k = static_cast<int32_t>(get_be(data + 2, 4));
    const int64_t seen = static_cast<int64_t>(get_be(data + 6, 8));
    size_t pos = kFixedHeaderBytes;
    const void* nul = std::memchr(data + pos, '\0', len - pos);
    if (nul == nullptr) fail(code, "The item type name has no terminating NUL.");
    if (nul == data + pos) fail(code, "The item type name is empty.");
    BinaryHeader h;
    h.type_name = reinterpret_cast<const char*>(data + pos);
    pos = static_cast<const uint8_t*>(nul) - data + 1;
    if (len - pos < 4) fail(code, "Too short: the item count is missing.");
    const int64_t count = static_cast<int32_t>(get_be(data + pos, 4));
    pos += 4;
    check_envelope(version, flags, k, seen, count, code);
    h.weighted = flags == kExternalWeighted;
    h.k = static_cast<int32_t>(k);
    h.seen = seen;
    h.count = static_cast<int32_t>(count);
    h.items_offset = pos;
    const size_t framing = static_cast<size_t>(count) * item_frame_bytes(h.weighted);
    if (framing > len - pos)
        fail(code, "%lld items need at least %zu bytes, but %zu follow the header.", static_cast<long long>(count),
             framing, len - pos);
    for (int64_t i = 0; i < count; ++i) {
        if (len - pos < item_frame_bytes(h.weighted)) fail(code, "Truncated item %lld.", static_cast<long long>(i + 1));
        if (h.weighted) {
            check_key(get_double(data + pos), code);
            pos += 8;
        }
        const int64_t item_len = static_cast<int32_t>(get_be(data + pos, 4));
        pos += 4;
        if (item_len < 0 || static_cast<uint64_t>(item_len) > len - pos)
            fail(code, "Item %lld's length %lld is out of range (%zu bytes left).", static_cast<long long>(i + 1),
                 static_cast<long long>(item_len), len - pos);
        pos += static_cast<size_t>(item_len);
    }
    if (pos != len) fail(code, "Trailing bytes: %zu after the last item.", len - pos);
    return h;
}

// ---- the text form ----

namespace {

constexpr Errc kText = Errc::invalid_text;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// The four hex digits at p as a number, or -1.
int32_t hex4(const char* p, const char* end) {
    if (end - p < 4) return -1;
    int32_t v = 0;
    for (int i = 0; i < 4; ++i) {
        const int d = hex_digit(p[i]);
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

bool is_high_surrogate(int32_t u) { return u >= 0xD800 && u <= 0xDBFF; }
bool is_low_surrogate(int32_t u) { return u >= 0xDC00 && u <= 0xDFFF; }

// The escape at p (just after its backslash): the code point it stands for
// and how many bytes it takes, or a sentence saying what is wrong with it.
struct Escape {
    uint32_t code_point;
    size_t length;
    const char* problem;
};

Escape escape_at(const char* p, const char* end) {
    if (p == end) return {0, 0, "a string ends inside an escape"};
    switch (*p) {
        case '"': return {'"', 1, nullptr};
        case '\\': return {'\\', 1, nullptr};
        case '/': return {'/', 1, nullptr};
        case 'b': return {'\b', 1, nullptr};
        case 'f': return {'\f', 1, nullptr};
        case 'n': return {'\n', 1, nullptr};
        case 'r': return {'\r', 1, nullptr};
        case 't': return {'\t', 1, nullptr};
        case 'u': break;
        default: return {0, 0, "an escape that JSON does not have"};
    }
    const int32_t u = hex4(p + 1, end);
    if (u < 0) return {0, 0, "\\u without four hex digits"};
    if (u == 0) return {0, 0, "\\u0000, which text cannot hold"};
    if (is_low_surrogate(u)) return {0, 0, "a Unicode low surrogate that follows no high surrogate"};
    if (!is_high_surrogate(u)) return {static_cast<uint32_t>(u), 5, nullptr};
    const int32_t low = end - p >= 7 && p[5] == '\\' && p[6] == 'u' ? hex4(p + 7, end) : -1;
    if (!is_low_surrogate(low)) return {0, 0, "a Unicode high surrogate without its low surrogate"};
    return {0x10000 + ((static_cast<uint32_t>(u) - 0xD800) << 10) + (static_cast<uint32_t>(low) - 0xDC00), 11, nullptr};
}

// The text form's fields, in the order their absence is reported.
enum Field { kVersion, kWeighted, kK, kSeen, kType, kItems, kKeys, kFields };
constexpr const char* kFieldNames[kFields] = {"version", "weighted", "k", "seen", "type", "items", "keys"};

class TextParser {
public:
    TextParser(const char* text, size_t len) : t_(text), n_(len) {}
    TextEnvelope parse();

private:
    [[noreturn]] void malformed(const char* what) { fail(kText, "Malformed JSON at byte %zu: %s.", pos_, what); }
    void skip_space() {
        while (pos_ < n_ && is_space(t_[pos_])) ++pos_;
    }
    bool at(char c) const { return pos_ < n_ && t_[pos_] == c; }
    bool at_word(const char* word) const {
        const size_t len = std::strlen(word);
        return n_ - pos_ >= len && std::memcmp(t_ + pos_, word, len) == 0;
    }
    TextSpan string();
    TextSpan number(bool* integral);
    Field member_name();
    int64_t integer(Field f);
    int32_t array(Field f, size_t* at);

    const char* t_;
    size_t n_;
    size_t pos_ = 0;
};

// The string whose opening quote is at pos_: checked, and skipped.
TextSpan TextParser::string() {
    const size_t start = ++pos_;
    for (;;) {
        if (pos_ >= n_) malformed("a string without its closing quote");
        const unsigned char c = static_cast<unsigned char>(t_[pos_]);
        if (c == '"') break;
        if (c < 0x20) malformed("a control character in a string (escape it)");
        if (c != '\\') {
            ++pos_;
            continue;
        }
        const Escape e = escape_at(t_ + pos_ + 1, t_ + n_);
        if (e.problem) malformed(e.problem);
        pos_ += 1 + e.length;
    }
    const TextSpan span = {start, pos_ - start};
    ++pos_;
    return span;
}

// The number at pos_ (JSON's grammar), skipped; integral when it has no
// fraction and no exponent.
TextSpan TextParser::number(bool* integral) {
    const size_t start = pos_;
    if (at('-')) ++pos_;
    if (at('0')) {
        ++pos_;
    } else if (pos_ < n_ && is_digit(t_[pos_])) {
        while (pos_ < n_ && is_digit(t_[pos_])) ++pos_;
    } else {
        malformed("a number without digits");
    }
    *integral = true;
    if (at('.')) {
        *integral = false;
        ++pos_;
        if (!(pos_ < n_ && is_digit(t_[pos_]))) malformed("a number without digits after its point");
        while (pos_ < n_ && is_digit(t_[pos_])) ++pos_;
    }
    if (at('e') || at('E')) {
        *integral = false;
        ++pos_;
        if (at('+') || at('-')) ++pos_;
        if (!(pos_ < n_ && is_digit(t_[pos_]))) malformed("a number without digits in its exponent");
        while (pos_ < n_ && is_digit(t_[pos_])) ++pos_;
    }
    if (pos_ < n_ && (is_digit(t_[pos_]) || std::isalpha(static_cast<unsigned char>(t_[pos_]))))
        malformed("a malformed number");
    return {start, pos_ - start};
}

// The member name at pos_ (decoded: "\u006b" is "k"), as a field.
Field TextParser::member_name() {
    if (!at('"')) malformed("a member name must be a string");
    const TextSpan span = string();
    char name[16];
    size_t len = 0;
    TextStringReader reader(t_, span);
    StringPiece piece;
    bool fits = true;
    while (fits && reader.next(piece)) {
        if (piece.length == 0) {
            fits = piece.code_point < 0x80 && len < sizeof name;
            if (fits) name[len++] = static_cast<char>(piece.code_point);
        } else {
            fits = piece.length <= sizeof name - len;
            if (fits) std::memcpy(name + len, piece.bytes, piece.length);
            len += piece.length;
        }
    }
    for (int f = 0; fits && f < kFields; ++f)
        if (std::strlen(kFieldNames[f]) == len && std::memcmp(kFieldNames[f], name, len) == 0) return Field(f);
    fail(kText, "Unknown field \"%.*s\".", static_cast<int>(span.length < 64 ? span.length : 64), t_ + span.offset);
}

int64_t TextParser::integer(Field f) {
    if (!(at('-') || (pos_ < n_ && is_digit(t_[pos_])))) fail(kText, "\"%s\" must be a number.", kFieldNames[f]);
    bool integral;
    const TextSpan span = number(&integral);
    if (!integral) fail(kText, "\"%s\" must be an integer.", kFieldNames[f]);
    const char* p = t_ + span.offset;
    const char* end = p + span.length;
    const bool negative = *p == '-';
    if (negative) ++p;
    const uint64_t limit = negative ? uint64_t(INT64_MAX) + 1 : uint64_t(INT64_MAX);
    uint64_t v = 0;
    for (; p < end; ++p) {
        const uint64_t d = static_cast<uint64_t>(*p - '0');
        if (v > (limit - d) / 10) fail(kText, "\"%s\" is out of range.", kFieldNames[f]);
        v = v * 10 + d;
    }
    return negative ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
}

// The array of "items" (strings) or "keys" (numbers or strings) at pos_:
// checked, skipped, its elements counted.
int32_t TextParser::array(Field f, size_t* at_bracket) {
    if (!at('[')) fail(kText, "\"%s\" must be an array.", kFieldNames[f]);
    *at_bracket = pos_++;
    int64_t count = 0;
    skip_space();
    if (at(']')) {
        ++pos_;
        return 0;
    }
    for (;;) {
        skip_space();
        if (at('"')) {
            string();
        } else if (f == kKeys && (at('-') || (pos_ < n_ && is_digit(t_[pos_])))) {
            bool integral;
            number(&integral);
        } else if (f == kKeys) {
            fail(kText, "Keys must be numbers.");
        } else {
            fail(kText, "Every item must be a JSON string (the item type's text form).");
        }
        if (++count > kMaxK) fail(kText, "More than %d %s.", kMaxK, kFieldNames[f]);
        skip_space();
        if (at(']')) break;
        if (!at(',')) malformed("expected ',' or ']' in an array");
        ++pos_;
    }
    ++pos_;
    return static_cast<int32_t>(count);
}

TextEnvelope TextParser::parse() {
    skip_space();
    if (!at('{')) fail(kText, "A reservoir is a JSON object.");
    ++pos_;
    bool present[kFields] = {};
    int64_t version = 0, k = 0, seen = 0;
    int32_t items = 0, keys = 0;
    TextEnvelope env = {};
    skip_space();
    bool closed = at('}');
    if (closed) ++pos_;
    while (!closed) {
        skip_space();
        const Field f = member_name();
        if (present[f]) fail(kText, "\"%s\" appears twice.", kFieldNames[f]);
        present[f] = true;
        skip_space();
        if (!at(':')) malformed("expected ':' after a member name");
        ++pos_;
        skip_space();
        switch (f) {
            case kVersion: version = integer(f); break;
            case kK: k = integer(f); break;
            case kSeen: seen = integer(f); break;
            case kWeighted:
                if (at_word("true")) {
                    env.weighted = true;
                    pos_ += 4;
                } else if (at_word("false")) {
                    env.weighted = false;
                    pos_ += 5;
                } else {
                    fail(kText, "\"weighted\" must be true or false.");
                }
                break;
            case kType:
                if (!at('"')) fail(kText, "\"type\" must be a string naming the item type.");
                env.type_name = string();
                break;
            case kItems: items = array(f, &env.items_at); break;
            case kKeys: keys = array(f, &env.keys_at); break;
            case kFields: break;
        }
        skip_space();
        if (at(',')) {
            ++pos_;
        } else if (at('}')) {
            ++pos_;
            closed = true;
        } else {
            malformed("expected ',' or '}' after a member");
        }
    }
    skip_space();
    if (pos_ != n_) malformed("text after the object");
    if (!present[kVersion]) fail(kText, "\"version\" must be a number.");
    if (!present[kWeighted]) fail(kText, "\"weighted\" must be true or false.");
    if (!present[kK]) fail(kText, "\"k\" must be a number.");
    if (!present[kSeen]) fail(kText, "\"seen\" must be a number.");
    if (!present[kType]) fail(kText, "\"type\" must be a string naming the item type.");
    if (!present[kItems]) fail(kText, "\"items\" must be an array.");
    check_envelope(version, env.weighted ? kExternalWeighted : 0, k, seen, items, kText);
    if (env.weighted && !present[kKeys]) fail(kText, "\"keys\" must be an array.");
    if (env.weighted && keys != items) fail(kText, "A weighted reservoir needs one key per item.");
    if (!env.weighted && present[kKeys]) fail(kText, "A uniform reservoir has no keys.");
    env.k = static_cast<int32_t>(k);
    env.seen = seen;
    env.count = items;
    return env;
}

}  // namespace

TextEnvelope read_text(const char* text, size_t len) { return TextParser(text, len).parse(); }

bool TextArrayReader::next(TextSpan& span, bool& quoted) {
    while (is_space(text_[pos_])) ++pos_;
    if (text_[pos_] == ',') ++pos_;
    while (is_space(text_[pos_])) ++pos_;
    if (text_[pos_] == ']') return false;
    quoted = text_[pos_] == '"';
    if (quoted) {
        span.offset = ++pos_;
        while (text_[pos_] != '"') pos_ += text_[pos_] == '\\' ? 2 : 1;
        span.length = pos_++ - span.offset;
    } else {
        span.offset = pos_;
        while (text_[pos_] != ',' && text_[pos_] != ']' && !is_space(text_[pos_])) ++pos_;
        span.length = pos_ - span.offset;
    }
    return true;
}

bool TextStringReader::next(StringPiece& piece) {
    if (p_ == end_) return false;
    if (*p_ != '\\') {
        piece.bytes = p_;
        while (p_ < end_ && *p_ != '\\') ++p_;
        piece.length = static_cast<size_t>(p_ - piece.bytes);
        return true;
    }
    const Escape e = escape_at(p_ + 1, end_);
    piece.bytes = nullptr;
    piece.length = 0;
    piece.code_point = e.code_point;
    p_ += 1 + e.length;
    return true;
}

BinaryItem next_binary_item(const uint8_t* data, size_t& pos, bool weighted) {
    BinaryItem item;
    item.key = 0.0;
    if (weighted) {
        item.key = get_double(data + pos);
        pos += 8;
    }
    item.length = static_cast<size_t>(get_be(data + pos, 4));
    pos += 4;
    item.offset = pos;
    pos += item.length;
    return item;
}

}  // namespace sketch::reservoir
