// Type modifiers of `bloom` and `cbf`: typmod_in and typmod_out, the
// length-coercion casts, and the check the input functions share.
#include <cinttypes>
#include <cstdio>
#include <string>
#include <vector>

#include "guard.hpp"
#include "layout_name.hpp"
#include "memory/detoast_into.hpp"
#include "typmod_encoding.hpp"
#include "types/bloom_sql_internal.hpp"
#include "types/cbf_sql_internal.hpp"
#include "types/typmod_enforcement.hpp"

extern "C" {
#include "catalog/pg_type_d.h"
#include "utils/array.h"
}

namespace sb = sketch::bloom;
namespace smod = sketch::typmod;

namespace sketch_pg {

namespace {

const smod::Shape kBloomShape{"bloom", "n", 2, true, 0};
const smod::Shape kCbfShape{"cbf", "capacity", 1, false, cbf_sql::kDefaultFpr};

// What a modifier fixes, in plain buffers for messages and caches.
struct Fixed {
    char type[160];    // "bloom(1000000,0.01)"
    char layout[96];   // the bloom layout's canonical spec
    sb::Geometry bloom;
    sketch::cbf::Geometry cbf;
};

// Throws for a modifier that sizes no filter.
void fix_bloom(int32 typmod, Fixed* f) {
    const smod::Modifier m = smod::decode(typmod);
    const std::string layout = m.has_layout() ? sb::format_layout(smod::layout_at(m.layout)) : std::string();
    f->bloom = bloom_sql::geometry_of(int64_t(m.n()), m.fpr(), m.has_layout() ? layout.c_str() : nullptr);
    snprintf(f->type, sizeof f->type, "bloom%s", smod::format_modifier(m).c_str());
    strlcpy(f->layout, layout_name(f->bloom.layout).text, sizeof f->layout);
}

void fix_cbf(int32 typmod, Fixed* f) {
    const smod::Modifier m = smod::decode(typmod);
    f->cbf = sketch::cbf::geometry_for(int64_t(m.n()), m.fpr(), cbf_sql::kValueMaxCounters);
    snprintf(f->type, sizeof f->type, "cbf%s", smod::format_modifier(m).c_str());
}

[[noreturn]] void bloom_mismatch(const Fixed& f, const sb::Geometry& g) {
    const LayoutName layout = layout_name(g.layout);
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("bloom filter does not fit type %s", f.type),
                    errdetail("The type holds %s filters of %" PRIu64 " bits; the value is a %s filter of %" PRIu64 " bits.",
                              f.layout, f.bloom.bits(), layout.text, g.bits()),
                    errhint("bloom_empty and bloom_agg make filters of the type from the same n, fpr and layout.")));
    pg_unreachable();
}

void require_bloom_fits(const Fixed& f, const sb::Geometry& g) {
    if (f.bloom != g) bloom_mismatch(f, g);
}

[[noreturn]] void cbf_mismatch(const Fixed& f, const sketch::cbf::Geometry& g) {
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("counting filter does not fit type %s", f.type),
                    errdetail("The type holds %s filters of %" PRIu64 " counters and %u hashes; the value is a %s "
                              "filter of %" PRIu64 " counters and %u hashes.",
                              f.cbf.blocked() ? "block" : "classic", f.cbf.m, f.cbf.k,
                              g.blocked() ? "block" : "classic", g.m, g.k),
                    errhint("cbf_empty and cbf_agg make filters of the type from the same capacity and fpr.")));
    pg_unreachable();
}

// m, k and the layout decide what the counters mean (the seed is not fixed).
void require_cbf_fits(const Fixed& f, const sketch::cbf::Geometry& g) {
    if (f.cbf.m != g.m || f.cbf.k != g.k || f.cbf.scheme != g.scheme) cbf_mismatch(f, g);
}

// A length-coercion cast's modifier, fixed once per call site.
template <typename Fix>
const Fixed& cached_fixed(FunctionCallInfo fcinfo, int32 typmod, Fix fix) {
    struct Cache {
        int32 typmod;
        Fixed fixed;
    };
    auto* c = static_cast<Cache*>(fcinfo->flinfo->fn_extra);
    if (c == nullptr || c->typmod != typmod) {
        Fixed fixed;
        guarded([&] { fix(typmod, &fixed); });
        if (c == nullptr) {
            c = static_cast<Cache*>(MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, sizeof(Cache)));
            fcinfo->flinfo->fn_extra = c;
        }
        c->typmod = typmod;
        c->fixed = fixed;
    }
    return c->fixed;
}

// typmod_in's argument: the modifiers' texts (cstring[]) as palloc'd C strings.
struct Args {
    Datum* texts;
    int count;
};
Args modifier_args(FunctionCallInfo fcinfo) {
    ArrayType* arr = PG_GETARG_ARRAYTYPE_P(0);
    // The parser passes a flat array of texts; a direct call may pass anything
    // (a NULL text would reach std::string as a null pointer). Refused as
    // PostgreSQL's own typmod_in functions refuse them (ArrayGetIntegerTypmods).
    if (ARR_NDIM(arr) > 1)
        ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR), errmsg("typmod array must be one-dimensional")));
    Args a;
    bool* nulls;
    deconstruct_array(arr, CSTRINGOID, -2, false, TYPALIGN_CHAR, &a.texts, &nulls, &a.count);
    for (int i = 0; i < a.count; ++i)
        if (nulls[i])
            ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("typmod array must not contain nulls")));
    return a;
}

// Parses the modifier and checks that it sizes a filter (Fix throws if not).
template <typename Fix>
int32 typmod_in(FunctionCallInfo fcinfo, const smod::Shape& shape, Fix fix) {
    const Args a = modifier_args(fcinfo);
    return guarded([&] {
        std::vector<std::string> args;
        for (int i = 0; i < a.count; ++i) args.emplace_back(DatumGetCString(a.texts[i]));
        const int32 typmod = smod::encode(smod::parse_modifier(shape, args));
        Fixed f;
        fix(typmod, &f);
        return typmod;
    });
}

}  // namespace

void check_bloom_modifier(const sb::Geometry& g, int32 typmod) {
    if (typmod < 0) return;
    Fixed f;
    guarded([&] { fix_bloom(typmod, &f); });
    require_bloom_fits(f, g);
}

void check_cbf_modifier(const sketch::cbf::Geometry& g, int32 typmod) {
    if (typmod < 0) return;
    Fixed f;
    guarded([&] { fix_cbf(typmod, &f); });
    require_cbf_fits(f, g);
}

}  // namespace sketch_pg

using namespace sketch_pg;

// The modifier as format_type and \d show it, and pg_dump writes it.
static char* typmod_text(int32 typmod) {
    char text[160];
    guarded([&] { snprintf(text, sizeof text, "%s", smod::format_modifier(smod::decode(typmod)).c_str()); });
    return pstrdup(text);
}

SKETCH_FUNCTION(bloom_typmod_in) { PG_RETURN_INT32(typmod_in(fcinfo, kBloomShape, fix_bloom)); }
SKETCH_FUNCTION(bloom_typmod_out) { PG_RETURN_CSTRING(typmod_text(PG_GETARG_INT32(0))); }
SKETCH_FUNCTION(cbf_typmod_in) { PG_RETURN_INT32(typmod_in(fcinfo, kCbfShape, fix_cbf)); }
SKETCH_FUNCTION(cbf_typmod_out) { PG_RETURN_CSTRING(typmod_text(PG_GETARG_INT32(0))); }

// bloom(bloom, typmod, explicit): the cast PostgreSQL applies when a value
// is stored in (or cast to) a modified type. A filter cannot be resized, so
// an explicit cast checks as an assignment does.
SKETCH_FUNCTION(bloom_enforce_typmod) {
    const int32 typmod = PG_GETARG_INT32(1);
    if (typmod < 0) PG_RETURN_DATUM(PG_GETARG_DATUM(0));
    const Fixed& f = cached_fixed(fcinfo, typmod, fix_bloom);
    const bloom_sql::Opened o = bloom_sql::open_value(PG_GETARG_DATUM(0));
    require_bloom_fits(f, o.g);
    PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}

SKETCH_FUNCTION(cbf_enforce_typmod) {
    const int32 typmod = PG_GETARG_INT32(1);
    if (typmod < 0) PG_RETURN_DATUM(PG_GETARG_DATUM(0));
    const Fixed& f = cached_fixed(fcinfo, typmod, fix_cbf);
    const sketch::cbf::View view = cbf_sql::view_of(detoast_large(PG_GETARG_DATUM(0)));
    require_cbf_fits(f, view.g);
    PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}
