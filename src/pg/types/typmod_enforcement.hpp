// Enforcing the type modifiers of `bloom` and `cbf` (their encoding is
// src/core/typmod_encoding.hpp's): a column declared bloom(n, fpr[, layout])
// or cbf(capacity[, fpr]) holds only values of the geometry that sizing gives.
// The length-coercion casts check values assigned from expressions; the input
// and receive functions check what COPY and literals bring, since PostgreSQL
// hands them the column's modifier and applies no cast after them.
#pragma once

#include "bloom/bloom_layout.hpp"
#include "cbf/cbf.hpp"
#include "pg.hpp"

namespace sketch_pg {

// Raises 22023, naming both geometries, unless typmod is -1 (no modifier) or
// fixes geometry g.
void check_bloom_modifier(const sketch::bloom::Geometry& g, int32 typmod);
void check_cbf_modifier(const sketch::cbf::Geometry& g, int32 typmod);

// The modifier an input or receive function was called with (-1: none).
// They are declared with one argument in SQL, but PostgreSQL always passes
// the type's OID and the modifier after it.
inline int32 io_typmod(FunctionCallInfo fcinfo) { return PG_NARGS() > 2 ? PG_GETARG_INT32(2) : -1; }

}  // namespace sketch_pg
