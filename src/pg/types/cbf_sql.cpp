// The SQL type `cbf`: a counting Bloom filter as a value. Its payload is the
// byte form of src/core/cbf_format.hpp, so send/recv and the bytea casts copy
// bytes and the text form is those bytes in base64. The aggregates are
// cbf_agg_sql.cpp's.
#include <cmath>

#include "cbf/cbf.hpp"
#include "cbf/cbf_format.hpp"
#include "filter_text.hpp"
#include "types/bloom_value.hpp"
#include "types/cbf_sql_internal.hpp"
#include "types/agg_state.hpp"
#include "guard.hpp"
#include "memory/detoast_into.hpp"
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
#include "libpq/pqformat.h"
#include "utils/float.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
}

namespace sketch_pg::cbf_sql {

// Parses a detoasted (4-byte header) value; code is the SQLSTATE class of a failure.
cbf::View view_of(varlena* v, sketch::Errc code) {
    return sketch_pg::guarded([&] { return cbf::read_value(payload(v), payload_len(v), kValueMaxCounters, code); });
}

// A fresh, zeroed value (palloc'd in the current context) for geometry g and
// items of class item.
varlena* new_value(const cbf::Geometry& g, sketch::ItemClass item) {
    const size_t len = VARHDRSZ + cbf::value_bytes(g);
    auto* v = static_cast<varlena*>(sketch_pg::palloc0_large(len));
    SET_VARSIZE(v, len);
    cbf::write_header(payload(v), g, item);
    return v;
}

// Raises 22004 for a NULL capacity, or a NULL fpr when one is passed.
void require_capacity_and_fpr(FunctionCallInfo fcinfo, int capacity_arg, int fpr_arg) {
    if (PG_ARGISNULL(capacity_arg))
        ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("cbf capacity must not be null")));
    if (fpr_arg < PG_NARGS() && PG_ARGISNULL(fpr_arg))
        ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("cbf fpr must not be null")));
}

cbf::Layout layout_arg(FunctionCallInfo fcinfo, int argno) {
    if (PG_ARGISNULL(argno)) return cbf::Layout{};  // the default, as bloom_empty and shared_cbf_create take NULL
    const char* spec = text_to_cstring(PG_GETARG_TEXT_PP(argno));
    return sketch_pg::guarded([&] { return cbf::parse_layout(spec); });
}

cbf::Geometry geometry_from_args(FunctionCallInfo fcinfo, int capacity_arg, int fpr_arg, int layout_arg_no) {
    require_capacity_and_fpr(fcinfo, capacity_arg, fpr_arg);
    const int64 capacity = PG_GETARG_INT64(capacity_arg);
    const double fpr = fpr_arg < PG_NARGS() ? PG_GETARG_FLOAT8(fpr_arg) : kDefaultFpr;
    const cbf::Layout layout = layout_arg_no < PG_NARGS() ? layout_arg(fcinfo, layout_arg_no) : cbf::Layout{};
    return sketch_pg::guarded([&] { return cbf::geometry_for(capacity, fpr, layout, kValueMaxCounters); });
}

CallCache* call_cache_init(FunctionCallInfo fcinfo, int item_arg) {
    const sketch_pg::CallSite site = sketch_pg::call_site(fcinfo, sizeof(CallCache));
    auto* cache = static_cast<CallCache*>(site.cache);
    if (item_arg >= 0 && cache->hasher.typid == InvalidOid)
        sketch_pg::item_hasher_init(&cache->hasher, sketch_pg::call_arg_type(fcinfo->flinfo, item_arg), site.mcxt);
    return cache;
}

// The cached filter when the argument is the out-of-line value already
// fetched (the per-row case of a filter from a subquery), else nullptr.
inline const cbf::View* cached_arg(FunctionCallInfo fcinfo, int argno, const CallCache* cache) {
    auto* raw = reinterpret_cast<varlena*>(DatumGetPointer(PG_GETARG_DATUM(argno)));
    if (!sketch_pg::holds(&cache->fetched, raw)) return nullptr;
    return &cache->view;
}

// Raises 42804 when the call site's items may not meet a filter of this view.
inline void check_view_item(const cbf::View& view, const CallCache* cache, sketch_pg::ItemUse use, const char* many) {
    sketch_pg::check_item(view.item, &cache->hasher, use, "the counting Bloom filter", many);
}

// The filter argument for reading only; with a cache, checked against the
// class of its items (a stored filter once, when it is fetched).
static cbf::View read_arg(FunctionCallInfo fcinfo, int argno, CallCache* cache) {
    auto* raw = reinterpret_cast<varlena*>(DatumGetPointer(PG_GETARG_DATUM(argno)));
    if (cache != nullptr && VARATT_IS_EXTERNAL_ONDISK(raw)) {
        sketch_pg::fetch_filter(&cache->fetched, raw, fcinfo->flinfo->fn_mcxt, VARHDRSZ + cbf::kHeaderBytes,
                                [&](varlena* v) {
                                    cache->view = view_of(v);
                                    check_view_item(cache->view, cache, sketch_pg::ItemUse::lookup, "cbf_contains_many");
                                });
        return cache->view;
    }
    if (cache != nullptr && VARATT_IS_COMPRESSED(raw)) {  // a column whose storage was set to main or extended
        sketch_pg::decompressed_once(&cache->compressed, raw, fcinfo->flinfo->fn_mcxt, [&](varlena* v) {
            cache->compressed_view = view_of(v);
            check_view_item(cache->compressed_view, cache, sketch_pg::ItemUse::lookup, "cbf_contains_many");
        });
        return cache->compressed_view;
    }
    const cbf::View view = view_of(sketch_pg::detoast_large(PG_GETARG_DATUM(argno)));
    if (cache != nullptr) check_view_item(view, cache, sketch_pg::ItemUse::lookup, "cbf_contains_many");
    return view;
}

// The filter argument as a fresh copy to modify and return.
static varlena* copy_arg(FunctionCallInfo fcinfo, int argno, cbf::View* view) {
    varlena* v = sketch_pg::detoast_large_copy(PG_GETARG_DATUM(argno));
    *view = view_of(v);
    return v;
}

sketch::Hash128 item_hash(FunctionCallInfo fcinfo, CallCache* cache, int argno, const cbf::Geometry& g) {
    return sketch_pg::hash_row_item(&cache->hasher, PG_GETARG_DATUM(argno), g.seed);
}

[[noreturn]] void geometry_mismatch(const cbf::Geometry& a, const cbf::Geometry& b) {
    if (a.scheme != b.scheme)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("cbf layout mismatch: cannot merge a filter of layout %s with one of layout %s",
                               layout_name(cbf::layout_of(a)).text, layout_name(cbf::layout_of(b)).text),
                        errhint("Only filters created with the same capacity, fpr and layout can be merged.")));
    if (a.m == b.m && a.k == b.k)  // the seed differs (input accepts one scheme only)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("cbf hash seed mismatch: cannot merge a filter of seed %llu with one of seed %llu",
                               static_cast<unsigned long long>(a.seed), static_cast<unsigned long long>(b.seed)),
                        errhint("Only filters with the same hash seed can be merged.")));
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("cbf geometry mismatch: cannot merge a filter of %llu counters and %u hashes with one of %llu "
                           "counters and %u hashes",
                           static_cast<unsigned long long>(a.m), a.k, static_cast<unsigned long long>(b.m), b.k),
                    errhint("Only filters created with the same capacity, fpr and layout can be merged.")));
    pg_unreachable();
}

}  // namespace sketch_pg::cbf_sql

using namespace sketch_pg::cbf_sql;

bool sketch_pg::cbf_value_target(Datum filter, const ItemHasher* hasher, FetchedFilter* f, MemoryContext cxt,
                                 bool fetch, PrefetchTarget* t) {
    varlena* v = sketch_pg::value_as_read(filter, f, cxt, fetch ? VARHDRSZ + cbf::kHeaderBytes : 0);
    if (v == nullptr) return false;
    try {
        const cbf::View view = cbf::read_value(payload(v), payload_len(v), kValueMaxCounters, sketch::Errc::corrupted);
        if (!sketch::classes_compatible(view.item, hasher->item)) return false;
        t->ops = nullptr;
        t->cbf = view.g;
        t->span.bits = view.counters;
        t->bytes = view.g.counter_bytes();
        t->seed = view.g.seed;
        return true;
    } catch (...) {
        return false;  // the function reports it
    }
}

// ---- type I/O ----

SKETCH_FUNCTION(cbf_in) {
    const char* text = PG_GETARG_CSTRING(0);
    const size_t text_len = strlen(text);
    const size_t len = sketch_pg::guarded([&] { return sketch::filter_text::decoded_bytes(text, text_len, "cbf"); });
    auto* v = static_cast<varlena*>(sketch_pg::palloc_large(VARHDRSZ + len));
    SET_VARSIZE(v, VARHDRSZ + len);
    sketch_pg::guarded([&] { sketch::filter_text::read_text(text, text_len, payload(v), "cbf"); });
    sketch_pg::check_cbf_modifier(view_of(v, sketch::Errc::invalid_text).g, sketch_pg::io_typmod(fcinfo));
    PG_RETURN_POINTER(v);
}

SKETCH_FUNCTION(cbf_out) {
    varlena* v = sketch_pg::detoast_large(PG_GETARG_DATUM(0));
    const cbf::View view = view_of(v);
    const size_t len = cbf::value_bytes(view.g);
    char* out = static_cast<char*>(sketch_pg::palloc_large(sketch::filter_text::text_bytes(len) + 1));
    sketch::filter_text::write_text(payload(v), len, nullptr, 0, out);
    PG_RETURN_CSTRING(out);
}

SKETCH_FUNCTION(cbf_recv) {
    StringInfo buf = reinterpret_cast<StringInfo>(PG_GETARG_POINTER(0));
    const int len = buf->len - buf->cursor;
    auto* v = static_cast<varlena*>(sketch_pg::palloc_large(VARHDRSZ + len));
    SET_VARSIZE(v, VARHDRSZ + len);
    pq_copymsgbytes(buf, reinterpret_cast<char*>(payload(v)), len);
    sketch_pg::check_cbf_modifier(view_of(v, sketch::Errc::invalid_binary).g, sketch_pg::io_typmod(fcinfo));
    PG_RETURN_POINTER(v);
}

SKETCH_FUNCTION(cbf_send) {
    varlena* v = sketch_pg::detoast_large(PG_GETARG_DATUM(0));
    const cbf::View view = view_of(v);
    const size_t len = cbf::value_bytes(view.g);
    auto* out = static_cast<bytea*>(sketch_pg::palloc_large(VARHDRSZ + len));
    SET_VARSIZE(out, VARHDRSZ + len);
    memcpy(VARDATA(out), payload(v), len);
    PG_RETURN_BYTEA_P(out);
}

// bytea -> cbf: the same bytes, validated (cbf -> bytea needs no function).
SKETCH_FUNCTION(cbf_from_bytea) {
    varlena* v = sketch_pg::detoast_large_copy(PG_GETARG_DATUM(0));
    view_of(v, sketch::Errc::invalid_binary);
    PG_RETURN_POINTER(v);
}

// ---- functions ----

SKETCH_FUNCTION(cbf_empty) {
    // The layout form is not strict, for its NULL layout (classic); NULL
    // capacity or fpr: NULL, as from the strict form.
    if (PG_ARGISNULL(0) || PG_ARGISNULL(1)) PG_RETURN_NULL();
    const cbf::Geometry g = geometry_from_args(fcinfo, 0, 1, 2);
    PG_RETURN_POINTER(new_value(g));
}

SKETCH_FUNCTION(cbf_capacity_for) {
    // Not strict, for its NULL layout (classic): what cbf_empty(n, fpr, NULL)
    // allocates, as bloom_capacity_for has it. NULL n or fpr: NULL.
    if (PG_ARGISNULL(0) || PG_ARGISNULL(1)) PG_RETURN_NULL();
    const int64 n = PG_GETARG_INT64(0);
    const double fpr = PG_GETARG_FLOAT8(1);
    const cbf::Layout layout = layout_arg(fcinfo, 2);
    const cbf::Geometry g = sketch_pg::guarded([&] { return cbf::geometry_for(n, fpr, layout); });
    PG_RETURN_INT64(static_cast<int64>(g.m));
}

SKETCH_FUNCTION(cbf_fpr_for) {
    const int64 n = PG_GETARG_INT64(0);
    const int64 counters = PG_GETARG_INT64(1);
    const cbf::Layout layout = layout_arg(fcinfo, 2);
    if (n < 0) ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("cbf n must not be negative, got %lld", static_cast<long long>(n))));
    if (counters < 1)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("cbf counters must be at least 1, got %lld", static_cast<long long>(counters))));
    PG_RETURN_FLOAT8(cbf::fpr_for(static_cast<double>(n), static_cast<double>(counters), layout));
}

// Whether the value is past its capacity, from the sample the per-add check reads.
static bool sampled_past_capacity(const cbf::View& view) {
    return sketch::past_capacity(cbf::sampled_fill(view.g, view.counters), view.g.capacity, view.g.fpr);
}

// The warning of an add or merge that left the value past its capacity
// (capacity_warning.hpp); was_past: sampled_past_capacity before it.
static void check_capacity(sketch_pg::CapacityMemo* memo, const char* function, const cbf::View& view, bool was_past) {
    sketch_pg::warn_past_capacity(memo, {function, "a counting Bloom filter", kPastCapacityHint,
                                         cbf::sampled_fill(view.g, view.counters), was_past, view.g.capacity,
                                         view.g.fpr});
}

// A copy of the filter argument with `change` (cbf::add or cbf::remove)
// applied for the item argument; an add records the item's class in a
// filter that has none. `many` names the bulk form of the call, if any.
static varlena* changed_copy(FunctionCallInfo fcinfo, bool (*change)(const cbf::Geometry&, uint8_t*, const sketch::Hash128&),
                             const char* many) {
    CallCache* cache = call_cache(fcinfo, 1);
    cbf::View view;
    varlena* v = copy_arg(fcinfo, 0, &view);
    const bool add = change == cbf::add;
    check_view_item(view, cache, add ? sketch_pg::ItemUse::add : sketch_pg::ItemUse::lookup, many);
    if (add && !view.item.known()) cbf::write_header(payload(v), view.g, cache->hasher.item);
    const bool was_past = add && sampled_past_capacity(view);
    change(view.g, view.counters, item_hash(fcinfo, cache, 1, view.g));
    static sketch_pg::CapacityMemo memo;  // cbf_add's
    if (add) check_capacity(&memo, "cbf_add", view, was_past);
    return v;
}

SKETCH_FUNCTION(cbf_add) { PG_RETURN_POINTER(changed_copy(fcinfo, cbf::add, "cbf_add_many")); }
SKETCH_FUNCTION(cbf_remove) { PG_RETURN_POINTER(changed_copy(fcinfo, cbf::remove, nullptr)); }

// cbf_add_many(filter, items): a copy with every non-NULL element added;
// the elements' class is recorded if the filter had none and one was added.
SKETCH_FUNCTION(cbf_add_many) {
    if (PG_ARGISNULL(0)) PG_RETURN_NULL();
    if (PG_ARGISNULL(1)) PG_RETURN_DATUM(PG_GETARG_DATUM(0));
    ArrayType* items = PG_GETARG_ARRAYTYPE_P(1);
    const sketch_pg::ItemHasher* hasher = sketch_pg::item_hasher_for_type(fcinfo, ARR_ELEMTYPE(items));
    cbf::View view;
    varlena* v = copy_arg(fcinfo, 0, &view);
    sketch_pg::check_item(view.item, hasher, sketch_pg::ItemUse::add, "the counting Bloom filter", nullptr);
    const bool was_past = sampled_past_capacity(view);
    constexpr size_t kBatch = 256;  // hashes per cbf::add_many (prefetching within each)
    sketch::Hash128 batch[kBatch];
    size_t pending = 0;
    bool added = false;
    sketch_pg::for_each_item(items, [&](Datum item) {
        batch[pending++] = sketch_pg::hash_item(hasher, item, view.g.seed);
        added = true;
        if (pending == kBatch) {
            cbf::add_many(view.g, view.counters, batch, pending);
            pending = 0;
        }
    });
    cbf::add_many(view.g, view.counters, batch, pending);
    if (added && !view.item.known()) cbf::write_header(payload(v), view.g, hasher->item);
    static sketch_pg::CapacityMemo memo;
    check_capacity(&memo, "cbf_add_many", view, was_past);
    PG_RETURN_POINTER(v);
}

// cbf_contains_many(filter, items): cbf_contains of each element.
// Through the call site's cache, as cbf_contains (its hasher of the array's
// elements): a filter read per row from a subquery is fetched, decompressed
// and checked once. The elements' type can change from row to row of one
// call site (an anyarray column, such as pg_stats.most_common_vals): the
// filter kept is then checked anew against it.
SKETCH_FUNCTION(cbf_contains_many) {
    ArrayType* items = PG_GETARG_ARRAYTYPE_P(1);
    CallCache* cache = call_cache(fcinfo, -1);
    const bool new_type = cache->hasher.typid != ARR_ELEMTYPE(items);
    if (unlikely(new_type)) sketch_pg::item_hasher_init(&cache->hasher, ARR_ELEMTYPE(items), fcinfo->flinfo->fn_mcxt);
    const cbf::View view = read_arg(fcinfo, 0, cache);
    if (unlikely(new_type)) check_view_item(view, cache, sketch_pg::ItemUse::lookup, "cbf_contains_many");
    PG_RETURN_ARRAYTYPE_P(sketch_pg::answers_for(items, [&](Datum item) {
        return cbf::contains(view.g, view.counters, sketch_pg::hash_item(&cache->hasher, item, view.g.seed));
    }));
}

SKETCH_FUNCTION(cbf_contains) {
    CallCache* cache = call_cache(fcinfo, 1);
    int32 ahead;
    if (sketch_pg::row_answer(cache->hasher.typid, PG_GETARG_DATUM(0), PG_GETARG_DATUM(1), &ahead))
        PG_RETURN_BOOL(ahead > 0);
    if (const cbf::View* view = cached_arg(fcinfo, 0, cache))  // checked when fetched (read_arg)
        PG_RETURN_BOOL(cbf::contains(view->g, view->counters, item_hash(fcinfo, cache, 1, view->g)));
    const cbf::View view = read_arg(fcinfo, 0, cache);
    PG_RETURN_BOOL(cbf::contains(view.g, view.counters, item_hash(fcinfo, cache, 1, view.g)));
}

SKETCH_FUNCTION(cbf_count_of) {
    CallCache* cache = call_cache(fcinfo, 1);
    int32 ahead;
    if (sketch_pg::row_answer(cache->hasher.typid, PG_GETARG_DATUM(0), PG_GETARG_DATUM(1), &ahead))
        PG_RETURN_INT32(ahead);
    const cbf::View view = read_arg(fcinfo, 0, cache);
    PG_RETURN_INT32(static_cast<int32>(cbf::count_of(view.g, view.counters, item_hash(fcinfo, cache, 1, view.g))));
}

SKETCH_FUNCTION(cbf_count) {
    const cbf::View view = read_arg(fcinfo, 0, call_cache(fcinfo, -1));
    const double estimate = cbf::estimate_count(view.g, cbf::counters_set(view.g, view.counters));
    PG_RETURN_INT64(static_cast<int64>(std::llround(estimate)));
}

SKETCH_FUNCTION(cbf_merge) {
    cbf::View left;
    varlena* v = copy_arg(fcinfo, 0, &left);
    const cbf::View right = read_arg(fcinfo, 1, nullptr);
    sketch_pg::check_classes_meet(left.item, right.item, "merge counting Bloom filters");
    if (!left.g.compatible(right.g)) geometry_mismatch(left.g, right.g);
    if (!left.item.known() && right.item.known()) cbf::write_header(payload(v), left.g, right.item);
    const bool was_past = sampled_past_capacity(left);
    cbf::merge(left.g, left.counters, right.counters);
    static sketch_pg::CapacityMemo memo;
    check_capacity(&memo, "cbf_merge", left, was_past);
    PG_RETURN_POINTER(v);
}

// Equal: the same bytes (geometry, capacity, fpr and counters).
static bool cbf_equal(FunctionCallInfo fcinfo) {
    auto* a = reinterpret_cast<varlena*>(PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0)));
    auto* b = reinterpret_cast<varlena*>(PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(1)));
    const size_t len = VARSIZE_ANY_EXHDR(a);
    return len == VARSIZE_ANY_EXHDR(b) && memcmp(VARDATA_ANY(a), VARDATA_ANY(b), len) == 0;
}

SKETCH_FUNCTION(cbf_eq) { PG_RETURN_BOOL(cbf_equal(fcinfo)); }
SKETCH_FUNCTION(cbf_ne) { PG_RETURN_BOOL(!cbf_equal(fcinfo)); }

// The hash opclass's support function (DISTINCT, GROUP BY, UNION and hash
// joins on cbf values): the hash of the bytes cbf_equal compares.
SKETCH_FUNCTION(cbf_hash) {
    auto* v = reinterpret_cast<varlena*>(PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0)));
    PG_RETURN_DATUM(hash_any(reinterpret_cast<const unsigned char*>(VARDATA_ANY(v)), int(VARSIZE_ANY_EXHDR(v))));
}

SKETCH_FUNCTION(cbf_stats) {
    const cbf::View view = read_arg(fcinfo, 0, call_cache(fcinfo, -1));
    const uint64_t set = cbf::counters_set(view.g, view.counters);
    const uint64_t saturated = cbf::counters_saturated(view.g, view.counters);
    const double estimate = cbf::estimate_count(view.g, set);
    char* fpr = float8out_internal(view.g.fpr);
    char* fill = float8out_internal(static_cast<double>(set) / static_cast<double>(view.g.m));
    char* estimated_fpr = float8out_internal(cbf::fill_fpr(view.g, view.counters, set));
    char* json = psprintf(
        "{\"layout\": \"%s\", \"capacity\": %llu, \"fp_rate\": %s, \"counters\": %llu, \"hashes\": %u, "
        "\"counters_set\": %llu, \"count\": %lld, \"fill_ratio\": %s, \"estimated_fpr\": %s, \"saturated\": %llu, "
        "\"bytes\": %zu}",
        sketch_pg::layout_name(cbf::layout_of(view.g)).text, static_cast<unsigned long long>(view.g.capacity), fpr, static_cast<unsigned long long>(view.g.m), view.g.k,
        static_cast<unsigned long long>(set), static_cast<long long>(std::llround(estimate)), fill, estimated_fpr,
        static_cast<unsigned long long>(saturated), cbf::value_bytes(view.g));
    PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(json)));
}

// The projection onto a Bloom filter of the same counters as bits and the
// same probes (classic: layout cbf<k>; block: block<uint64[2],k>, one
// position per line): a quarter of the size, read-only, and bloom_contains
// on it answers as cbf_contains did.
SKETCH_FUNCTION(cbf_to_bloom) {
    const cbf::View view = read_arg(fcinfo, 0, nullptr);
    const sketch::bloom::Geometry g = sketch_pg::guarded([&] {
        if (!view.g.blocked()) return sketch::bloom::cbf_geometry(view.g.k, view.g.m);
        sketch::bloom::Layout l;
        l.kind = sketch::bloom::Kind::block;
        l.block = sketch::bloom::BlockType::u64x2;
        l.k = 1;
        l.kp = view.g.k;
        return sketch::bloom::geometry_for_positions(l, view.g.lines());
    });
    // it holds what the cbf did: the cbf's capacity and fpr are its own
    varlena* result =
        sketch_pg::bloom_value_new(g, view.g.seed, view.item, sketch::bloom::Sizing{view.g.capacity, view.g.fpr});
    cbf::to_bits(view.g, view.counters, reinterpret_cast<uint64_t*>(sketch_pg::bloom_bits(result)));
    PG_RETURN_POINTER(result);
}

// The lookups here that the prefetching scan serves (prefetch/prefetch.hpp).
namespace sketch_pg {
void register_cbf_prefetchables() {
    register_prefetchable("cbf_contains", PrefetchKind::cbf_value);
    register_prefetchable("cbf_count_of", PrefetchKind::cbf_value);
}
}  // namespace sketch_pg
