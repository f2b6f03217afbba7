// The extension's module: the magic block PostgreSQL checks on load.
#include "pg.hpp"

extern "C" {
PG_MODULE_MAGIC;
}
