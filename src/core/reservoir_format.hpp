// The envelope of a reservoir value's external forms: the fields every form
// carries (version, flags, k, seen, the item count) and the binary form's
// framing, decoded and validated without PostgreSQL. The items themselves
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

}  // namespace sketch::reservoir
