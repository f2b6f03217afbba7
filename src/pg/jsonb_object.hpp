// A jsonb object built with PostgreSQL's jsonb API (pushJsonbValue), for the
// stats functions: the keys may come in any order, since jsonb sorts them.
#pragma once

#include "pg.hpp"

extern "C" {
#include "utils/jsonb.h"
}

namespace sketch_pg {

class JsonbObject {
  public:
    JsonbObject();
    void string(const char* key, const char* value);
    void boolean(const char* key, bool value);
    // A number written as `digits` (so that its precision is the one it is
    // printed with): what jsonb_in would make of the same text.
    void number(const char* key, const char* digits);
    void number(const char* key, uint64 value);
    void number(const char* key, int64 value);
    void number(const char* key, uint32 value) { number(key, uint64(value)); }
    Datum finish();

  private:
    void key(const char* key);
    void value(JsonbValue* v);

    JsonbParseState* state_ = nullptr;
};

}  // namespace sketch_pg
