// The SQL face of the Bloom filter: type `bloom` (I/O, casts), functions and
// operators (the aggregates are bloom_agg_sql.cpp's). Core work runs inside
// guarded(); palloc and ereport happen only outside it, with no C++ objects
// alive in the frame.
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "bloom/bloom_fill.hpp"
#include "filter_text.hpp"
#include "types/bloom_value.hpp"
#include "types/bloom_sql_internal.hpp"
#include "types/agg_state.hpp"
#include "capacity_warning.hpp"
#include "guard.hpp"
#include "memory/detoast_into.hpp"
#include "memory/huge_pages.hpp"
#include "prefetch/prefetch.hpp"
#include "types/fetched_filters.hpp"
#include "types/typmod_enforcement.hpp"
#include "item_hash.hpp"
#include "item_types.hpp"
#include "layout_name.hpp"
#include "array_items.hpp"

extern "C" {
#include "access/detoast.h"
#include "common/hashfn.h"
#include "lib/stringinfo.h"
#include "libpq/pqformat.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"
}

namespace sb = sketch::bloom;
using sketch::Hash128;

namespace sketch_pg {

struct varlena* bloom_value_new(const sb::Geometry& g, uint64_t seed, sketch::ItemClass item, const sb::Sizing& sizing) {
    const size_t size = bloom_plain_size(g, sizing);
    auto* v = static_cast<struct varlena*>(palloc0_large(size));
    SET_VARSIZE(v, size);
    sb::write_header(bloom_header(v), g, seed, item, sizing);
    return v;
}

}  // namespace sketch_pg

using namespace sketch_pg;

namespace sketch_pg::bloom_sql {

// The header of a detoasted value, checked against its length; throws
// (corrupted) saying what is wrong.
static sb::Header checked_header(struct varlena* v) {
    const size_t len = VARSIZE(v);
    sb::Header h = sb::read_header(bloom_header(v), len - VARHDRSZ, sketch::Errc::corrupted);
    const size_t plain = bloom_plain_size(h.geometry, h.sizing);
    if (len != plain)
        sketch::fail(sketch::Errc::corrupted, "bloom value of %zu bytes is inconsistent with its header (%zu bytes expected)",
                     len, plain);
    return h;
}

// Validates the header of a detoasted value against its length.
Opened inspect(struct varlena* v) {
    const sb::Header h = guarded([&] { return checked_header(v); });
    return Opened{v, h.geometry, h.seed, h.item, h.sizing};
}

// A value ready to read: detoasted (a bloom_agg state is flattened, its
// buffered hashes applied) and validated.
Opened open_value(Datum d) { return inspect(detoast_large(d)); }

// A copy of the value (and its sizing), holding items of class item.
static struct varlena* copy_value(const Opened& o, sketch::ItemClass item) {
    struct varlena* c = bloom_value_new(o.g, o.seed, item, o.sizing);
    std::memcpy(bloom_bits(c), bloom_bits(o.v), o.g.bytes);
    return c;
}

void check_compatible(const Opened& a, const Opened& b, const char* what) {
    check_classes_meet(a.item, b.item, psprintf("%s bloom filters", what));
    if (a.g == b.g && a.seed == b.seed) return;
    LayoutName la = layout_name(a.g.layout), lb = layout_name(b.g.layout);
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("cannot %s bloom filters of different layout, size or seed", what),
                    errdetail("%s of %" PRIu64 " bits with seed %" PRId64 " versus %s of %" PRIu64 " bits with seed %" PRId64 ".",
                              la.text, a.g.bits(), int64_t(a.seed), lb.text, b.g.bits(), int64_t(b.seed))));
}

// text argument -> palloc'd C string, or null.
static const char* layout_arg(FunctionCallInfo fcinfo, int argno) {
    if (PG_NARGS() <= argno || PG_ARGISNULL(argno)) return nullptr;
    return text_to_cstring(PG_GETARG_TEXT_PP(argno));
}

// Geometry for n items at fpr with a layout spec (null: the default layout);
// throws sketch::Error for arguments that size no filter.
sb::Geometry geometry_of(int64_t n, double fpr, const char* layout) {
    sb::check_n_fpr(double(n), fpr);
    sb::Layout l = layout != nullptr ? sb::parse_layout(layout) : sb::default_layout(uint64_t(n), fpr);
    return sb::capacity_for(uint64_t(n), fpr, l);
}

// The same, raising the error.
sb::Geometry resolve_geometry(int64_t n, double fpr, const char* layout) {
    return guarded([&] { return geometry_of(n, fpr, layout); });
}

static const char* kind_name(sb::Kind k) {
    switch (k) {
        case sb::Kind::block: return "block";
        case sb::Kind::multiblock: return "multiblock";
        case sb::Kind::fast_multiblock32: return "fast_multiblock32";
        case sb::Kind::fast_multiblock64: return "fast_multiblock64";
        case sb::Kind::cbf: return "cbf";
    }
    return "?";
}

// The external (binary) form: header + bit array.
static void write_external(const Opened& o, uint8_t* out) {
    sb::write_header(out, o.g, o.seed, o.item, o.sizing);
    std::memcpy(out + sb::header_bytes(o.sizing), bloom_bits(o.v), o.g.bytes);
}

static size_t external_size(const Opened& o) { return sb::external_size(o.g, o.sizing); }

// External form -> value; what fails validation is reported as `code`, a
// geometry other than the type modifier's (-1: none) as check_bloom_modifier does.
static struct varlena* from_external(const uint8_t* data, size_t len, sketch::Errc code, int32 typmod) {
    sb::Header h = guarded([&] { return sb::read_external(data, len, code); });
    check_bloom_modifier(h.geometry, typmod);
    struct varlena* v = bloom_value_new(h.geometry, h.seed, h.item, h.sizing);
    std::memcpy(bloom_bits(v), data + sb::header_bytes(h.sizing), h.geometry.bytes);
    return v;
}

}  // namespace sketch_pg::bloom_sql

using namespace sketch_pg::bloom_sql;

// ---- type I/O ----

// The text decodes straight into the value (the binary form is the value's
// header and bit array), which is then validated, its header written anew
// and its padding zeroed: no second copy of a large filter, as Citus's
// coordinator reads one partial state per shard. Both header lengths leave
// the bit array at a multiple of 8, so the value's size follows from the
// decoded length alone (bloom_plain_size once the header is read).
SKETCH_FUNCTION(bloom_in) {
    const char* s = PG_GETARG_CSTRING(0);
    const size_t len = strlen(s);
    const size_t n = guarded([&] { return sketch::filter_text::decoded_bytes(s, len, "bloom"); });
    const size_t size = ((VARHDRSZ + n + 7) & ~size_t(7)) + sb::kTailPad;
    auto* v = static_cast<struct varlena*>(palloc_large(size));
    guarded([&] { sketch::filter_text::read_text(s, len, bloom_header(v), "bloom"); });
    const sb::Header h = guarded([&] { return sb::read_external(bloom_header(v), n, sketch::Errc::invalid_text); });
    check_bloom_modifier(h.geometry, io_typmod(fcinfo));
    std::memset(reinterpret_cast<uint8_t*>(v) + VARHDRSZ + n, 0, size - VARHDRSZ - n);
    SET_VARSIZE(v, size);
    sb::write_header(bloom_header(v), h.geometry, h.seed, h.item, h.sizing);
    PG_RETURN_POINTER(v);
}

// The text form straight from the value: the header, then the bit array, no
// intermediate copy (nor a flattened copy of a bloom_agg state).
SKETCH_FUNCTION(bloom_out) {
    struct varlena* state = agg_state_value(PG_GETARG_DATUM(0));
    Opened o = state != nullptr ? inspect(state) : open_value(PG_GETARG_DATUM(0));
    uint8_t header[sb::kSizedHeaderBytes];
    sb::write_header(header, o.g, o.seed, o.item, o.sizing);
    char* out = static_cast<char*>(palloc_large(sketch::filter_text::text_bytes(external_size(o)) + 1));
    sketch::filter_text::write_text(header, sb::header_bytes(o.sizing), bloom_bits(o.v), o.g.bytes, out);
    PG_RETURN_CSTRING(out);
}

SKETCH_FUNCTION(bloom_recv) {
    StringInfo buf = reinterpret_cast<StringInfo>(PG_GETARG_POINTER(0));
    const size_t n = size_t(buf->len - buf->cursor);
    struct varlena* v = from_external(reinterpret_cast<const uint8_t*>(buf->data + buf->cursor), n, sketch::Errc::invalid_binary,
                                      io_typmod(fcinfo));
    buf->cursor = buf->len;
    PG_RETURN_POINTER(v);
}

SKETCH_FUNCTION(bloom_send) {
    Opened o = open_value(PG_GETARG_DATUM(0));
    const size_t n = external_size(o);
    bytea* out = static_cast<bytea*>(palloc_large(VARHDRSZ + n));
    SET_VARSIZE(out, VARHDRSZ + n);
    write_external(o, reinterpret_cast<uint8_t*>(VARDATA(out)));
    PG_RETURN_BYTEA_P(out);
}

SKETCH_FUNCTION(bloom_from_bytea) {
    bytea* b = PG_GETARG_BYTEA_PP(0);
    PG_RETURN_POINTER(from_external(reinterpret_cast<const uint8_t*>(VARDATA_ANY(b)), VARSIZE_ANY_EXHDR(b), sketch::Errc::invalid_binary, -1));
}

// ---- constructors and sizing ----

SKETCH_FUNCTION(bloom_empty) {
    // Not strict for its NULL layout (the default) alone: a NULL seed is no
    // seed to build with, as bloom_empty_bits (strict) has it, not seed 0.
    if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || (PG_NARGS() > 3 && PG_ARGISNULL(3))) PG_RETURN_NULL();
    const int64_t n = PG_GETARG_INT64(0);
    const double fpr = PG_GETARG_FLOAT8(1);
    const char* layout = layout_arg(fcinfo, 2);
    const uint64_t seed = PG_NARGS() > 3 ? uint64_t(PG_GETARG_INT64(3)) : 0;
    sb::Geometry g = resolve_geometry(n, fpr, layout);
    PG_RETURN_POINTER(bloom_value_new(g, seed, {}, sb::Sizing{uint64_t(n), fpr}));
}

SKETCH_FUNCTION(bloom_empty_bits) {
    const int64_t bits = PG_GETARG_INT64(0);
    const char* layout = text_to_cstring(PG_GETARG_TEXT_PP(1));
    const uint64_t seed = PG_NARGS() > 2 ? uint64_t(PG_GETARG_INT64(2)) : 0;
    if (bits < 1)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("bloom capacity_bits must be at least 1, got %" PRId64, bits)));
    sb::Geometry g = guarded([&] {
        sb::Layout l = sb::parse_layout(layout);
        if (!l.resolved())
            sketch::fail(sketch::Errc::invalid_parameter,
                         "layout \"%s\" must give K' (classic: K) when the filter is sized by capacity_bits; "
                         "bloom_empty(n, fpr, layout) chooses it",
                         layout);
        return sb::geometry_for_bits(l, uint64_t(bits));
    });
    // sized by its bits alone: no capacity to warn past (version 2 form)
    PG_RETURN_POINTER(bloom_value_new(g, seed, {}, {}));
}

SKETCH_FUNCTION(bloom_fpr_for) {
    const int64_t n = PG_GETARG_INT64(0);
    const int64_t bits = PG_GETARG_INT64(1);
    const char* layout = text_to_cstring(PG_GETARG_TEXT_PP(2));
    if (n < 0) ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("bloom n must not be negative, got %" PRId64, n)));
    if (bits < 0)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("bloom capacity_bits must not be negative, got %" PRId64, bits)));
    double fpr = guarded([&] {
        sb::Layout base = sb::parse_layout(layout);
        if (base.resolved()) return sb::fpr_for(double(n), double(bits), base);
        // K' (classic: K) not given: the best value for this n and capacity.
        double best = 1.0;
        for (unsigned v = 1; v <= sb::kMaxKp; ++v) {
            sb::Layout l = base;
            if (l.k == 0) l.k = v; else l.kp = v;
            if (l.stride != 0 && l.stride > sb::used_bytes(l)) continue;
            if (l.stride == sb::used_bytes(l)) l.stride = 0;
            best = std::min(best, sb::fpr_for(double(n), double(bits), l));
        }
        return best;
    });
    PG_RETURN_FLOAT8(fpr);
}

SKETCH_FUNCTION(bloom_capacity_for) {
    if (PG_ARGISNULL(0) || PG_ARGISNULL(1)) PG_RETURN_NULL();
    sb::Geometry g = resolve_geometry(PG_GETARG_INT64(0), PG_GETARG_FLOAT8(1), layout_arg(fcinfo, 2));
    PG_RETURN_INT64(int64_t(g.bits()));
}

// ---- item operations ----

namespace {

// Per call site: the item hasher and the last value's decoded header, so a
// lookup per row neither re-validates nor re-detoasts the same filter.
struct LookupCache {
    ItemHasher hasher;
    FetchedFilter fetched;  // the stored filter read last
    uint8_t header[sb::kHeaderBytes];
    size_t len;
    sb::Geometry g;
    uint64_t seed;
    const sb::Ops* ops;
    sb::Span span;  // bits filled per call
    InlineCompressed compressed;  // the filter compressed in its row read last
};

LookupCache* lookup_cache_of(FmgrInfo* fl) {
    auto* c = static_cast<LookupCache*>(fl->fn_extra);
    if (c == nullptr) {
        c = static_cast<LookupCache*>(MemoryContextAllocZero(fl->fn_mcxt, sizeof(LookupCache)));
        fl->fn_extra = c;
    }
    return c;
}

LookupCache* lookup_cache(FunctionCallInfo fcinfo, int item_arg) {
    LookupCache* c = lookup_cache_of(fcinfo->flinfo);
    call_site_hasher(&c->hasher, fcinfo, item_arg);  // a call site's item type never changes
    return c;
}

// bloom_contains_many's: the hasher is of the array's elements. Their type
// can change from row to row of one call site (an anyarray column, such as
// pg_stats.most_common_vals): the filter is then checked anew against it.
LookupCache* lookup_cache_for_elements(FunctionCallInfo fcinfo, Oid element_type) {
    LookupCache* c = lookup_cache_of(fcinfo->flinfo);
    if (unlikely(c->hasher.typid != element_type)) {
        item_hasher_init(&c->hasher, element_type, fcinfo->flinfo->fn_mcxt);
        c->ops = nullptr;  // cached_filter checks the items' class again
    }
    return c;
}

// The filter argument, through the cache.
struct varlena* cached_filter(FunctionCallInfo fcinfo, LookupCache* c, Datum d) {
    auto* raw = reinterpret_cast<struct varlena*>(DatumGetPointer(d));
    struct varlena* v;
    if (VARATT_IS_EXTERNAL_ONDISK(raw)) {
        // validated below, against the header validated last
        v = fetch_filter(&c->fetched, raw, fcinfo->flinfo->fn_mcxt, kSizedBloomBitsOffset, [](struct varlena*) {});
    } else if (VARATT_IS_COMPRESSED(raw)) {
        v = decompressed_once(&c->compressed, raw, fcinfo->flinfo->fn_mcxt, [](struct varlena*) {});  // checked below
    } else {
        v = detoast_large(d);
    }
    if (c->ops == nullptr || VARSIZE(v) != c->len || std::memcmp(bloom_header(v), c->header, sb::kHeaderBytes) != 0) {
        Opened o = inspect(v);
        c->ops = nullptr;
        check_item(o.item, &c->hasher, ItemUse::lookup, "the bloom filter", "bloom_contains_many");
        c->g = o.g;
        c->seed = o.seed;
        c->ops = &guarded([&]() -> const sb::Ops& { return sb::ops_for(o.g.layout); });
        c->span = sb::span_for(o.g, nullptr);
        c->len = VARSIZE(v);
        std::memcpy(c->header, bloom_header(v), sb::kHeaderBytes);
    }
    return v;
}

}  // namespace

bool sketch_pg::bloom_value_target(Datum filter, const ItemHasher* hasher, FetchedFilter* f, MemoryContext cxt,
                                   bool fetch, PrefetchTarget* t) {
    struct varlena* v = value_as_read(filter, f, cxt, fetch ? kSizedBloomBitsOffset : 0);
    if (v == nullptr) return false;
    try {
        const sb::Header h = checked_header(v);
        if (!sketch::classes_compatible(h.item, hasher->item)) return false;
        t->ops = &sb::ops_for(h.geometry.layout);
        t->span = sb::span_for(h.geometry, bloom_bits(v));
        t->bytes = h.geometry.bytes;
        t->seed = h.seed;
        return true;
    } catch (...) {
        return false;  // the function reports it
    }
}

SKETCH_FUNCTION(bloom_contains) {
    LookupCache* c = lookup_cache(fcinfo, 1);
    int32 ahead;
    if (row_answer(c->hasher.typid, PG_GETARG_DATUM(0), PG_GETARG_DATUM(1), &ahead)) PG_RETURN_BOOL(ahead != 0);
    struct varlena* v = cached_filter(fcinfo, c, PG_GETARG_DATUM(0));
    const Hash128 h = hash_row_item(&c->hasher, PG_GETARG_DATUM(1), c->seed);
    sb::Span span = c->span;
    span.bits = bloom_bits(v);
    PG_RETURN_BOOL(c->ops->contains_one(span, h));
}

// Whether a value with a sizing is past it, from the sample the per-add
// check reads; a value without one never is.
static bool sampled_past_capacity(const sb::Geometry& g, const sb::Sizing& s, const uint8_t* bits) {
    return s.known() && sketch::past_capacity(sb::sampled_fill(g, bits), s.n, s.fpr);
}

// The warning of an add that left the value c (a copy of o) past its
// capacity (capacity_warning.hpp); was_past: sampled_past_capacity before it.
static void check_capacity(CapacityMemo* memo, const char* function, const Opened& o, struct varlena* c, bool was_past) {
    if (!o.sizing.known()) return;
    warn_past_capacity(memo, {function, "a Bloom filter", kPastCapacityHint, sb::sampled_fill(o.g, bloom_bits(c)), was_past,
                              o.sizing.n, o.sizing.fpr});
}

SKETCH_FUNCTION(bloom_add) {
    if (PG_ARGISNULL(0)) PG_RETURN_NULL();
    if (PG_ARGISNULL(1)) PG_RETURN_DATUM(PG_GETARG_DATUM(0));
    const ItemHasher* hasher = item_hasher_for_arg(fcinfo, 1);
    Opened o = open_value(PG_GETARG_DATUM(0));
    check_item(o.item, hasher, ItemUse::add, "the bloom filter", "bloom_add_many");
    struct varlena* c = copy_value(o, hasher->item);
    const bool was_past = sampled_past_capacity(o.g, o.sizing, bloom_bits(o.v));
    const Hash128 h = hash_item(hasher, PG_GETARG_DATUM(1), o.seed);
    guarded([&] { sb::add(o.g, bloom_bits(c), h); });
    static CapacityMemo memo;  // bloom_add's
    check_capacity(&memo, "bloom_add", o, c, was_past);
    PG_RETURN_POINTER(c);
}

// Hashes go to the kernels in batches of this many (prefetching within each).
constexpr size_t kAddBatch = 256;

// bloom_add_many(filter, items): a copy with every non-NULL element added;
// the elements' class is recorded if the filter had none and one was added.
SKETCH_FUNCTION(bloom_add_many) {
    if (PG_ARGISNULL(0)) PG_RETURN_NULL();
    if (PG_ARGISNULL(1)) PG_RETURN_DATUM(PG_GETARG_DATUM(0));
    ArrayType* items = PG_GETARG_ARRAYTYPE_P(1);
    const ItemHasher* hasher = item_hasher_for_type(fcinfo, ARR_ELEMTYPE(items));
    Opened o = open_value(PG_GETARG_DATUM(0));
    check_item(o.item, hasher, ItemUse::add, "the bloom filter", nullptr);
    struct varlena* c = copy_value(o, o.item);
    const bool was_past = sampled_past_capacity(o.g, o.sizing, bloom_bits(o.v));
    const sb::Ops& ops = guarded([&]() -> const sb::Ops& { return sb::ops_for(o.g.layout); });
    const sb::Span span = sb::span_for(o.g, bloom_bits(c));
    Hash128 batch[kAddBatch];
    size_t pending = 0;
    bool added = false;
    for_each_item(items, [&](Datum item) {
        batch[pending++] = hash_item(hasher, item, o.seed);
        added = true;
        if (pending == kAddBatch) {
            ops.insert_many(span, batch, pending);
            pending = 0;
        }
    });
    ops.insert_many(span, batch, pending);
    if (added && !o.item.known()) sb::write_header(bloom_header(c), o.g, o.seed, hasher->item, o.sizing);
    static CapacityMemo memo;  // bloom_add_many's
    check_capacity(&memo, "bloom_add_many", o, c, was_past);
    PG_RETURN_POINTER(c);
}

// bloom_contains_many(filter, items): bloom_contains of each element.
// Through the call site's cache, as bloom_contains: a filter read per row
// from a subquery is fetched, decompressed and checked once.
SKETCH_FUNCTION(bloom_contains_many) {
    ArrayType* items = PG_GETARG_ARRAYTYPE_P(1);
    LookupCache* c = lookup_cache_for_elements(fcinfo, ARR_ELEMTYPE(items));
    struct varlena* v = cached_filter(fcinfo, c, PG_GETARG_DATUM(0));
    sb::Span span = c->span;
    span.bits = bloom_bits(v);
    PG_RETURN_ARRAYTYPE_P(answers_for(items, [&](Datum item) { return c->ops->contains_one(span, hash_item(&c->hasher, item, c->seed)); }));
}

// ---- whole-filter operations ----

// A new filter: the first argument's bits combined with the second's by
// `into` (union_into or intersect_into); `what` names it in errors. A union
// adds the second filter's items to the first, so it warns as an add does
// (function: its name there); an intersection only takes items away.
static struct varlena* combined(FunctionCallInfo fcinfo, void (*into)(uint8_t*, const uint8_t*, uint64_t), const char* what,
                                const char* function = nullptr) {
    Opened a = open_value(PG_GETARG_DATUM(0)), b = open_value(PG_GETARG_DATUM(1));
    check_compatible(a, b, what);
    struct varlena* c = copy_value(a, sketch::combined_class(a.item, b.item));
    const bool was_past = function != nullptr && sampled_past_capacity(a.g, a.sizing, bloom_bits(a.v));
    into(bloom_bits(c), bloom_bits(b.v), a.g.bytes);
    static CapacityMemo memo;  // bloom_union's
    if (function != nullptr) check_capacity(&memo, function, a, c, was_past);
    return c;
}

SKETCH_FUNCTION(bloom_union) { PG_RETURN_POINTER(combined(fcinfo, sb::union_into, "union", "bloom_union")); }
SKETCH_FUNCTION(bloom_intersect) { PG_RETURN_POINTER(combined(fcinfo, sb::intersect_into, "intersect")); }

static bool bloom_equal(FunctionCallInfo fcinfo) {
    Opened a = open_value(PG_GETARG_DATUM(0)), b = open_value(PG_GETARG_DATUM(1));
    return a.g == b.g && a.seed == b.seed && a.item == b.item &&
           std::memcmp(bloom_bits(a.v), bloom_bits(b.v), a.g.bytes) == 0;
}

SKETCH_FUNCTION(bloom_eq) { PG_RETURN_BOOL(bloom_equal(fcinfo)); }
SKETCH_FUNCTION(bloom_ne) { PG_RETURN_BOOL(!bloom_equal(fcinfo)); }

// The hash opclass's support function (DISTINCT, GROUP BY, UNION and hash
// joins on bloom values): filters equal under bloom_equal have the same seed
// and bits, so they hash alike.
SKETCH_FUNCTION(bloom_hash) {
    Opened o = open_value(PG_GETARG_DATUM(0));
    const uint32 bits = DatumGetUInt32(hash_any(bloom_bits(o.v), int(o.g.bytes)));
    PG_RETURN_UINT32(hash_combine(bits, DatumGetUInt32(hash_uint32(uint32(o.seed ^ (o.seed >> 32))))));
}

SKETCH_FUNCTION(bloom_estimated_count) {
    Opened o = open_value(PG_GETARG_DATUM(0));
    const uint64_t set = sb::count_bits(bloom_bits(o.v), o.g.bytes);
    PG_RETURN_FLOAT8(sb::estimated_count(o.g, set));
}

SKETCH_FUNCTION(bloom_info) {
    Opened o = open_value(PG_GETARG_DATUM(0));
    const uint64_t set = sb::count_bits(bloom_bits(o.v), o.g.bytes);
    const sketch::FillEstimate fill = sb::fill(o.g, set);
    LayoutName name = layout_name(o.g.layout);
    const sb::Layout& l = o.g.layout;
    char sizing[96] = "\"capacity\": null, \"fp_rate\": null";  // (a value that records none)
    if (o.sizing.known())
        snprintf(sizing, sizeof sizing, "\"capacity\": %" PRIu64 ", \"fp_rate\": %.17g", o.sizing.n, o.sizing.fpr);
    char json[1024];
    snprintf(json, sizeof json,
                  "{\"version\": %u, \"layout\": \"%s\", \"kind\": \"%s\", \"block\": \"%s\", \"k\": %u, \"kp\": %u, "
                  "\"stride\": %u, \"capacity_bits\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"bits_set\": %" PRIu64
                  ", \"fill_ratio\": %.6g, \"estimated_count\": %.6g, \"estimated_fpr\": %.6g, \"seed\": %" PRId64 ", %s}",
                  o.sizing.known() ? 3u : o.item.known() ? 2u : 1u, name.text, kind_name(l.kind), sb::block_name(l.block), l.k, l.kp,
                  l.kind == sb::Kind::cbf ? 0u : sb::stride_bytes(l), o.g.bits(), o.g.bytes, set,
                  double(set) / double(o.g.bits()), fill.count, fill.fpr, int64_t(o.seed), sizing);
    PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(json)));
}

// The lookups here that the prefetching scan serves (prefetch/prefetch.hpp).
namespace sketch_pg {
void register_bloom_prefetchables() {
    register_prefetchable("bloom_contains", PrefetchKind::bloom_value);
}
}  // namespace sketch_pg
