# sketchshare: a PGXS extension with a C++17 core.
#   make / make install      the extension (PGXS)
#   make unit                core unit tests (GoogleTest), no PostgreSQL needed
#   make unit-asan, unit-tsan, fuzz   the same under sanitizers, and the fuzzers (below)
#   scripts/test.sh          every test; scripts/demo.sh the demo (see README)
#
# The core (src/core) is a static library built with its own include path
# only: a PostgreSQL header included there does not compile. The extension,
# the unit tests and the benchmarks link it.

EXTENSION    = sketchshare
EXTVERSION   = 0.2.0
MODULE_big   = sketchshare

CORE_SRCS    = $(sort $(wildcard src/core/*.cpp src/core/*/*.cpp))
CORE_HDRS    = $(wildcard src/core/*.hpp src/core/*/*.hpp)
CORE_OBJS    = $(CORE_SRCS:.cpp=.o)
CORE_LIB     = src/core/libsketchcore.a
PG_SRCS      = $(sort $(wildcard src/pg/*.cpp src/pg/*/*.cpp src/pg/*/*/*.cpp))
OBJS         = $(PG_SRCS:.cpp=.o)

# The install script of this version is assembled from one piece per
# structure, in name order. Released versions keep theirs, as they were
# assembled, in sql-history/ (CREATE EXTENSION ... VERSION 'x.y.z', and the
# upgrade test starts from them); each step from a release to the next is an
# upgrade script, sketchshare--A--B.sql (docs/operations.md, "Upgrades").
SQL_PIECES   = $(sort $(wildcard src/sql/*.sql))
INSTALL_SQL  = $(EXTENSION)--$(EXTVERSION).sql
DATA_built   = $(INSTALL_SQL)
DATA         = $(wildcard sketchshare--*--*.sql) $(wildcard sql-history/$(EXTENSION)--*.sql)

REGRESS      = $(basename $(notdir $(sort $(wildcard sql/*.sql))))
REGRESS_OPTS = --load-extension=$(EXTENSION)

PG_CONFIG   ?= pg_config
PG_CXXFLAGS  = -std=c++17 -fno-omit-frame-pointer -fno-semantic-interposition -Wno-register
# The face names core headers by their folder ("bloom/bloom.hpp") and its own
# likewise ("shared_objects/registry/shared_registry.hpp").
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

# ---- side by side with Boost.Bloom (bench/README.md, "boost_compare") ----
# Header-only Boost.Bloom and its dependencies, each checked out as
# BOOST_BLOOM_DEPS/NAME/include. Both sides are compiled here with -O3
# -march=native: the kernels from their sources, not the library's objects.
BOOST_BLOOM_DEPS ?= /work/boost-deps
BOOST_COMPARE_DIR = bench/core/.boost_compare
BOOST_COMPARE_SRCS = bench/core/boost_compare.cpp src/core/hash.cpp src/core/error.cpp \
                     $(filter-out %_format.cpp,$(wildcard src/core/bloom/*.cpp))
BOOST_COMPARE_OBJS = $(BOOST_COMPARE_SRCS:%.cpp=$(BOOST_COMPARE_DIR)/%.o)
$(BOOST_COMPARE_DIR)/%.o: %.cpp $(CORE_HDRS)
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -O3 -march=native -Isrc/core $(patsubst %,-I%,$(wildcard $(BOOST_BLOOM_DEPS)/*/include)) -c -o $@ $<
ifneq ($(wildcard $(BOOST_BLOOM_DEPS)/bloom/include/boost/bloom.hpp),)
bench/core/boost_compare: $(BOOST_COMPARE_OBJS)
	$(CXX) -o $@ $^
else
bench/core/boost_compare:
	@echo "skipped bench/core/boost_compare: no Boost.Bloom in BOOST_BLOOM_DEPS=$(BOOST_BLOOM_DEPS) (bench/README.md)"
endif

# ---- the table docs/fpr.svg is drawn from (scripts/fpr_chart.sh) ----
scripts/fpr_table: scripts/fpr_table.cpp $(CORE_LIB) $(CORE_HDRS)
	$(CXX) -std=c++17 -O2 -Isrc/core -o $@ $< $(CORE_LIB)

# ---- sanitizers and fuzzing: the core compiled again by clang, at -O1 (the Bloom kernels at -O0, below), into
# .san/ (never mixed with the PGXS objects above) ----
#   make unit-asan               every core unit test under AddressSanitizer + UBSan
#   make unit-tsan               the lock and shared-file tests under ThreadSanitizer
#   make fuzz [FUZZ_SECONDS=60]  every test/fuzz/fuzz_NAME.cpp against the sanitized core:
#                                replays test/fuzz/regressions/NAME/, then fuzzes for its
#                                share of FUZZ_SECONDS from test/fuzz/corpus/NAME/
SAN_CXX      ?= clang++
SAN_DIR       = .san
SAN_CXXFLAGS  = -std=c++17 -g -fno-omit-frame-pointer -pthread $(filter -I%,$(UNIT_CXXFLAGS))
ASAN          = -fsanitize=address,undefined -fno-sanitize-recover=all
# One ASan+UBSan build serves the fuzzers and unit-asan: the coverage
# instrumentation libFuzzer steers by (fuzzer-no-link) is inert without it.
ASAN_OBJS     = $(CORE_SRCS:%.cpp=$(SAN_DIR)/asan/%.o)
ASAN_UNIT     = $(SAN_DIR)/unit_tests_asan
# ThreadSanitizer runs the tests whose threads share lock words and mappings,
# so it needs only the core they use.
TSAN_SRCS     = $(filter %/test_shared_rwlock.cpp %/test_shared_file.cpp %/test_shared_cbf.cpp %/test_cbf_block_atomic.cpp \
                  %/test_shared_reservoir.cpp,$(UNIT_SRCS))
TSAN_CORE     = $(filter %/error.cpp %/hash.cpp %/cbf.cpp %/rwlock.cpp %/reservoir.cpp %/shared_file.cpp \
                  %/shared_file_create.cpp %/shared_folders.cpp %/shared_file_growth.cpp %/shared_reservoir.cpp %/object_ops.cpp %/shared_cbf_format.cpp \
                  %/cbf_block.cpp %/cbf_layout.cpp %/bloom_formulas.cpp %/bloom_layout.cpp %/scaling.cpp %/item_class.cpp,$(CORE_SRCS))
TSAN_OBJS     = $(patsubst %.cpp,$(SAN_DIR)/tsan/%.o,$(TSAN_SRCS) $(TSAN_CORE))
TSAN_UNIT     = $(SAN_DIR)/unit_tests_tsan
# Tests that fork synchronise processes through futexes in shared mappings,
# which ThreadSanitizer cannot see (it watches one process): left out.
TSAN_SKIP     = *Forked*:*Killed*:*DeadWriter*:*AliveMeans*:*SpinWordRefused*:*FailedReservation*:*LargeCreateStops*:*OpsCountedInStripes*
FUZZ_SRCS     = $(sort $(wildcard test/fuzz/fuzz_*.cpp))
FUZZ_BINS     = $(patsubst test/fuzz/%.cpp,$(SAN_DIR)/fuzz/%,$(FUZZ_SRCS))
FUZZ_SECONDS ?= 60

# The AVX2 kernels' translation unit needs its instruction set here too.
san_arch = $(if $(findstring _avx2,$<),-mavx2)
# The Bloom kernel units instantiate every layout for every k: optimising them
# under the sanitizers takes most of this build's time and buys little, since
# the checks do not depend on it; the rest of the core is built at -O1.
san_opt = $(if $(findstring bloom_kernels_,$<),-O0,-O1)

$(SAN_DIR)/asan/%.o: %.cpp
	@mkdir -p $(@D)
	$(SAN_CXX) $(SAN_CXXFLAGS) $(san_opt) $(ASAN) -fsanitize=fuzzer-no-link $(san_arch) -MMD -MP -c $< -o $@

$(SAN_DIR)/tsan/%.o: %.cpp
	@mkdir -p $(@D)
	$(SAN_CXX) $(SAN_CXXFLAGS) $(san_opt) -fsanitize=thread $(san_arch) -MMD -MP -c $< -o $@

# Kept between runs (make would delete them as intermediates of the fuzzers).
.SECONDARY: $(FUZZ_SRCS:%.cpp=$(SAN_DIR)/asan/%.o)

-include $(wildcard $(SAN_DIR)/*/*/*/*.d $(SAN_DIR)/*/*/*/*/*.d)

$(ASAN_UNIT): $(UNIT_SRCS:%.cpp=$(SAN_DIR)/asan/%.o) $(ASAN_OBJS)
	$(SAN_CXX) $(SAN_CXXFLAGS) $(ASAN) -o $@ $^ -lgtest -lgtest_main

$(TSAN_UNIT): $(TSAN_OBJS)
	$(SAN_CXX) $(SAN_CXXFLAGS) -fsanitize=thread -o $@ $^ -lgtest -lgtest_main

$(SAN_DIR)/fuzz/fuzz_%: $(SAN_DIR)/asan/test/fuzz/fuzz_%.o $(ASAN_OBJS)
	@mkdir -p $(@D)
	$(SAN_CXX) $(SAN_CXXFLAGS) $(ASAN) -fsanitize=fuzzer -o $@ $^

unit-asan: $(ASAN_UNIT)
	UBSAN_OPTIONS=print_stacktrace=1 ./$(ASAN_UNIT)

unit-tsan: $(TSAN_UNIT)
	./$(TSAN_UNIT) --gtest_filter='-$(TSAN_SKIP)'

fuzz-build: $(FUZZ_BINS)

fuzz: fuzz-build
	test/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_BINS)

# The seed corpora, rewritten from the core's own encoders.
fuzz-corpus: test/fuzz/make_corpus
	test/fuzz/make_corpus test/fuzz/corpus

test/fuzz/make_corpus: test/fuzz/make_corpus.cpp $(CORE_LIB) $(CORE_HDRS)
	$(CXX) $(UNIT_CXXFLAGS) -o $@ $< $(CORE_LIB)

EXTRA_CLEAN  = $(CORE_LIB) $(CORE_OBJS) scripts/fpr_table $(UNIT_BIN) results regression.diffs regression.out \
               $(SAN_DIR) test/fuzz/make_corpus
.PHONY: unit unit-asan unit-tsan fuzz fuzz-build fuzz-corpus
