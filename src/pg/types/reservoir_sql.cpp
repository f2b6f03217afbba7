// The reservoir type and the sampling aggregates.
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
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#include "hash.hpp"
#include "reservoir/reservoir.hpp"
#include "reservoir/reservoir_format.hpp"
#include "types/agg_state.hpp"
#include "guard.hpp"
#include "module.hpp"
#include "pg.hpp"

extern "C" {
#include "access/parallel.h"
#include "access/tupmacs.h"
#include "catalog/catalog.h"
#include "catalog/pg_type.h"
#include "catalog/pg_type_d.h"
#include "libpq/pqformat.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "parser/parse_type.h"
#include "utils/array.h"
#include "utils/datum.h"
#include "utils/expandeddatum.h"
#include "utils/float.h"
#include "utils/guc.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
#include "utils/typcache.h"
}

namespace rsv = sketch::reservoir;

namespace {

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

Size expanded_flat_size(ExpandedObjectHeader* eohptr);
void expanded_flatten_into(ExpandedObjectHeader* eohptr, void* result, Size allocated_size);

const ExpandedObjectMethods kMethods = {expanded_flat_size, expanded_flatten_into};

[[noreturn]] void corrupted(const char* detail) {
    ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED), errmsg("invalid reservoir value"), errdetail("%s", detail)));
    pg_unreachable();
}

Elem elem_for(Oid type) {
    Elem e;
    e.type = type;
    get_typlenbyvalalign(type, &e.len, &e.byval, &e.align);
    return e;
}

// ---- items kept as text ----

const Elem& text_elem() {
    static const Elem e = {TEXTOID, -1, false, TYPALIGN_INT};
    return e;
}

// Built-in types can be neither dropped nor altered; any other type can be,
// and a value in a column records no dependency on its item type.
bool stored_as_text(Oid type) { return !IsPinnedObject(TypeRelationId, type); }

// Appends what decides whether a text form written for `type` reads back as
// the same value: the OIDs of the types it is made of, the typmods and the
// live attributes of composites (by number, so that an attribute dropped and
// another added in its place is a change), through domains, arrays and
// ranges. Built-in types end the walk (they never change); an enum's labels
// are left out, so adding a value keeps stored reservoirs of the enum
// readable.
void append_shape(StringInfo buf, Oid type, int32 typmod) {
    check_stack_depth();
    appendBinaryStringInfo(buf, reinterpret_cast<const char*>(&type), sizeof type);
    appendBinaryStringInfo(buf, reinterpret_cast<const char*>(&typmod), sizeof typmod);
    if (!stored_as_text(type)) return;
    HeapTuple tuple = SearchSysCache1(TYPEOID, ObjectIdGetDatum(type));
    if (!HeapTupleIsValid(tuple)) {
        appendStringInfoChar(buf, '-');
        return;
    }
    const Form_pg_type t = reinterpret_cast<Form_pg_type>(GETSTRUCT(tuple));
    const char typtype = t->typtype;
    const Oid base = t->typbasetype;
    const int32 base_typmod = t->typtypmod;
    const Oid element = t->typelem;
    const int16 typlen = t->typlen;
    ReleaseSysCache(tuple);
    appendStringInfoChar(buf, typtype);
    switch (typtype) {
        case TYPTYPE_DOMAIN:
            append_shape(buf, base, base_typmod);
            break;
        case TYPTYPE_COMPOSITE: {
            TupleDesc desc = lookup_rowtype_tupdesc(type, -1);
            appendStringInfoChar(buf, '(');
            for (int i = 0; i < desc->natts; ++i) {
                const Form_pg_attribute att = TupleDescAttr(desc, i);
                if (att->attisdropped) continue;
                appendBinaryStringInfo(buf, reinterpret_cast<const char*>(&att->attnum), sizeof att->attnum);
                append_shape(buf, att->atttypid, att->atttypmod);
            }
            appendStringInfoChar(buf, ')');
            ReleaseTupleDesc(desc);
            break;
        }
        case TYPTYPE_RANGE:
            append_shape(buf, get_range_subtype(type), -1);
            break;
        case TYPTYPE_MULTIRANGE:
            append_shape(buf, get_multirange_range(type), -1);
            break;
        default:
            if (OidIsValid(element) && typlen == -1) append_shape(buf, element, -1);  // an array
    }
}

uint32 type_shape(Oid type) {
    StringInfoData buf;
    initStringInfo(&buf);
    append_shape(&buf, type, -1);
    const sketch::Hash128 h = sketch::hash_bytes(buf.data, static_cast<size_t>(buf.len));
    pfree(buf.data);
    return static_cast<uint32>(h.lo ^ (h.lo >> 32));
}

// Stored text forms are written and read under pg_dump's settings, so a
// session's DateStyle, IntervalStyle or extra_float_digits cannot change
// what they say. Returns the GUC nest level to pop with AtEOXact_GUC (an
// error pops it with the transaction, as for a function's SET clause).
int canonical_settings() {
    const int level = NewGUCNestLevel();
    const GucContext context = superuser() ? PGC_SUSET : PGC_USERSET;
    set_config_option("datestyle", "ISO", context, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
    set_config_option("intervalstyle", "postgres", context, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
    set_config_option("extra_float_digits", "3", context, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
    return level;
}

// The text forms of items of type e, as text values.
Datum* items_to_text(const Elem& e, int32 count, const Datum* items) {
    Oid output;
    bool varlena;
    getTypeOutputInfo(e.type, &output, &varlena);
    FmgrInfo flinfo;
    fmgr_info(output, &flinfo);
    Datum* texts = static_cast<Datum*>(palloc(sizeof(Datum) * (count + 1)));
    const int level = canonical_settings();
    for (int32 i = 0; i < count; ++i) {
        char* cstring = OutputFunctionCall(&flinfo, items[i]);
        texts[i] = PointerGetDatum(cstring_to_text(cstring));
        pfree(cstring);
    }
    AtEOXact_GUC(true, level);
    return texts;
}

// Items of type e read back from their text forms.
Datum* items_from_text(const Elem& e, int32 count, const Datum* texts) {
    Oid input, ioparam;
    getTypeInputInfo(e.type, &input, &ioparam);
    FmgrInfo flinfo;
    fmgr_info(input, &flinfo);
    Datum* items = static_cast<Datum*>(palloc(sizeof(Datum) * (count + 1)));
    const int level = canonical_settings();
    for (int32 i = 0; i < count; ++i)
        items[i] = InputFunctionCall(&flinfo, text_to_cstring(DatumGetTextPP(texts[i])), ioparam, -1);
    AtEOXact_GUC(true, level);
    return items;
}

// The type the text items of a flat value read as: its item type while
// that exists with the shape it had when the value was written, else text.
Oid live_item_type(Oid type, uint32 shape) {
    if (!SearchSysCacheExists1(TYPEOID, ObjectIdGetDatum(type)) || type_shape(type) != shape) return TEXTOID;
    return type;
}

// What a flat value holds for items of type `type`: the items themselves,
// laid out as `layout` (the item type's own, or text's).
struct Stored {
    Oid type;
    Elem layout;
    const Datum* items;
    bool as_text;
    uint32 shape;
};

Stored stored_of(const Elem& e, int32 count, const Datum* items) {
    if (!stored_as_text(e.type)) return {e.type, e, items, false, 0};
    return {e.type, text_elem(), items_to_text(e, count, items), true, type_shape(e.type)};
}

// ---- sizes and the flat writer ----

Size keys_offset() { return sizeof(Flat); }

Size items_offset(bool weighted, int32 count) {
    return sizeof(Flat) + (weighted ? sizeof(double) * static_cast<Size>(count) : 0);
}

Size flat_size_of(const Stored& s, bool weighted, int32 count) {
    const Elem& e = s.layout;
    Size off = items_offset(weighted, count);
    for (int32 i = 0; i < count; ++i) {
        off = att_align_nominal(off, e.align);
        off = att_addlength_datum(off, e.len, s.items[i]);
        if (off > MaxAllocSize)
            ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                            errmsg("reservoir too large: its items exceed the 1 GB limit of a value")));
    }
    return off;
}

void flat_write(char* base, Size size, const Stored& s, bool weighted, int32 k, int64 seen, int32 count,
                const double* keys) {
    const Elem& e = s.layout;
    memset(base, 0, size);
    Flat* f = reinterpret_cast<Flat*>(base);
    SET_VARSIZE(f, size);
    f->magic = kMagic;
    f->version = kVersion;
    f->flags = (weighted ? kFlagWeighted : 0) | (s.as_text ? kFlagTextItems : 0);
    f->typlen = e.len;
    f->elemtype = s.type;
    f->typbyval = e.byval;
    f->typalign = e.align;
    f->k = k;
    f->count = count;
    f->shape = s.shape;
    f->seen = seen;
    if (weighted) memcpy(base + keys_offset(), keys, sizeof(double) * static_cast<Size>(count));
    Size off = items_offset(weighted, count);
    for (int32 i = 0; i < count; ++i) {
        off = att_align_nominal(off, e.align);
        char* dst = base + off;
        const Datum item = s.items[i];
        if (e.byval) {
            store_att_byval(dst, item, e.len);
        } else if (e.len == -1) {
            memcpy(dst, DatumGetPointer(item), VARSIZE_ANY(DatumGetPointer(item)));
        } else if (e.len == -2) {
            memcpy(dst, DatumGetPointer(item), strlen(DatumGetCString(item)) + 1);
        } else {
            memcpy(dst, DatumGetPointer(item), e.len);
        }
        off = att_addlength_datum(off, e.len, item);
    }
}

Datum flat_build(const Elem& e, bool weighted, int32 k, int64 seen, int32 count, const Datum* items,
                 const double* keys) {
    const Stored s = stored_of(e, count, items);
    const Size size = flat_size_of(s, weighted, count);
    char* base = static_cast<char*>(palloc(size));
    flat_write(base, size, s, weighted, k, seen, count, keys);
    return PointerGetDatum(base);
}

void forget_flat_texts(Expanded* r) {
    if (r->flat_cxt == nullptr) return;
    MemoryContextDelete(r->flat_cxt);
    r->flat_cxt = nullptr;
    r->flat_texts = nullptr;
}

// The state's items as the flat value stores them. Text forms are computed
// once for the size and the flattening that follows it (in a context of
// their own, so what output functions leave behind goes with them).
Stored stored_of_expanded(Expanded* r) {
    if (!stored_as_text(r->elem.type)) return {r->elem.type, r->elem, r->items, false, 0};
    if (r->flat_cxt == nullptr) {
        r->flat_cxt = AllocSetContextCreate(r->hdr.eoh_context, "reservoir text forms", ALLOCSET_DEFAULT_SIZES);
        MemoryContext old = MemoryContextSwitchTo(r->flat_cxt);
        r->flat_texts = items_to_text(r->elem, r->count(), r->items);
        r->flat_shape = type_shape(r->elem.type);
        MemoryContextSwitchTo(old);
    }
    return {r->elem.type, text_elem(), r->flat_texts, true, r->flat_shape};
}

Size expanded_flat_size(ExpandedObjectHeader* eohptr) {
    Expanded* r = reinterpret_cast<Expanded*>(eohptr);
    return flat_size_of(stored_of_expanded(r), r->weighted, r->count());
}

void expanded_flatten_into(ExpandedObjectHeader* eohptr, void* result, Size allocated_size) {
    Expanded* r = reinterpret_cast<Expanded*>(eohptr);
    flat_write(static_cast<char*>(result), allocated_size, stored_of_expanded(r), r->weighted, r->k, r->seen(),
               r->count(), r->keys);
    forget_flat_texts(r);
}

// ---- reading a flat value, with validation ----

// How the items of f are laid out: as its element type's (which must still
// exist and be stored the same way) or, for text items, as text's.
Elem stored_layout(const Flat* f) {
    if (f->flags & kFlagTextItems) {
        const Elem& e = text_elem();
        if (e.len != f->typlen || e.byval != f->typbyval || e.align != f->typalign)
            corrupted("Its text items are not laid out as text.");
        return e;
    }
    if (get_typlen(f->elemtype) == 0) corrupted("Its element type no longer exists.");
    const Elem e = elem_for(f->elemtype);
    if (e.len != f->typlen || e.byval != f->typbyval || e.align != f->typalign)
        corrupted("Its element type's storage has changed.");
    return e;
}

// Checks everything a stored value could get wrong and fills v; items are
// palloc'd datums pointing into f (text items: untyped, unless their type is
// gone and they read as text).
void view_of_flat(const Flat* f, View* v) {
    const Size size = VARSIZE(f);
    if (size < sizeof(Flat) || f->magic != kMagic) corrupted("Not a reservoir (bad magic or size).");
    if (f->version != kVersion) corrupted("Unsupported reservoir format version.");
    if (f->flags & ~(kFlagWeighted | kFlagTextItems)) corrupted("Unknown flags.");
    if (f->k < 1 || f->k > rsv::kMaxK) corrupted("k out of range.");
    if (f->seen < 0 || f->count != (f->seen < f->k ? f->seen : f->k)) corrupted("Count is not min(seen, k).");
    const Elem e = stored_layout(f);
    v->elem = e;
    v->untyped = false;
    if (f->flags & kFlagTextItems) {
        const Oid type = live_item_type(f->elemtype, f->shape);
        v->untyped = type != TEXTOID;
        if (v->untyped) v->elem = elem_for(type);
    }
    v->weighted = (f->flags & kFlagWeighted) != 0;
    v->k = f->k;
    v->count = f->count;
    v->seen = f->seen;
    const char* base = reinterpret_cast<const char*>(f);
    Size off = items_offset(v->weighted, v->count);
    if (off > size) corrupted("Truncated keys.");
    v->keys = nullptr;
    if (v->weighted) {
        v->keys = reinterpret_cast<const double*>(base + keys_offset());
        for (int32 i = 0; i < v->count; ++i)
            if (std::isnan(v->keys[i]) || v->keys[i] > 0.0) corrupted("Invalid key.");
    }
    v->items = static_cast<Datum*>(palloc(sizeof(Datum) * (v->count > 0 ? v->count : 1)));
    for (int32 i = 0; i < v->count; ++i) {
        off = att_align_nominal(off, e.align);
        if (off >= size) corrupted("Truncated items.");
        const char* p = base + off;
        Size len;
        if (e.len > 0) {
            len = static_cast<Size>(e.len);
        } else if (e.len == -1) {
            if (VARATT_IS_EXTERNAL(p) || VARATT_IS_COMPRESSED(p)) corrupted("An item is toasted.");
            if (!VARATT_IS_1B(p) && size - off < VARHDRSZ) corrupted("Truncated item header.");
            len = VARSIZE_ANY(p);
            if (len < (VARATT_IS_1B(p) ? VARHDRSZ_SHORT : VARHDRSZ)) corrupted("Bad item length.");
        } else {
            len = strnlen(p, size - off) + 1;
        }
        if (len > size - off) corrupted("Truncated item.");
        v->items[i] = e.byval ? fetch_att(p, true, e.len) : PointerGetDatum(p);
        off += len;
    }
    if (off != size) corrupted("Trailing bytes.");
}

bool is_expanded(Datum d) { return VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(d)); }

Expanded* expanded_of(Datum d) {
    ExpandedObjectHeader* eoh = DatumGetEOHP(d);
    if (eoh->eoh_methods != &kMethods) corrupted("Not a reservoir object.");
    return reinterpret_cast<Expanded*>(eoh);
}

// A look at d; with `typed`, its items are datums of v->elem's type (text
// items converted back), else they may be untyped text forms.
void view_of(Datum d, View* v, bool typed = true) {
    if (is_expanded(d)) {
        Expanded* r = expanded_of(d);
        v->untyped = false;
        v->elem = r->elem;
        v->weighted = r->weighted;
        v->k = r->k;
        v->count = r->count();
        v->seen = r->seen();
        v->items = r->items;
        v->keys = r->keys;
        return;
    }
    struct varlena* raw = PG_DETOAST_DATUM(d);
    if (reinterpret_cast<uintptr_t>(raw) % MAXIMUM_ALIGNOF != 0) {
        struct varlena* copy = static_cast<struct varlena*>(palloc(VARSIZE(raw)));
        memcpy(copy, raw, VARSIZE(raw));
        raw = copy;
    }
    view_of_flat(reinterpret_cast<const Flat*>(raw), v);
    if (typed && v->untyped) {
        v->items = items_from_text(v->elem, v->count, v->items);
        v->untyped = false;
    }
}

// ---- seeds ----

// Per call site (fn_extra of the aggregate support function): a counter of
// the states it created, and the element type it last looked up.
struct CallCache {
    uint64 states;
    Oid type;
    Elem elem;
};

CallCache* call_cache(FunctionCallInfo fcinfo) {
    if (fcinfo->flinfo->fn_extra == nullptr)
        fcinfo->flinfo->fn_extra = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(CallCache));
    return static_cast<CallCache*>(fcinfo->flinfo->fn_extra);
}

uint64 backend_entropy() {
    static bool ready = false;
    static uint64 entropy = 0;
    if (!ready) {
        if (!pg_strong_random(&entropy, sizeof entropy))
            entropy = static_cast<uint64>(GetCurrentTimestamp()) ^ (static_cast<uint64>(MyProcPid) << 32);
        ready = true;
    }
    return entropy;
}

// The seed of a new state. With sketchshare.seed set: a function of the
// setting, the process (leader or parallel worker number), the role of the
// function (salt) and how many states this call site created before, so a
// serial plan over the same rows repeats itself and every state (every
// group, every worker) draws its own stream. Unset: fresh entropy.
uint64 state_seed(FunctionCallInfo fcinfo, uint64 salt) {
    const char* setting = sketch_pg::seed_setting;
    if (setting == nullptr || setting[0] == '\0') {
        static uint64 states = 0;
        return rsv::mix_seed(backend_entropy(), ++states, salt);
    }
    CallCache* cache = call_cache(fcinfo);
    const sketch::Hash128 h = sketch::hash_bytes(setting, strlen(setting));
    return rsv::mix_seed(h.lo ^ (salt * 0x9e3779b97f4a7c15ULL), static_cast<uint64>(ParallelWorkerNumber + 1),
                         ++cache->states);
}

constexpr uint64 kSaltSample = 1;
constexpr uint64 kSaltMerge = 2;

// ---- the expanded state ----

Expanded* expanded_create(MemoryContext parent, const Elem& elem, bool weighted, int32 k, uint64 seed) {
    MemoryContext cxt = AllocSetContextCreate(parent, "reservoir", ALLOCSET_START_SMALL_SIZES);
    Expanded* r = static_cast<Expanded*>(MemoryContextAllocZero(cxt, sizeof(Expanded)));
    EOH_init_header(&r->hdr, &kMethods, cxt);
    r->elem = elem;
    r->weighted = weighted;
    r->k = k;
    new (&r->rng) rsv::Rng(seed);
    new (&r->uniform) rsv::UniformSampler(k);
    new (&r->wsampler) rsv::WeightedSampler(k);
    r->capacity = k < 8 ? k : 8;
    r->items = static_cast<Datum*>(MemoryContextAlloc(cxt, sizeof(Datum) * r->capacity));
    if (weighted) {
        r->keys = static_cast<double*>(MemoryContextAlloc(cxt, sizeof(double) * r->capacity));
        r->heap = static_cast<int32*>(MemoryContextAlloc(cxt, sizeof(int32) * r->capacity));
    }
    return r;
}

void expanded_grow(Expanded* r) {
    const int32 capacity = r->capacity > r->k / 2 ? r->k : r->capacity * 2;
    r->items = static_cast<Datum*>(repalloc(r->items, sizeof(Datum) * capacity));
    if (r->weighted) {
        r->keys = static_cast<double*>(repalloc(r->keys, sizeof(double) * capacity));
        r->heap = static_cast<int32*>(repalloc(r->heap, sizeof(int32) * capacity));
    }
    r->capacity = capacity;
}

// A copy of the value in the state's context: detoasted (short headers
// kept), values of any length kept whole.
Datum copy_item(Expanded* r, Datum value) {
    const Elem& e = r->elem;
    if (e.byval) return value;
    MemoryContext old = MemoryContextSwitchTo(r->hdr.eoh_context);
    Datum result;
    if (e.len == -1) {
        struct varlena* p = reinterpret_cast<struct varlena*>(DatumGetPointer(value));
        struct varlena* d = pg_detoast_datum_packed(p);
        if (d == p) {
            const Size len = VARSIZE_ANY(p);
            d = static_cast<struct varlena*>(palloc(len));
            memcpy(d, p, len);
        }
        result = PointerGetDatum(d);
    } else {
        result = datumCopy(value, false, e.len);
    }
    MemoryContextSwitchTo(old);
    return result;
}

void free_item(Expanded* r, Datum value) {
    if (!r->elem.byval) pfree(DatumGetPointer(value));
}

inline void expanded_add(Expanded* r, Datum value) {
    const int32 before = r->count();
    if (unlikely(before == r->capacity && before < r->k)) expanded_grow(r);
    const int64 slot = r->uniform.offer(r->rng);
    if (likely(slot < 0)) return;
    if (slot < before) free_item(r, r->items[slot]);
    r->items[slot] = copy_item(r, value);
    forget_flat_texts(r);
}

inline void expanded_add_weighted(Expanded* r, Datum value, double weight) {
    const int32 before = r->count();
    if (unlikely(before == r->capacity && before < r->k)) expanded_grow(r);
    const int64 slot = r->wsampler.offer(weight, r->rng, r->keys, r->heap);
    if (likely(slot < 0)) return;
    if (slot < before) free_item(r, r->items[slot]);
    r->items[slot] = copy_item(r, value);
    forget_flat_texts(r);
}

// Merges o into r exactly (uniform: hypergeometric split; weighted: the k
// largest keys). The result keeps min(r.k, o.k) as its k.
void expanded_merge(Expanded* r, const View& o) {
    if (o.elem.type != r->elem.type) {
        // Named in a fixed order: which side arrives first depends on the plan.
        const char* a = format_type_be(r->elem.type);
        const char* b = format_type_be(o.elem.type);
        if (strcmp(a, b) > 0) std::swap(a, b);
        ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                        errmsg("cannot merge reservoirs of different item types: %s and %s", a, b)));
    }
    if (o.weighted != r->weighted)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("cannot merge a weighted reservoir with a uniform one")));
    if (o.count == 0) return;
    forget_flat_texts(r);
    const int32 k = r->k < o.k ? r->k : o.k;
    const int32 count_a = r->count();
    const int64 seen_a = r->seen();
    if (o.seen > PG_INT64_MAX - seen_a)
        ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED), errmsg("reservoir has seen more than 2^63 items")));
    int32* take_a = static_cast<int32*>(palloc(sizeof(int32) * (count_a + 1)));
    int32* take_b = static_cast<int32*>(palloc(sizeof(int32) * (o.count + 1)));
    const Expanded* cr = r;
    rsv::MergeSplit split = sketch_pg::guarded([&] {
        if (cr->weighted) return rsv::weighted_merge(cr->keys, count_a, o.keys, o.count, k, take_a, take_b);
        return rsv::uniform_merge(seen_a, count_a, o.seen, o.count, k, r->rng, take_a, take_b);
    });
    const int32 merged = split.from_a + split.from_b;
    int32 capacity = merged > (k < 8 ? k : 8) ? merged : (k < 8 ? k : 8);
    MemoryContext cxt = r->hdr.eoh_context;
    Datum* items = static_cast<Datum*>(MemoryContextAlloc(cxt, sizeof(Datum) * capacity));
    double* keys = nullptr;
    int32* heap = nullptr;
    if (r->weighted) {
        keys = static_cast<double*>(MemoryContextAlloc(cxt, sizeof(double) * capacity));
        heap = static_cast<int32*>(MemoryContextAlloc(cxt, sizeof(int32) * capacity));
    }
    // Keep the chosen items of r (take_a is sorted), free the others.
    int32 n = 0;
    for (int32 slot = 0, t = 0; slot < count_a; ++slot) {
        if (t < split.from_a && take_a[t] == slot) {
            if (keys) keys[n] = r->keys[slot];
            items[n++] = r->items[slot];
            ++t;
        } else {
            free_item(r, r->items[slot]);
        }
    }
    for (int32 t = 0; t < split.from_b; ++t) {
        if (keys) keys[n] = o.keys[take_b[t]];
        items[n++] = copy_item(r, o.items[take_b[t]]);
    }
    pfree(r->items);
    if (r->weighted) {
        pfree(r->keys);
        pfree(r->heap);
    }
    r->items = items;
    r->keys = keys;
    r->heap = heap;
    r->capacity = capacity;
    r->k = k;
    const int64 seen = seen_a + o.seen;
    if (r->weighted) {
        for (int32 i = 0; i < n; ++i) heap[i] = i;
        rsv::build_heap(keys, heap, n);
        r->wsampler.reset_after_merge(k, seen, r->rng, keys, heap);
    } else {
        r->uniform.reset_after_merge(k, seen);
    }
    pfree(take_a);
    pfree(take_b);
}

// A new expanded state holding the reservoir v.
Expanded* expanded_from_view(MemoryContext parent, const View& v, uint64 seed) {
    Expanded* r = expanded_create(parent, v.elem, v.weighted, v.k, seed);
    expanded_merge(r, v);
    return r;
}

// The state argument ready to be modified in place: ours if it is a
// read/write expanded reservoir, else an expanded copy.
Expanded* writable_state(FunctionCallInfo fcinfo, MemoryContext aggcontext, uint64 salt) {
    Datum d = PG_GETARG_DATUM(0);
    if (DatumIsReadWriteExpandedObject(d, false, -1)) {
        ExpandedObjectHeader* eoh = DatumGetEOHP(d);
        if (eoh->eoh_methods == &kMethods) return reinterpret_cast<Expanded*>(eoh);
    }
    View v;
    view_of(d, &v);
    return expanded_from_view(aggcontext, v, state_seed(fcinfo, salt));
}

int32 checked_k(FunctionCallInfo fcinfo, int argno) {
    if (PG_ARGISNULL(argno))
        ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("reservoir size k must not be NULL")));
    const int32 k = PG_GETARG_INT32(argno);
    sketch_pg::guarded([&] { rsv::check_k(k); });
    return k;
}

Elem item_elem(FunctionCallInfo fcinfo, int argno) {
    Oid type = get_fn_expr_argtype(fcinfo->flinfo, argno);
    if (!OidIsValid(type))
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("could not determine the item type")));
    CallCache* cache = call_cache(fcinfo);
    if (cache->type != type) {
        // Anonymous records carry a backend-local type number: they could
        // not be read back anywhere else.
        if (get_typtype(type) == TYPTYPE_PSEUDO)
            ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                            errmsg("a reservoir cannot hold values of type %s", format_type_be(type)),
                            errhint("Cast the rows to a named composite type: ROW(a, b)::my_type.")));
        cache->elem = elem_for(type);
        cache->type = type;
    }
    return cache->elem;
}

Datum finish_state(Expanded* r) { return EOHPGetRWDatum(&r->hdr); }

// ---- text I/O helpers ----

char* type_name_of(Oid type) { return format_type_extended(type, -1, FORMAT_TYPE_FORCE_QUALIFY); }

Oid type_from_name(const char* name, int errcode_value) {
    Oid type;
    int32 typmod;
    parseTypeString(name, &type, &typmod, false);
    if (get_typtype(type) == TYPTYPE_PSEUDO)
        ereport(ERROR, (errcode(errcode_value), errmsg("a reservoir cannot hold items of pseudo-type %s", name)));
    return type;
}

[[noreturn]] void bad_text(const char* detail) {
    ereport(ERROR, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION), errmsg("invalid input syntax for type reservoir"),
                    errdetail("%s", detail)));
    pg_unreachable();
}

[[noreturn]] void bad_binary(const char* detail) {
    ereport(ERROR, (errcode(ERRCODE_INVALID_BINARY_REPRESENTATION), errmsg("invalid binary data for type reservoir"),
                    errdetail("%s", detail)));
    pg_unreachable();
}

// Runs a core decoder; what it refuses (a sketch::Error) becomes `bad` with
// the decoder's sentence as the detail, anything else the guard's error.
template <typename F>
auto decoded(F&& f, void (*bad)(const char*)) -> decltype(f()) {
    sketch_pg::PendingError pending;
    bool refused = false;
    try {
        return f();
    } catch (const sketch::Error& e) {
        sketch_pg::capture(pending, e);
        refused = true;
    } catch (const std::bad_alloc&) {
        sketch_pg::capture(pending, ERRCODE_OUT_OF_MEMORY, "out of memory");
    } catch (const std::exception& e) {
        sketch_pg::capture(pending, ERRCODE_INTERNAL_ERROR, e.what());
    }
    if (refused) bad(pending.message);
    sketch_pg::raise(pending);
}

// A string of the text form, decoded into the server encoding (an escaped
// code point converted as PostgreSQL's own JSON parser converts it).
char* decoded_string(const char* text, rsv::TextSpan span) {
    StringInfoData buf;
    initStringInfo(&buf);
    rsv::TextStringReader reader(text, span);
    rsv::StringPiece piece;
    while (reader.next(piece)) {
        if (piece.length > 0) {
            appendBinaryStringInfo(&buf, piece.bytes, static_cast<int>(piece.length));
        } else if (piece.code_point < 0x80) {
            appendStringInfoChar(&buf, static_cast<char>(piece.code_point));
        } else {
            unsigned char converted[MAX_UNICODE_EQUIVALENT_STRING + 1];
            pg_unicode_to_server(piece.code_point, converted);
            appendStringInfoString(&buf, reinterpret_cast<const char*>(converted));
        }
    }
    return buf.data;
}

}  // namespace

// ---- aggregate support functions ----

[[noreturn]] static void k_varies_error() {
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("reservoir size k must be the same for every row of a group")));
    pg_unreachable();
}

// reservoir_sample_trans(state, value, k [, weight]): also reservoir_agg's.
SKETCH_FUNCTION(reservoir_trans) {
    const bool weighted = PG_NARGS() >= 4;
    Expanded* r;
    if (likely(!PG_ARGISNULL(0))) {
        if (PG_ARGISNULL(1) || (weighted && PG_ARGISNULL(3))) PG_RETURN_DATUM(PG_GETARG_DATUM(0));
        MemoryContext aggcontext = sketch_pg::aggregate_context(fcinfo, "reservoir_sample_trans");
        r = writable_state(fcinfo, aggcontext, kSaltSample);
        if (unlikely(PG_ARGISNULL(2) || PG_GETARG_INT32(2) != r->k)) k_varies_error();
    } else {
        MemoryContext aggcontext = sketch_pg::aggregate_context(fcinfo, "reservoir_sample_trans");
        if (PG_ARGISNULL(1) || (weighted && PG_ARGISNULL(3))) PG_RETURN_NULL();
        const int32 k = checked_k(fcinfo, 2);
        r = expanded_create(aggcontext, item_elem(fcinfo, 1), weighted, k, state_seed(fcinfo, kSaltSample));
    }
    if (weighted) {
        const double weight = PG_GETARG_FLOAT8(3);
        if (unlikely(!rsv::weight_ok(weight))) sketch_pg::guarded([&] { rsv::check_weight(weight); });
        expanded_add_weighted(r, PG_GETARG_DATUM(1), weight);
    } else {
        expanded_add(r, PG_GETARG_DATUM(1));
    }
    PG_RETURN_DATUM(finish_state(r));
}

// reservoir_combine(state, state): the combine function of every aggregate
// here, and reservoir_union_agg's transition function. A union merges
// samples of any k (into the smaller); a sampling aggregate's partial states
// of different k mean that k varied between rows of the group that different
// workers or partitions saw, the transition's error.
SKETCH_FUNCTION(reservoir_combine) {
    MemoryContext aggcontext = sketch_pg::aggregate_context(fcinfo, "reservoir_combine");
    if (PG_ARGISNULL(1)) {
        if (PG_ARGISNULL(0)) PG_RETURN_NULL();
        PG_RETURN_DATUM(PG_GETARG_DATUM(0));
    }
    View other;
    view_of(PG_GETARG_DATUM(1), &other);
    Expanded* r;
    if (PG_ARGISNULL(0)) {
        r = expanded_from_view(aggcontext, other, state_seed(fcinfo, kSaltMerge));
    } else {
        r = writable_state(fcinfo, aggcontext, kSaltMerge);
        if (r->k != other.k && sketch_pg::combining_built_states(fcinfo)) k_varies_error();
        expanded_merge(r, other);
    }
    PG_RETURN_DATUM(finish_state(r));
}

// The items of v as an array, when they are of the type of argument
// `type_arg` (what the caller's array result type was resolved from); else
// 42804, with a hint showing `call` with the right type.
static ArrayType* items_as(FunctionCallInfo fcinfo, int type_arg, const View& v, const char* call) {
    const Oid wanted = get_fn_expr_argtype(fcinfo->flinfo, type_arg);
    if (wanted != v.elem.type)
        ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                        errmsg("the reservoir holds items of type %s, not %s", format_type_be(v.elem.type),
                               OidIsValid(wanted) ? format_type_be(wanted) : "unknown"),
                        errhint("Pass a NULL of the item type: %s.", psprintf(call, format_type_be(v.elem.type)))));
    return construct_array(v.items, v.count, v.elem.type, v.elem.len, v.elem.byval, v.elem.align);
}

// reservoir_sample's final function: the items as an array. Its result type
// is resolved from its second argument (the aggregate's value argument), so
// a direct call must name the type the reservoir holds, as reservoir_items.
SKETCH_FUNCTION(reservoir_sample_final) {
    if (PG_ARGISNULL(0)) PG_RETURN_NULL();
    View v;
    view_of(PG_GETARG_DATUM(0), &v);
    PG_RETURN_ARRAYTYPE_P(items_as(fcinfo, 1, v, "reservoir_sample_final(r, NULL::%s, k)"));
}

// reservoir_agg's and reservoir_union_agg's final function: the flat value.
SKETCH_FUNCTION(reservoir_agg_final) {
    if (PG_ARGISNULL(0)) PG_RETURN_NULL();
    Datum d = PG_GETARG_DATUM(0);
    if (is_expanded(d)) PG_RETURN_DATUM(datumCopy(d, false, -1));  // flattens
    View v;
    view_of(d, &v, false);  // validates
    PG_RETURN_DATUM(datumCopy(PointerGetDatum(PG_DETOAST_DATUM(d)), false, -1));
}

// ---- functions on values ----

SKETCH_FUNCTION(reservoir_items) {
    if (PG_ARGISNULL(0)) PG_RETURN_NULL();
    View v;
    view_of(PG_GETARG_DATUM(0), &v);
    PG_RETURN_ARRAYTYPE_P(items_as(fcinfo, 1, v, "reservoir_items(r, NULL::%s)"));
}

SKETCH_FUNCTION(reservoir_seen) {
    View v;
    view_of(PG_GETARG_DATUM(0), &v, false);
    PG_RETURN_INT64(v.seen);
}

SKETCH_FUNCTION(reservoir_count) {
    View v;
    view_of(PG_GETARG_DATUM(0), &v, false);
    PG_RETURN_INT32(v.count);
}

// A log-key as JSON: a number, or the string "-Infinity", which text input
// accepts and JSON has no number for.
static void append_log_key(StringInfo buf, double key) {
    if (std::isinf(key))
        appendStringInfoString(buf, "\"-Infinity\"");
    else
        appendStringInfoString(buf, float8out_internal(key));
}

SKETCH_FUNCTION(reservoir_stats) {
    const Datum d = PG_GETARG_DATUM(0);
    View v;
    view_of(d, &v, false);
    const Size bytes = is_expanded(d) ? EOH_get_flat_size(DatumGetEOHP(d)) : VARSIZE_ANY(PG_DETOAST_DATUM(d));
    StringInfoData buf;
    initStringInfo(&buf);
    appendStringInfo(&buf, "{\"k\": %d, \"seen\": " INT64_FORMAT ", \"count\": %d, \"weighted\": %s, \"type\": ", v.k,
                     v.seen, v.count, v.weighted ? "true" : "false");
    escape_json(&buf, type_name_of(v.elem.type));
    appendStringInfo(&buf, ", \"bytes\": %zu", bytes);
    if (v.weighted && v.count > 0) {
        double lo = v.keys[0], hi = v.keys[0];
        for (int32 i = 1; i < v.count; ++i) {
            if (v.keys[i] < lo) lo = v.keys[i];
            if (v.keys[i] > hi) hi = v.keys[i];
        }
        appendStringInfoString(&buf, ", \"min_log_key\": ");
        append_log_key(&buf, lo);
        appendStringInfoString(&buf, ", \"max_log_key\": ");
        append_log_key(&buf, hi);
    }
    appendStringInfoChar(&buf, '}');
    PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(buf.data)));
}

// ---- text I/O: JSON ----
// {"version": 1, "type": "bigint", "k": 5, "seen": 20, "weighted": false,
//  "items": ["3", "17", ...]}   plus "keys": [...] when weighted.

// Text items go out as they were stored, so a value whose items no longer
// read as their type (a domain's constraint tightened, say) still goes out.
SKETCH_FUNCTION(reservoir_out) {
    View v;
    view_of(PG_GETARG_DATUM(0), &v, false);
    Oid output;
    bool varlena;
    getTypeOutputInfo(v.elem.type, &output, &varlena);
    FmgrInfo flinfo;
    fmgr_info(output, &flinfo);
    StringInfoData buf;
    initStringInfo(&buf);
    appendStringInfoString(&buf, "{\"version\": 1, \"type\": ");
    escape_json(&buf, type_name_of(v.elem.type));
    appendStringInfo(&buf, ", \"k\": %d, \"seen\": " INT64_FORMAT ", \"weighted\": %s, \"items\": [", v.k, v.seen,
                     v.weighted ? "true" : "false");
    for (int32 i = 0; i < v.count; ++i) {
        if (i) appendStringInfoString(&buf, ", ");
        escape_json(&buf, v.untyped ? text_to_cstring(DatumGetTextPP(v.items[i])) : OutputFunctionCall(&flinfo, v.items[i]));
    }
    appendStringInfoChar(&buf, ']');
    if (v.weighted) {
        appendStringInfoString(&buf, ", \"keys\": [");
        for (int32 i = 0; i < v.count; ++i) {
            if (i) appendStringInfoString(&buf, ", ");
            append_log_key(&buf, v.keys[i]);
        }
        appendStringInfoChar(&buf, ']');
    }
    appendStringInfoChar(&buf, '}');
    PG_RETURN_CSTRING(buf.data);
}

// The envelope is checked whole by the core (syntax, fields, counts)
// before anything is allocated for the items, which then go through the
// item type's input function.
SKETCH_FUNCTION(reservoir_in) {
    const char* text = PG_GETARG_CSTRING(0);
    const rsv::TextEnvelope env = decoded([&] { return rsv::read_text(text, strlen(text)); }, bad_text);
    const Elem elem =
        elem_for(type_from_name(decoded_string(text, env.type_name), ERRCODE_INVALID_TEXT_REPRESENTATION));
    Oid input, ioparam;
    getTypeInputInfo(elem.type, &input, &ioparam);
    FmgrInfo flinfo;
    fmgr_info(input, &flinfo);
    Datum* items = static_cast<Datum*>(palloc(sizeof(Datum) * (env.count + 1)));
    rsv::TextSpan span;
    bool quoted;
    rsv::TextArrayReader item_reader(text, env.items_at);
    for (int32 i = 0; item_reader.next(span, quoted); ++i)
        items[i] = InputFunctionCall(&flinfo, decoded_string(text, span), ioparam, -1);
    double* keys = nullptr;
    if (env.weighted) {
        // A key is a JSON number or a string float8in reads ("-Infinity").
        keys = static_cast<double*>(palloc(sizeof(double) * (env.count + 1)));
        rsv::TextArrayReader key_reader(text, env.keys_at);
        for (int32 i = 0; key_reader.next(span, quoted); ++i) {
            char* key_text = quoted ? decoded_string(text, span) : pnstrdup(text + span.offset, span.length);
            const double x = DatumGetFloat8(DirectFunctionCall1(float8in, CStringGetDatum(key_text)));
            decoded([&] { rsv::check_key(x, sketch::Errc::invalid_text); }, bad_text);
            keys[i] = x;
        }
    }
    PG_RETURN_DATUM(flat_build(elem, env.weighted, env.k, env.seen, env.count, items, keys));
}

// ---- binary I/O (also the bytea casts) ----
// byte version, byte flags, int32 k, int64 seen, string item type name,
// int32 count, then per item: [float8 key when weighted] int32 length and
// the item type's binary form.

namespace {

bytea* send_value(Datum d) {
    View v;
    view_of(d, &v);
    Oid send;
    bool varlena;
    getTypeBinaryOutputInfo(v.elem.type, &send, &varlena);
    FmgrInfo flinfo;
    fmgr_info(send, &flinfo);
    StringInfoData buf;
    pq_begintypsend(&buf);
    pq_sendbyte(&buf, rsv::kExternalVersion);
    pq_sendbyte(&buf, v.weighted ? rsv::kExternalWeighted : 0);
    pq_sendint32(&buf, v.k);
    pq_sendint64(&buf, v.seen);
    pq_sendstring(&buf, type_name_of(v.elem.type));
    pq_sendint32(&buf, v.count);
    for (int32 i = 0; i < v.count; ++i) {
        if (v.weighted) pq_sendfloat8(&buf, v.keys[i]);
        bytea* item = SendFunctionCall(&flinfo, v.items[i]);
        pq_sendint32(&buf, VARSIZE(item) - VARHDRSZ);
        pq_sendbytes(&buf, VARDATA(item), VARSIZE(item) - VARHDRSZ);
    }
    return pq_endtypsend(&buf);
}

// The binary form in data[0..len), validated whole by the core before
// anything is allocated for its items; each item then goes through its
// type's receive function, which must read every byte it was given.
Datum receive_value(char* data, int len) {
    const uint8* bytes = reinterpret_cast<const uint8*>(data);
    const rsv::BinaryHeader h = decoded([&] { return rsv::read_binary(bytes, static_cast<size_t>(len)); }, bad_binary);
    char* type_name = pg_client_to_server(h.type_name, static_cast<int>(strlen(h.type_name)));
    const Elem elem = elem_for(type_from_name(type_name, ERRCODE_INVALID_BINARY_REPRESENTATION));
    Oid receive, ioparam;
    getTypeBinaryInputInfo(elem.type, &receive, &ioparam);
    FmgrInfo flinfo;
    fmgr_info(receive, &flinfo);
    Datum* items = static_cast<Datum*>(palloc(sizeof(Datum) * (h.count + 1)));
    double* keys = h.weighted ? static_cast<double*>(palloc(sizeof(double) * (h.count + 1))) : nullptr;
    size_t pos = h.items_offset;
    for (int32 i = 0; i < h.count; ++i) {
        const rsv::BinaryItem item = rsv::next_binary_item(bytes, pos, h.weighted);
        if (keys) keys[i] = item.key;
        // As array_recv does: a StringInfo over the item's bytes, the
        // terminating NUL convention kept by borrowing the next byte (the
        // caller's buffer always has one past its end).
        StringInfoData buf;
        buf.data = data + item.offset;
        buf.len = static_cast<int>(item.length);
        buf.maxlen = buf.len + 1;
        buf.cursor = 0;
        const char saved = buf.data[buf.len];
        buf.data[buf.len] = '\0';
        items[i] = ReceiveFunctionCall(&flinfo, &buf, ioparam, -1);
        buf.data[buf.len] = saved;
        if (buf.cursor != buf.len)
            ereport(ERROR, (errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
                            errmsg("invalid binary data for type reservoir"),
                            errdetail("Item %d is %d bytes long, but its type's receive function read %d.", i + 1,
                                      buf.len, buf.cursor)));
    }
    return flat_build(elem, h.weighted, h.k, h.seen, h.count, items, keys);
}

}  // namespace

SKETCH_FUNCTION(reservoir_send) { PG_RETURN_BYTEA_P(send_value(PG_GETARG_DATUM(0))); }

SKETCH_FUNCTION(reservoir_recv) {
    StringInfo buf = reinterpret_cast<StringInfo>(PG_GETARG_POINTER(0));
    // The whole message is the value (record_recv and array_recv hand over
    // just the field's bytes).
    char* data = buf->data + buf->cursor;
    const int len = buf->len - buf->cursor;
    buf->cursor = buf->len;
    PG_RETURN_DATUM(receive_value(data, len));
}

SKETCH_FUNCTION(reservoir_from_bytea) {
    bytea* b = PG_GETARG_BYTEA_P(0);
    const int len = VARSIZE(b) - VARHDRSZ;
    char* data = static_cast<char*>(palloc(len + 1));
    memcpy(data, VARDATA(b), len);
    data[len] = '\0';
    PG_RETURN_DATUM(receive_value(data, len));
}
