// Fuzz target: the reservoir text form's JSON envelope decoder. Whatever the
// bytes, read_text either throws sketch::Error or accepts a value whose
// arrays hold the counts it reports, with every span inside the input and
// every string decodable (no NUL, no lone surrogate).
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "error.hpp"
#include "reservoir/reservoir_format.hpp"

namespace {

using namespace sketch::reservoir;

void check_string(const char* text, size_t size, TextSpan span) {
    if (span.offset > size || span.length > size - span.offset) std::abort();
    TextStringReader reader(text, span);
    StringPiece piece;
    while (reader.next(piece)) {
        if (piece.length > 0) {
            if (piece.bytes < text + span.offset || piece.bytes + piece.length > text + span.offset + span.length)
                std::abort();
        } else if (piece.code_point == 0 || piece.code_point > 0x10FFFF ||
                   (piece.code_point >= 0xD800 && piece.code_point <= 0xDFFF)) {
            std::abort();
        }
    }
}

int32_t check_array(const char* text, size_t size, size_t at) {
    if (at >= size || text[at] != '[') std::abort();
    TextArrayReader reader(text, at);
    TextSpan span;
    bool quoted;
    int32_t n = 0;
    while (reader.next(span, quoted)) {
        if (quoted) check_string(text, size, span);
        else if (span.length == 0 || span.offset + span.length > size) std::abort();
        ++n;
    }
    return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    // reservoir_in gets a NUL-terminated string: the readers rely on the
    // closing bracket, never on the terminator, so none is added here.
    const char* text = reinterpret_cast<const char*>(data);
    TextEnvelope env;
    try {
        env = read_text(text, size);
    } catch (const sketch::Error&) {
        return 0;
    }
    if (env.k < 1 || env.count < 0 || env.count > env.k || env.seen < env.count) std::abort();
    check_string(text, size, env.type_name);
    if (check_array(text, size, env.items_at) != env.count) std::abort();
    if (env.weighted && check_array(text, size, env.keys_at) != env.count) std::abort();
    return 0;
}
