// Settings that module.cpp's _PG_init defines (README "Settings").
#pragma once

namespace sketch_pg {

// sketchshare.seed: '' (the default) seeds random sampling from a strong
// random source; any other string makes it reproducible (README).
extern char* seed_setting;

}  // namespace sketch_pg
