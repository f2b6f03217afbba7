// What bloom_sql.cpp (the type, functions and operators) and bloom_agg_sql.cpp
// (the aggregates) share; defined in bloom_sql.cpp.
#pragma once

#include "types/bloom_value.hpp"

namespace sketch_pg::bloom_sql {

// bloom_agg buffers item hashes (agg_state.hpp) when its array is too big
// for the caches (prefetching pays off there); small states insert directly.
constexpr uint64_t kBufferFromBytes = 128 * 1024;

// The HINT of the warning of an add or aggregate that takes a value past its capacity.
constexpr const char* kPastCapacityHint =
    "Build the filter with a larger n, or use a shared Bloom filter, which grows as it fills.";

// A detoasted bloom value and what its header says.
struct Opened {
    struct varlena* v;
    sketch::bloom::Geometry g;
    uint64_t seed;
    sketch::ItemClass item;
    sketch::bloom::Sizing sizing;
};

// Validates the header of a detoasted value against its length.
Opened inspect(struct varlena* v);

// A value ready to read: detoasted (a bloom_agg state is flattened, its
// buffered hashes applied) and validated.
Opened open_value(Datum d);

// bloom_agg's large state (agg_state.hpp) as a value, its buffered hashes
// applied, in the state's own memory; nullptr for any other datum. For
// reading only: bloom_out writes a state out without a flattened copy (Citus
// writes each shard's partial state with the output function).
struct varlena* agg_state_value(Datum d);

// Refuses to `what` two filters whose item classes do not meet, or of
// different layout, size or seed.
void check_compatible(const Opened& a, const Opened& b, const char* what);

// Geometry for n items at fpr with a layout spec (null: the default layout);
// throws sketch::Error for arguments that size no filter.
sketch::bloom::Geometry geometry_of(int64_t n, double fpr, const char* layout);

// The same, raising the error.
sketch::bloom::Geometry resolve_geometry(int64_t n, double fpr, const char* layout);

}  // namespace sketch_pg::bloom_sql
