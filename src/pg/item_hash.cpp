#include "item_hash.hpp"

#include "item_types.hpp"

extern "C" {
#include "catalog/pg_type_d.h"
#include "miscadmin.h"
#include "pgtime.h"
#include "utils/bytea.h"
#include "utils/datetime.h"
#include "utils/float.h"
#include "utils/guc.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/typcache.h"
#include "utils/uuid.h"
}

namespace sketch_pg {

static ItemKind kind_for(Oid base) {
    switch (base) {
        case TEXTOID:
        case VARCHAROID:
        case BYTEAOID: return ItemKind::bytes;
        case BPCHAROID: return ItemKind::padded_chars;
        case NAMEOID: return ItemKind::name;
        case INT2OID: return ItemKind::integer2;
        case INT4OID: return ItemKind::integer4;
        case INT8OID: return ItemKind::integer8;
        case FLOAT4OID: return ItemKind::float4;
        case FLOAT8OID: return ItemKind::float8;
        case BOOLOID: return ItemKind::boolean;
        case UUIDOID: return ItemKind::uuid;
        default: return ItemKind::text_output;
    }
}


// The types kind_for knows are base types: only the others may be domains
// (a syscache lookup, once per call site).
static ItemKind resolved_kind(Oid typid) {
    const ItemKind kind = kind_for(typid);
    return kind == ItemKind::text_output ? kind_for(getBaseType(typid)) : kind;
}

Oid call_arg_type(FmgrInfo* flinfo, int argno) {
    const Oid from_expr = get_fn_expr_argtype(flinfo, argno);
    if (OidIsValid(from_expr) || !OidIsValid(flinfo->fn_oid)) return from_expr;
    HeapTuple tuple = SearchSysCache1(PROCOID, ObjectIdGetDatum(flinfo->fn_oid));
    if (!HeapTupleIsValid(tuple)) return InvalidOid;
    const auto* proc = reinterpret_cast<Form_pg_proc>(GETSTRUCT(tuple));
    Oid declared = argno < proc->pronargs ? proc->proargtypes.values[argno] : InvalidOid;
    ReleaseSysCache(tuple);
    return IsPolymorphicType(declared) ? InvalidOid : declared;
}

bool hashes_by_output(Oid typid) { return resolved_kind(typid) == ItemKind::text_output; }

// Whether the text output of a value of typid may name a catalog object
// relative to the session's search_path: a reg* type prints a possibly
// qualified name, and a container (array, range, composite) prints its
// elements' outputs; an anonymous record may hold anything. Every other type
// prints the same under every search_path, and keeps its per-value cost.
static bool output_names_by_search_path(Oid typid) {
    check_stack_depth();
    const Oid base = getBaseType(typid);
    switch (base) {
        case REGCLASSOID:
        case REGTYPEOID:
        case REGPROCOID:
        case REGPROCEDUREOID:
        case REGOPEROID:
        case REGOPERATOROID:
        case REGCONFIGOID:
        case REGDICTIONARYOID:
        case REGCOLLATIONOID:
        case RECORDOID: return true;
        default: break;
    }
    const Oid element = get_element_type(base);
    if (OidIsValid(element)) return output_names_by_search_path(element);
    switch (get_typtype(base)) {
        case TYPTYPE_RANGE: return output_names_by_search_path(get_range_subtype(base));
        case TYPTYPE_MULTIRANGE: return output_names_by_search_path(get_multirange_range(base));
        case TYPTYPE_COMPOSITE: {
            // the attributes' types first: the recursion may raise
            TupleDesc desc = lookup_rowtype_tupdesc(base, -1);
            List* types = NIL;
            for (int i = 0; i < desc->natts; ++i)
                if (!TupleDescAttr(desc, i)->attisdropped) types = lappend_oid(types, TupleDescAttr(desc, i)->atttypid);
            ReleaseTupleDesc(desc);
            bool names = false;
            ListCell* cell;
            foreach (cell, types) names = names || output_names_by_search_path(lfirst_oid(cell));
            list_free(types);
            return names;
        }
        default: return false;
    }
}

void item_hasher_init(ItemHasher* hasher, Oid typid, MemoryContext mcxt) {
    if (!OidIsValid(typid))
        ereport(ERROR, (errcode(ERRCODE_INDETERMINATE_DATATYPE), errmsg("could not determine the type of the item to hash")));
    hasher->kind = resolved_kind(typid);
    const Oid base = kind_for(typid) == ItemKind::text_output ? getBaseType(typid) : typid;
    hasher->is_array = OidIsValid(get_element_type(base));
    hasher->item = item_class_of(hasher->kind, base);
    if (hasher->kind == ItemKind::text_output) {
        Oid output_fn;
        bool is_varlena;
        getTypeOutputInfo(typid, &output_fn, &is_varlena);
        fmgr_info_cxt(output_fn, &hasher->output, mcxt);
        hasher->fixed_search_path = output_names_by_search_path(base);
    }
    hasher->typid = typid;  // last: set up only if nothing above raised
}

static ItemHasher* hasher_in_fn_extra(FmgrInfo* flinfo) {
    auto* hasher = static_cast<ItemHasher*>(flinfo->fn_extra);
    if (hasher == nullptr) {
        hasher = static_cast<ItemHasher*>(MemoryContextAllocZero(flinfo->fn_mcxt, sizeof(ItemHasher)));
        flinfo->fn_extra = hasher;
    }
    return hasher;
}

const ItemHasher* item_hasher_for_arg(FunctionCallInfo fcinfo, int argno) {
    // A call site's argument types are fixed, so the hasher is resolved once.
    return call_site_hasher(hasher_in_fn_extra(fcinfo->flinfo), fcinfo, argno);
}

const ItemHasher* item_hasher_for_type(FunctionCallInfo fcinfo, Oid typid) {
    ItemHasher* hasher = hasher_in_fn_extra(fcinfo->flinfo);
    if (unlikely(hasher->typid != typid)) item_hasher_init(hasher, typid, fcinfo->flinfo->fn_mcxt);
    return hasher;
}

// Varlena bytes, detoasted: a compressed or external value hashes as inline.
// With trim_spaces (char(n)), without its trailing spaces: what its cast to
// text gives, so that a char(n) item hashes as the same string in text.
static sketch::Hash128 hash_varlena(Datum value, uint64_t seed, bool trim_spaces = false) {
    struct varlena* raw = reinterpret_cast<struct varlena*>(DatumGetPointer(value));
    struct varlena* flat = PG_DETOAST_DATUM_PACKED(value);
    const char* data = VARDATA_ANY(flat);
    size_t len = VARSIZE_ANY_EXHDR(flat);
    if (trim_spaces)
        while (len > 0 && data[len - 1] == ' ') --len;
    sketch::Hash128 h = sketch::hash_bytes(data, len, seed);
    if (flat != raw) pfree(flat);
    return h;
}

// Sets search_path to `pg_catalog, public, pg_temp` until AtEOXact_GUC of
// the returned nest level: catalog names then print as a session with the
// default search_path prints them (the digests filters already hold), in
// every session. Objects of a "$user" schema print qualified; temporary ones
// print unqualified unless a permanent object of that name shadows them, and
// never shadow one (the temporary schema comes last).
static int set_fixed_search_path() {
    const int level = NewGUCNestLevel();
    (void)set_config_option("search_path", "pg_catalog, public, pg_temp", PGC_USERSET, PGC_S_SESSION,
                            GUC_ACTION_SAVE, true, 0, false);
    return level;
}

// Text output under fixed settings (ISO dates, UTC, postgres intervals, hex
// bytea, shortest exact floats, and for the reg* types a fixed search_path),
// so the digest of a date, a timestamptz, a regclass or an array of them does
// not depend on the session that computes it.
static char* canonical_output(FmgrInfo* output, Datum value, bool fixed_search_path) {
    static pg_tz* utc = nullptr;
    if (utc == nullptr) utc = pg_tzset("UTC");
    const int saved_style = DateStyle, saved_order = DateOrder, saved_interval = IntervalStyle;
    const int saved_digits = extra_float_digits, saved_bytea = bytea_output;
    pg_tz* const saved_zone = session_timezone;
    DateStyle = USE_ISO_DATES;
    DateOrder = DATEORDER_YMD;
    IntervalStyle = INTSTYLE_POSTGRES;
    extra_float_digits = 1;
    bytea_output = BYTEA_OUTPUT_HEX;
    session_timezone = utc;
    char* text = nullptr;
    volatile int level = 0;  // read after a longjmp
    PG_TRY();
    {
        if (fixed_search_path) level = set_fixed_search_path();
        text = OutputFunctionCall(output, value);
    }
    PG_FINALLY();
    {
        if (level != 0) AtEOXact_GUC(true, level);
        DateStyle = saved_style;
        DateOrder = saved_order;
        IntervalStyle = saved_interval;
        extra_float_digits = saved_digits;
        bytea_output = saved_bytea;
        session_timezone = saved_zone;
    }
    PG_END_TRY();
    return text;
}

sketch::Hash128 hash_item(const ItemHasher* hasher, Datum value, uint64_t seed) {
    switch (hasher->kind) {
        case ItemKind::bytes: return hash_varlena(value, seed);
        case ItemKind::padded_chars: return hash_varlena(value, seed, true);
        case ItemKind::name: {
            const char* s = NameStr(*DatumGetName(value));
            return sketch::hash_bytes(s, strlen(s), seed);
        }
        case ItemKind::integer2: return sketch::hash_int(DatumGetInt16(value), seed);
        case ItemKind::integer4: return sketch::hash_int(DatumGetInt32(value), seed);
        case ItemKind::integer8: return sketch::hash_int(DatumGetInt64(value), seed);
        case ItemKind::float4: return sketch::hash_float(DatumGetFloat4(value), seed);
        case ItemKind::float8: return sketch::hash_float(DatumGetFloat8(value), seed);
        case ItemKind::boolean: return sketch::hash_bool(DatumGetBool(value), seed);
        case ItemKind::uuid: return sketch::hash_bytes(DatumGetUUIDP(value)->data, UUID_LEN, seed);
        case ItemKind::text_output: {
            char* text = canonical_output(const_cast<FmgrInfo*>(&hasher->output), value, hasher->fixed_search_path);
            sketch::Hash128 h = sketch::hash_bytes(text, strlen(text), seed);
            pfree(text);
            return h;
        }
    }
    pg_unreachable();
}

}  // namespace sketch_pg
