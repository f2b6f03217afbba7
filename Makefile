# sketchshare: a PGXS extension with a C++17 core.
#   make / make install      the extension (PGXS)
#   make unit                core unit tests (GoogleTest), no PostgreSQL needed
#   scripts/test.sh          every test; scripts/demo.sh the demo (see README)
#
# The core (src/core) is a static library built with its own include path
# only: a PostgreSQL header included there does not compile. The extension,
# the unit tests and the benchmarks link it.

EXTENSION    = sketchshare
EXTVERSION   = 0.1.0
MODULE_big   = sketchshare

CORE_SRCS    = $(sort $(wildcard src/core/*.cpp src/core/*/*.cpp))
CORE_HDRS    = $(wildcard src/core/*.hpp src/core/*/*.hpp)
CORE_OBJS    = $(CORE_SRCS:.cpp=.o)
CORE_LIB     = src/core/libsketchcore.a
PG_SRCS      = $(sort $(wildcard src/pg/*.cpp src/pg/*/*.cpp))
OBJS         = $(PG_SRCS:.cpp=.o)

# The install script is assembled from one piece per structure, in name order.
SQL_PIECES   = $(sort $(wildcard src/sql/*.sql))
INSTALL_SQL  = $(EXTENSION)--$(EXTVERSION).sql
DATA_built   = $(INSTALL_SQL)
DATA         = $(wildcard sketchshare--*--*.sql)

REGRESS      = $(basename $(notdir $(sort $(wildcard sql/*.sql))))
REGRESS_OPTS = --load-extension=$(EXTENSION)

PG_CONFIG   ?= pg_config
PG_CXXFLAGS  = -std=c++17 -fno-omit-frame-pointer -fno-semantic-interposition -Wno-register
# The face names core headers by their folder ("bloom/bloom.hpp") and its own
# likewise ("shared_objects/shared_registry.hpp").
PG_CPPFLAGS  = -Isrc/core -Isrc/pg
# -Bsymbolic-functions: the library's calls to its own functions bind at link
# time, not through the PLT (an indirect jump per call on the per-row paths).
SHLIB_LINK   = $(CORE_LIB) -lstdc++ -Wl,-Bsymbolic-functions

# No LLVM bitcode for JIT inlining: it would require clang at install time.
override with_llvm = no
# Header dependencies, tracked by the compiler in .deps/ (named by basename,
# so basenames are unique across src/core and src/pg).
override autodepend = yes

PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# The core: PGXS's compiler flags without its preprocessor flags (which name
# PostgreSQL's include directory).
src/core/%.o: src/core/%.cpp
	@mkdir -p $(DEPDIR)
	$(CXX) $(CXXFLAGS) -Isrc/core -c -o $@ $< -MMD -MP -MF $(DEPDIR)/$(*F).Po

$(CORE_LIB): $(CORE_OBJS)
	rm -f $@
	$(AR) crs $@ $^

$(shlib): $(CORE_LIB)

# AVX2 kernels: their own translation unit, picked at run time by cpuid.
# -mmove-max=256 keeps GCC from splitting 256-bit block moves into 16-byte
# halves and a stack round trip (docs/internals.md).
src/core/bloom/bloom_avx2.o: CXXFLAGS += -mavx2 -mmove-max=256

$(INSTALL_SQL): $(SQL_PIECES)
	cat $^ > $@

# ---- core unit tests: the core alone, without PostgreSQL ----
UNIT_SRCS    = $(sort $(wildcard test/core/*.cpp))
UNIT_BIN     = test/core/unit_tests
UNIT_CXXFLAGS = -std=c++17 -O2 -g -Wall -Isrc/core -pthread

$(UNIT_BIN): $(UNIT_SRCS) $(CORE_LIB) $(CORE_HDRS)
	$(CXX) $(UNIT_CXXFLAGS) -o $@ $(UNIT_SRCS) $(CORE_LIB) -lgtest -lgtest_main -pthread

unit: $(UNIT_BIN)
	./$(UNIT_BIN)

# ---- core benchmarks (Google Benchmark): bench/core/NAME_bench.cpp ----
bench/core/%_bench: bench/core/%_bench.cpp $(CORE_LIB) $(CORE_HDRS)
	$(CXX) -std=c++17 -O2 -g -Isrc/core -o $@ $< $(CORE_LIB) -lbenchmark -lpthread

# ---- the table docs/fpr.svg is drawn from (scripts/fpr_chart.sh) ----
scripts/fpr_table: scripts/fpr_table.cpp $(CORE_LIB) $(CORE_HDRS)
	$(CXX) -std=c++17 -O2 -Isrc/core -o $@ $< $(CORE_LIB)

EXTRA_CLEAN  = $(CORE_LIB) $(CORE_OBJS) scripts/fpr_table $(UNIT_BIN) results regression.diffs regression.out
.PHONY: unit
