#include "types/reservoir_value.hpp"

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

namespace reservoir_pg {

Size expanded_flat_size(ExpandedObjectHeader* eohptr);
void expanded_flatten_into(ExpandedObjectHeader* eohptr, void* result, Size allocated_size);

extern const ExpandedObjectMethods kMethods;
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
    if (f->version != kVersion)
        corrupted(psprintf("Unsupported stored format version %u (this build reads version %u).",
                           static_cast<unsigned>(f->version), static_cast<unsigned>(kVersion)));
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
void view_of(Datum d, View* v, bool typed) {
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

char* type_name_of(Oid type) { return format_type_extended(type, -1, FORMAT_TYPE_FORCE_QUALIFY); }

// A log-key as JSON: a number, or the string "-Infinity", which text input
// accepts and JSON has no number for.
void append_log_key(StringInfo buf, double key) {
    if (std::isinf(key))
        appendStringInfoString(buf, "\"-Infinity\"");
    else
        appendStringInfoString(buf, float8out_internal(key));
}

}  // namespace reservoir_pg
