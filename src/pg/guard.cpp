#include "guard.hpp"

#include <cstring>

namespace sketch_pg {

static int sqlstate_for(sketch::Errc code) {
    switch (code) {
        case sketch::Errc::invalid_parameter: return ERRCODE_INVALID_PARAMETER_VALUE;
        case sketch::Errc::invalid_text: return ERRCODE_INVALID_TEXT_REPRESENTATION;
        case sketch::Errc::invalid_binary: return ERRCODE_INVALID_BINARY_REPRESENTATION;
        case sketch::Errc::corrupted: return ERRCODE_DATA_CORRUPTED;
        case sketch::Errc::mismatch: return ERRCODE_INVALID_PARAMETER_VALUE;
        case sketch::Errc::program_limit: return ERRCODE_PROGRAM_LIMIT_EXCEEDED;
        case sketch::Errc::out_of_memory: return ERRCODE_OUT_OF_MEMORY;
        case sketch::Errc::io_error: return ERRCODE_IO_ERROR;
        case sketch::Errc::object_state: return ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE;
        case sketch::Errc::object_in_use: return ERRCODE_OBJECT_IN_USE;
        case sketch::Errc::internal: break;
    }
    return ERRCODE_INTERNAL_ERROR;
}

void capture(PendingError& pending, int sqlstate, const char* message) {
    pending.sqlstate = sqlstate;
    std::strncpy(pending.message, message, sizeof pending.message - 1);
    pending.message[sizeof pending.message - 1] = '\0';
}

void capture(PendingError& pending, const sketch::Error& e) {
    capture(pending, sqlstate_for(e.code()), e.what());
}

void raise(const PendingError& pending) {
    ereport(ERROR, (errcode(pending.sqlstate), errmsg("%s", pending.message)));
    pg_unreachable();
}

}  // namespace sketch_pg
