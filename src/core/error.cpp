#include "error.hpp"

#include <cstdarg>
#include <cstdio>

namespace sketch {

void fail(Errc code, const char* format, ...) {
    char buffer[512];
    va_list args;
    va_start(args, format);
    std::vsnprintf(buffer, sizeof buffer, format, args);
    va_end(args);
    throw Error(code, buffer);
}

}  // namespace sketch
