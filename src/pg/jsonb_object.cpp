// A jsonb object built with PostgreSQL's jsonb API (jsonb_object.hpp).
#include "jsonb_object.hpp"

#include <cinttypes>
#include <cstring>

extern "C" {
#include "utils/builtins.h"
#include "utils/numeric.h"
}

namespace sketch_pg {

JsonbObject::JsonbObject() { (void)pushJsonbValue(&state_, WJB_BEGIN_OBJECT, nullptr); }

void JsonbObject::key(const char* key) {
    JsonbValue k;
    k.type = jbvString;
    k.val.string.val = const_cast<char*>(key);
    k.val.string.len = int(strlen(key));
    (void)pushJsonbValue(&state_, WJB_KEY, &k);
}

void JsonbObject::value(JsonbValue* v) { (void)pushJsonbValue(&state_, WJB_VALUE, v); }

void JsonbObject::string(const char* k, const char* s) {
    key(k);
    JsonbValue v;
    v.type = jbvString;
    v.val.string.val = pstrdup(s);
    v.val.string.len = int(strlen(s));
    value(&v);
}

void JsonbObject::boolean(const char* k, bool b) {
    key(k);
    JsonbValue v;
    v.type = jbvBool;
    v.val.boolean = b;
    value(&v);
}

void JsonbObject::number(const char* k, const char* digits) {
    key(k);
    JsonbValue v;
    v.type = jbvNumeric;
    v.val.numeric = DatumGetNumeric(
        DirectFunctionCall3(numeric_in, CStringGetDatum(digits), ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1)));
    value(&v);
}

void JsonbObject::number(const char* k, uint64 n) { number(k, psprintf("%" PRIu64, n)); }

void JsonbObject::number(const char* k, int64 n) { number(k, psprintf("%" PRId64, n)); }

Datum JsonbObject::finish() {
    JsonbValue* object = pushJsonbValue(&state_, WJB_END_OBJECT, nullptr);
    return JsonbPGetDatum(JsonbValueToJsonb(object));
}

}  // namespace sketch_pg
