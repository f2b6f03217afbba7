// The envelope of a reservoir value's external forms: the fields every form
// carries (version, flags, k, seen, the item count), the binary form's
// framing and the text form's JSON, decoded and validated without
// PostgreSQL. The items themselves
// are the item type's business (its text or binary I/O, in src/pg).
//
// Binary form (send/recv, the bytea casts), integers in network byte order:
//   u8  version (1)
//   u8  flags (0 uniform, 1 weighted)
//   i32 k
//   i64 seen
//       the item type's name, NUL-terminated
//   i32 count, which must be min(seen, k)
//   count items: [f64 log-key, weighted only] i32 length, then length bytes
//       (the item type's binary form)
//
// The decoders throw sketch::Error with a sentence saying what is wrong.
// They allocate nothing to decide, so a value that declares more items than
// its bytes can hold is refused before anything is sized by the count.
#pragma once

#include <cstddef>
#include <cstdint>

#include "error.hpp"

namespace sketch::reservoir {

constexpr uint8_t kExternalVersion = 1;
constexpr uint8_t kExternalWeighted = 1;

// Checks the fields every external form carries; wide types, so that a
// field is never truncated into range before it is checked.
void check_envelope(int64_t version, int64_t flags, int64_t k, int64_t seen, int64_t count, Errc code);

// A log-key of a weighted item: log(u) for u in (0, 1], so <= 0, -inf
// allowed; throws `code` otherwise.
void check_key(double key, Errc code);

struct BinaryHeader {
    bool weighted;
    int32_t k;
    int64_t seen;
    const char* type_name;  // inside the input, NUL-terminated
    int32_t count;
    size_t items_offset;  // where the first item starts
};

// Decodes the header and walks every item's framing (keys checked, lengths
// within the input, nothing left over), throwing invalid_binary.
BinaryHeader read_binary(const uint8_t* data, size_t len);

struct BinaryItem {
    double key;      // weighted only
    size_t offset;   // of the item's bytes in the input
    size_t length;
};

// The item at `pos` of an input read_binary accepted; advances pos past it.
BinaryItem next_binary_item(const uint8_t* data, size_t& pos, bool weighted);

// Text form (reservoir_in / reservoir_out): one JSON object (RFC 8259) with
// exactly these members, each once, in any order:
//   "version": 1, "type": "<item type name>", "k": <integer>,
//   "seen": <integer>, "weighted": true | false,
//   "items": ["<an item's text form>", ...],
//   "keys": [<number> | "<a float8 text form>", ...]   weighted only, one per item
// read_text checks the syntax, the members and the envelope; the strings it
// points at are left escaped (TextStringReader decodes them), the keys'
// values are the caller's to parse and check_key.

// Bytes of the input: a JSON string's contents between its quotes (escapes
// undecoded), or a number's text.
struct TextSpan {
    size_t offset;
    size_t length;
};

struct TextEnvelope {
    bool weighted;
    int32_t k;
    int64_t seen;
    int32_t count;       // items, and keys when weighted
    TextSpan type_name;
    size_t items_at;     // the '[' of "items"
    size_t keys_at;      // the '[' of "keys", weighted only
};

// Throws invalid_text saying what is wrong; allocates nothing.
TextEnvelope read_text(const char* text, size_t len);

// The elements of an array read_text accepted ("items" or "keys"), in order.
class TextArrayReader {
public:
    TextArrayReader(const char* text, size_t at) : text_(text), pos_(at + 1) {}
    // False after the last element; else its span and whether it is a
    // string (else a number).
    bool next(TextSpan& span, bool& quoted);

private:
    const char* text_;
    size_t pos_;
};

// A piece of a decoded JSON string: bytes copied as they are (length > 0),
// or one escaped code point (length 0; never 0, never a lone surrogate).
struct StringPiece {
    const char* bytes;
    size_t length;
    uint32_t code_point;
};

// Decodes a string span read_text accepted, piece by piece.
class TextStringReader {
public:
    TextStringReader(const char* text, TextSpan span) : p_(text + span.offset), end_(p_ + span.length) {}
    bool next(StringPiece& piece);

private:
    const char* p_;
    const char* end_;
};

}  // namespace sketch::reservoir
