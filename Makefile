# sketchshare: a PGXS extension with a C++17 core.
#   make / make install      the extension (PGXS)
#   make unit                core unit tests (GoogleTest), no PostgreSQL needed
#   scripts/test.sh          every test; scripts/demo.sh the demo (see README)

EXTENSION    = sketchshare
EXTVERSION   = 0.1.0
MODULE_big   = sketchshare

CORE_SRCS    = $(sort $(wildcard src/core/*.cpp))
PG_SRCS      = $(sort $(wildcard src/pg/*.cpp))
CORE_OBJS    = $(CORE_SRCS:.cpp=.o)
OBJS         = $(CORE_OBJS) $(PG_SRCS:.cpp=.o)

# The install script is assembled from one piece per structure, in name order.
SQL_PIECES   = $(sort $(wildcard src/sql/*.sql))
INSTALL_SQL  = $(EXTENSION)--$(EXTVERSION).sql
DATA_built   = $(INSTALL_SQL)
DATA         = $(wildcard sketchshare--*--*.sql)

REGRESS      = $(basename $(notdir $(sort $(wildcard sql/*.sql))))
REGRESS_OPTS = --load-extension=$(EXTENSION)

PG_CONFIG   ?= pg_config
PG_CXXFLAGS  = -std=c++17 -fno-omit-frame-pointer -fno-semantic-interposition -Wno-register
# -Bsymbolic-functions: the library's calls to its own functions bind at link
# time, not through the PLT (an indirect jump per call on the per-row paths).
SHLIB_LINK   = -lstdc++ -Wl,-Bsymbolic-functions

# No LLVM bitcode for JIT inlining: it would require clang at install time.
override with_llvm = no
# Header dependencies, tracked by the compiler in .deps/ (basenames are unique
# across src/core and src/pg, which this needs).
override autodepend = yes

PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# AVX2 kernels: their own translation unit, picked at run time by cpuid.
# -mmove-max=256 keeps GCC from splitting 256-bit block moves (see docs/internals.md).
src/core/bloom_avx2.o: CXXFLAGS += -mavx2 -mmove-max=256

$(INSTALL_SQL): $(SQL_PIECES)
	cat $^ > $@

# ---- core unit tests: the core alone, without PostgreSQL ----
UNIT_SRCS    = $(sort $(wildcard test/core/*.cpp))
UNIT_BIN     = test/core/unit_tests
UNIT_CXXFLAGS = -std=c++17 -O2 -g -Wall -Isrc/core -pthread

$(UNIT_BIN): $(UNIT_SRCS) $(CORE_OBJS) $(wildcard src/core/*.hpp)
	$(CXX) $(UNIT_CXXFLAGS) -o $@ $(UNIT_SRCS) $(CORE_OBJS) -lgtest -lgtest_main -pthread

unit: $(UNIT_BIN)
	./$(UNIT_BIN)

# ---- core benchmarks (Google Benchmark): bench/core/NAME_bench.cpp ----
bench/core/%_bench: bench/core/%_bench.cpp $(CORE_OBJS) $(wildcard src/core/*.hpp)
	$(CXX) -std=c++17 -O2 -g -Isrc/core -o $@ $< $(CORE_OBJS) -lbenchmark -lpthread

EXTRA_CLEAN  = $(UNIT_BIN) results regression.diffs regression.out
.PHONY: unit
