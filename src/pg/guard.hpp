// The error boundary between the core and PostgreSQL.
//
// ereport(ERROR) longjmps, which would skip the destructors of live C++ frames,
// and a C++ exception must never unwind through PostgreSQL's C frames. So core
// work runs inside guarded(): exceptions are caught there, their message copied
// into a plain buffer, and only after the try block (and every C++ frame it
// owned) is gone do we raise the ereport.
#pragma once

#include <new>

#include "error.hpp"
#include "pg.hpp"

namespace sketch_pg {

// Trivially destructible, so a longjmp over it leaks nothing.
struct PendingError {
    int sqlstate;
    char message[512];
};

void capture(PendingError& pending, const sketch::Error& e);
void capture(PendingError& pending, int sqlstate, const char* message);
[[noreturn]] void raise(const PendingError& pending);

// The exception being handled, into pending (call inside a catch block).
inline void capture_current(PendingError& pending) {
    try {
        throw;
    } catch (const sketch::Error& e) {
        capture(pending, e);
    } catch (const std::bad_alloc&) {
        capture(pending, ERRCODE_OUT_OF_MEMORY, "out of memory");
    } catch (const std::exception& e) {
        capture(pending, ERRCODE_INTERNAL_ERROR, e.what());
    } catch (...) {
        capture(pending, ERRCODE_INTERNAL_ERROR, "unknown C++ exception");
    }
}

// Runs f and returns its result; any exception becomes ereport(ERROR).
template <typename F>
auto guarded(F&& f) -> decltype(f()) {
    PendingError pending;
    try {
        return f();
    } catch (...) {
        capture_current(pending);
    }
    raise(pending);
}

// Runs f; an exception is kept in pending (false) instead of raised, for a
// caller that decides what to report once the C++ frames are gone.
template <typename F>
bool captured(F&& f, PendingError& pending) {
    try {
        f();
        return true;
    } catch (...) {
        capture_current(pending);
        return false;
    }
}

}  // namespace sketch_pg
