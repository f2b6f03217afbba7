// What cbf_sql.cpp (the type, functions and operators) and cbf_agg_sql.cpp
// (the aggregates) share; defined in cbf_sql.cpp.
#pragma once

#include "cbf/cbf_format.hpp"
#include "cbf/cbf_layout.hpp"
#include "capacity_warning.hpp"
#include "item_hash.hpp"
#include "types/fetched_filters.hpp"

namespace sketch_pg::cbf_sql {

namespace cbf = sketch::cbf;

// Values stay below 2^29 counters (256 MiB of counters), so that every value
// also fits its text form (twice its size) within PostgreSQL's 1 GB limit.
constexpr uint64_t kValueMaxCounters = uint64_t(1) << 29;

// The fpr of cbf_agg (and cbf_empty, src/sql/20_cbf.sql) when none is given.
constexpr double kDefaultFpr = 0.01;

// The HINT of the warning of an add or aggregate that takes a value past its capacity.
constexpr const char* kPastCapacityHint =
    "Build the filter with a larger capacity, or use a shared counting filter, which grows as it fills.";

inline uint8_t* payload(varlena* v) { return reinterpret_cast<uint8_t*>(VARDATA(v)); }
inline size_t payload_len(const varlena* v) { return VARSIZE(v) - VARHDRSZ; }

// Parses a detoasted (4-byte header) value; code is the SQLSTATE class of a failure.
cbf::View view_of(varlena* v, sketch::Errc code = sketch::Errc::corrupted);

// A fresh, zeroed value (palloc'd in the current context) for geometry g and
// items of class item.
varlena* new_value(const cbf::Geometry& g, sketch::ItemClass item = {});

// Raises 22004 for a NULL capacity, or a NULL fpr when one is passed.
void require_capacity_and_fpr(FunctionCallInfo fcinfo, int capacity_arg, int fpr_arg);

// The geometry of the capacity, fpr and layout arguments (fpr_arg past the
// last argument: the default fpr; layout_arg past it or NULL: the classic
// layout). A NULL capacity or fpr is 22004, a bad layout 22023.
cbf::Geometry geometry_from_args(FunctionCallInfo fcinfo, int capacity_arg, int fpr_arg, int layout_arg);

// Per-call cache in fn_extra: the item hasher and, for read-only functions,
// the last detoasted out-of-line filter (keyed by its TOAST pointer), so that
// `cbf_contains((SELECT f FROM filters), x)` fetches the filter once per query
// rather than once per row.
struct CallCache {
    sketch_pg::ItemHasher hasher;
    sketch_pg::FetchedFilter fetched;  // the stored filter read last
    cbf::View view;                    // of fetched.value
    sketch_pg::InlineCompressed compressed;  // the filter compressed in its row read last
    cbf::View compressed_view;               // of compressed.value
    // cbf_agg_trans on a flat state: the state seen last and its header.
    varlena* state;
    uint32 state_size;
    uint8_t state_header[cbf::kHeaderBytes];
    cbf::View state_view;
    // cbf_agg's layout argument as parsed last, and its text when layout_kept
    // (not before a row has parsed one, nor for a NULL or a text too long to keep).
    cbf::Layout layout;
    bool layout_kept;
    size_t layout_len;
    char layout_text[32];
};

// The layout text argument, parsed (22023 when it is bad); NULL: classic.
cbf::Layout layout_arg(FunctionCallInfo fcinfo, int argno);

CallCache* call_cache_init(FunctionCallInfo fcinfo, int item_arg);

// Per row: only a pointer test once the cache is set up.
inline CallCache* call_cache(FunctionCallInfo fcinfo, int item_arg) {
    auto* cache = static_cast<CallCache*>(fcinfo->flinfo->fn_extra);
    if (likely(cache != nullptr && (item_arg < 0 || cache->hasher.typid != InvalidOid))) return cache;
    return call_cache_init(fcinfo, item_arg);
}

sketch::Hash128 item_hash(FunctionCallInfo fcinfo, CallCache* cache, int argno, const cbf::Geometry& g);

// Raises 22023 for two filters that cannot be merged.
[[noreturn]] void geometry_mismatch(const cbf::Geometry& a, const cbf::Geometry& b);

}  // namespace sketch_pg::cbf_sql
