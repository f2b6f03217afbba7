// The bytes a shared reservoir stores for an item (shared_reservoir_internal.hpp):
// bytea's bytes, text's, or another type's text form.
#include <cstring>

#include "reservoir/shared_reservoir.hpp"
#include "shared_objects/reservoir/shared_reservoir_internal.hpp"

extern "C" {
#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
}

namespace sr = sketch::shared_reservoir;

namespace sketch_pg::shared_reservoir {

// Output functions by type, cached for the backend (a handful of types).
// Each slot's function keeps what it caches (array_out's, record_out's
// fn_extra) in the slot's own context, emptied when the slot is reused.
struct OutputCache {
    Oid typid;
    FmgrInfo out;
    MemoryContext cxt;
};
static OutputCache output_cache[8];
static int output_next = 0;

static FmgrInfo* output_for(Oid typid) {
    for (auto& c : output_cache)
        if (c.typid == typid) return &c.out;
    Oid fn;
    bool varlena;
    getTypeOutputInfo(typid, &fn, &varlena);
    OutputCache& c = output_cache[output_next++ % 8];
    c.typid = InvalidOid;
    if (c.cxt == nullptr)
        c.cxt = AllocSetContextCreate(TopMemoryContext, "sketchshare output function", ALLOCSET_SMALL_SIZES);
    else
        MemoryContextReset(c.cxt);
    fmgr_info_cxt(fn, &c.out, c.cxt);
    c.typid = typid;
    return &c.out;
}

// The form of a base type.
static Form base_form(Oid base) {
    switch (base) {
        case TEXTOID:
        case VARCHAROID: return Form::text_bytes;
        case BYTEAOID: return Form::raw_bytes;
        case BPCHAROID: return Form::padded_text;
        default: return Form::output;
    }
}

Form form_of(Oid typid) {
    const Form direct = base_form(typid);
    if (direct != Form::output) return direct;
    static Oid last_typid = InvalidOid;  // a domain: one syscache lookup per type, not per row
    static Form last_form = Form::output;
    if (typid != last_typid) {
        last_form = base_form(getBaseType(typid));
        last_typid = typid;
    }
    return last_form;
}

// The bytes stored for a value: bytea's bytes; text's bytes (char(n)'s
// without its padding); anything else its text form. Text is cut at a
// character boundary, bytea at item_size.
ItemBytes item_bytes(Datum value, Oid typid, Form form, uint32 item_size) {
    ItemBytes it;
    it.flags = 0;
    if (form == Form::output) {
        char* s = OutputFunctionCall(output_for(typid), value);
        it.data = s;
        it.len = uint32(strlen(s));
    } else {
        auto* v = reinterpret_cast<varlena*>(PG_DETOAST_DATUM_PACKED(value));
        it.data = VARDATA_ANY(v);
        it.len = uint32(VARSIZE_ANY_EXHDR(v));
        if (form == Form::raw_bytes) it.flags = sr::kBinary;
        if (form == Form::padded_text)
            while (it.len > 0 && it.data[it.len - 1] == ' ') --it.len;
    }
    if (it.len > item_size)
        it.len = it.flags & sr::kBinary ? item_size : uint32(pg_mbcliplen(it.data, int(it.len), int(item_size)));
    return it;
}

}  // namespace sketch_pg::shared_reservoir
