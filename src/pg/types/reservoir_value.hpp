// The reservoir value: its flat (stored) and expanded (aggregate state)
// forms, reading a flat value with validation, and writing one.
// Text and binary I/O: reservoir_io.cpp; functions and aggregates:
// reservoir_sql.cpp.
//
// Storage forms of one reservoir:
//  * flat: the varlena stored in tables (layout below). Elements of a
//    built-in (pinned) type are kept as PostgreSQL stores array elements
//    (raw datum bytes, aligned by the element type), and the element type by
//    OID, like arrays do. Elements of any other type, which DDL can drop or
//    change under a stored value that records no dependency on it, are kept
//    as their text form, with a digest of the type's shape: while the type
//    exists with that shape they read back through its input function;
//    once it is gone or its shape changed, the value reads as a reservoir of
//    text (see stored_of and live_item_type). The text and binary I/O (what
//    dump/restore, COPY, Citus and bytea casts see) name the element type
//    and carry each element through the element type's own text or binary
//    I/O, so values survive dump/restore.
//  * expanded: the aggregate state. An ExpandedObjectHeader in its own
//    memory context (a child of the aggregate context): nodeAgg adopts a
//    read/write expanded state returned by the transition function without
//    copying it, so the state is mutated in place per row and flattened
//    only when it leaves the aggregate (a partial aggregate's result, a
//    reservoir_agg result).
#pragma once

#include "reservoir/reservoir.hpp"
#include "pg.hpp"

extern "C" {
#include "lib/stringinfo.h"
#include "utils/expandeddatum.h"
}

namespace reservoir_pg {

namespace rsv = sketch::reservoir;

// ---- the flat form ----
//
//   Flat header (40 bytes)
//   double keys[count]        weighted only: log-key of each slot
//   items                     count elements, each aligned by the element
//                             type's typalign relative to the header start
//                             (the value is 8-aligned: ALIGNMENT = double);
//                             with kFlagTextItems, count text values laid
//                             out as text's (typlen etc. are text's)
constexpr uint32 kMagic = 0x31565352;  // "RSV1"
constexpr uint8 kVersion = 1;
constexpr uint8 kFlagWeighted = 1;
constexpr uint8 kFlagTextItems = 2;

struct Flat {
    int32 vl_len_;
    uint32 magic;
    uint8 version;
    uint8 flags;
    int16 typlen;
    Oid elemtype;
    bool typbyval;
    char typalign;
    int16 reserved;
    int32 k;
    int32 count;
    uint32 shape;  // kFlagTextItems: type_shape of elemtype when stored; else 0
    int64 seen;
};
static_assert(sizeof(Flat) == 40, "flat header layout");

struct Elem {
    Oid type;
    int16 len;
    bool byval;
    char align;
};

// A read-only look at a reservoir in either form.
struct View {
    Elem elem;  // the type the items read as
    bool weighted;
    int32 k;
    int32 count;
    int64 seen;
    Datum* items;        // count datums of elem's type, unless untyped
    const double* keys;  // count keys, weighted only
    bool untyped;        // items are text values holding their text forms
};

// ---- the expanded form ----
struct Expanded {
    ExpandedObjectHeader hdr;
    Elem elem;
    bool weighted;
    int32 k;
    int32 capacity;  // slots allocated in items (and keys, heap)
    Datum* items;
    double* keys;
    int32* heap;
    rsv::Rng rng;
    rsv::UniformSampler uniform;
    rsv::WeightedSampler wsampler;
    // Between expanded_flat_size and expanded_flatten_into: the text forms
    // computed for the flat value (items of a type stored as text), in a
    // context of their own; dropped when the state changes.
    MemoryContext flat_cxt;
    Datum* flat_texts;
    uint32 flat_shape;

    int64 seen() const { return weighted ? wsampler.seen() : uniform.seen(); }
    int32 count() const { return static_cast<int32>(weighted ? wsampler.count() : uniform.count()); }
};

extern const ExpandedObjectMethods kMethods;

[[noreturn]] void corrupted(const char* detail);
Elem elem_for(Oid type);
const Elem& text_elem();
bool stored_as_text(Oid type);
// Builds a flat value of count items of type e (keys: weighted only).
Datum flat_build(const Elem& e, bool weighted, int32 k, int64 seen, int32 count, const Datum* items,
                 const double* keys);
// Drops the text forms computed for flattening r (when r changes).
void forget_flat_texts(Expanded* r);
bool is_expanded(Datum d);
Expanded* expanded_of(Datum d);
// A look at d; with `typed`, its items are datums of v->elem's type (text
// items converted back), else they may be untyped text forms.
void view_of(Datum d, View* v, bool typed = true);
// A type's name as the text form writes it (schema-qualified).
char* type_name_of(Oid type);
// A log-key as JSON: a number, or the string "-Infinity", which text input
// accepts and JSON has no number for.
void append_log_key(StringInfo buf, double key);

}  // namespace reservoir_pg
