// The class of items a filter was built from, in sketch_hash's canonical
// terms (docs/hashing.md): items of one class hash by the same rule, so a
// filter answers only for items of its class. Stored in the version 2 value
// headers (bloom, cbf) and in a shared object's file.
#pragma once

#include <cstdint>

namespace sketch {

enum class ItemClassCode : uint8_t {
    unknown = 0,       // a filter made before classes were recorded, or no item yet
    integer = 1,       // smallint, integer, bigint: one int64
    text = 2,          // text, varchar, char(n), name, bytea: their bytes
    floating = 3,      // real, double precision: one float8
    uuid = 4,          // its 16 bytes
    builtin_type = 5,  // one built-in type, by its fixed oid
    named_type = 6,    // any other type, by a digest of its schema-qualified name
};
constexpr uint8_t kMaxItemClassCode = uint8_t(ItemClassCode::named_type);
// A builtin_type's oid is below this: PostgreSQL's FirstGenbkiObjectId, where
// the oids initdb fixes in every cluster end (the face asserts they agree).
constexpr uint32_t kFirstNonBuiltinTypeOid = 10000;

struct ItemClass {
    ItemClassCode code = ItemClassCode::unknown;
    uint32_t type = 0;  // builtin_type: the oid; named_type: the digest; else 0

    bool known() const { return code != ItemClassCode::unknown; }
    bool operator==(const ItemClass& o) const { return code == o.code && type == o.type; }
    bool operator!=(const ItemClass& o) const { return !(*this == o); }
};

// Whether an item (or filter) of class b may meet a filter of class a: an
// unknown side checks nothing.
inline bool classes_compatible(ItemClass a, ItemClass b) { return !a.known() || !b.known() || a == b; }
// The class of a filter made of filters of classes a and b (compatible).
inline ItemClass combined_class(ItemClass a, ItemClass b) { return a.known() ? a : b; }

// A stored class read back: false when the code is unknown to this build or
// the type field contradicts it (a class-wide code carries no type, a
// single-type code needs one, a built-in type's oid is a fixed one).
bool decode_item_class(uint8_t code, uint32_t type, ItemClass* out);

// The class as one nonzero word (0: unknown), for a shared object's header.
inline uint64_t item_class_word(ItemClass c) {
    return c.known() ? (uint64_t(c.code) << 32) | c.type : 0;
}
// The class a word holds; false for a word no build wrote.
bool item_class_of_word(uint64_t word, ItemClass* out);

}  // namespace sketch
