// Errors raised by the core. The core never includes PostgreSQL headers, so it
// reports failures as sketch::Error; src/pg/guard.hpp turns them into ereport
// once the C++ frames that threw them are gone.
#pragma once

#include <stdexcept>
#include <string>

namespace sketch {

// What went wrong, in terms that map one-to-one onto a SQLSTATE.
enum class Errc {
    invalid_parameter,  // 22023: a caller-supplied argument is out of range
    invalid_text,       // 22P02: malformed text representation
    invalid_binary,     // 22P03: malformed binary input (recv, a bytea cast)
    corrupted,          // XX001-like: a stored value or file fails validation
    mismatch,           // 22023: two structures cannot be combined
    program_limit,      // 54000: a size beyond what we allow
    out_of_memory,      // 53200
    io_error,           // 58030
    object_state,       // 55000: the object is in the wrong state (frozen, ...)
    object_in_use,      // 55006: another process is at work on it (creating it)
    internal,           // XX000
};

class Error : public std::runtime_error {
public:
    Error(Errc code, const std::string& message) : std::runtime_error(message), code_(code) {}
    Errc code() const noexcept { return code_; }

private:
    Errc code_;
};

// printf-style convenience so call sites stay one line.
[[noreturn]] void fail(Errc code, const char* format, ...) __attribute__((format(printf, 2, 3)));

}  // namespace sketch
