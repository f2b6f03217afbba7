// The reservoir type's text (JSON) and binary I/O, and the casts to and
// from bytea. The value's forms: reservoir_value.hpp.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#include "hash.hpp"
#include "reservoir/reservoir.hpp"
#include "reservoir/reservoir_format.hpp"
#include "types/agg_state.hpp"
#include "types/reservoir_value.hpp"
#include "guard.hpp"
#include "module.hpp"
#include "pg.hpp"
#include "pg_compat.hpp"

extern "C" {
#include "access/parallel.h"
#include "access/tupmacs.h"
#include "catalog/catalog.h"
#include "catalog/pg_type.h"
#include "catalog/pg_type_d.h"
#include "libpq/pqformat.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
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

using namespace reservoir_pg;

namespace {

// ---- text I/O helpers ----

Oid type_from_name(const char* name, int errcode_value) {
    const Oid type = sketch_pg::compat::type_by_name(name);
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

