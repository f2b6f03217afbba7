#include "item_class.hpp"

namespace sketch {

bool decode_item_class(uint8_t code, uint32_t type, ItemClass* out) {
    if (code > kMaxItemClassCode) return false;
    const auto c = ItemClassCode(code);
    const bool single_type = c == ItemClassCode::builtin_type || c == ItemClassCode::named_type;
    if (single_type != (type != 0)) return false;
    if (c == ItemClassCode::builtin_type && type >= kFirstNonBuiltinTypeOid) return false;
    *out = ItemClass{c, type};
    return true;
}

bool item_class_of_word(uint64_t word, ItemClass* out) {
    if (word >> 40 != 0) return false;
    return decode_item_class(uint8_t(word >> 32), uint32_t(word), out);
}

}  // namespace sketch
