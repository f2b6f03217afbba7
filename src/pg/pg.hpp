// The one way C++ in src/pg includes PostgreSQL: inside extern "C", and with a
// macro that declares an fmgr entry point with C linkage.
#pragma once

extern "C" {
#include "postgres.h"
#include "fmgr.h"
#include "utils/builtins.h"
}

// Declares and defines a V1 SQL-callable function with C linkage.
#define SKETCH_FUNCTION(name)            \
    extern "C" {                         \
    PG_FUNCTION_INFO_V1(name);           \
    }                                    \
    extern "C" Datum name(PG_FUNCTION_ARGS)
