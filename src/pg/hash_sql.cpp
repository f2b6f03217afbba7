// sketch_hash(anycompatible): the digest every structure uses for an item.
#include "item_hash.hpp"

SKETCH_FUNCTION(sketch_hash) {
    const sketch_pg::ItemHasher* hasher = sketch_pg::item_hasher_for_arg(fcinfo, 0);
    std::array<uint8_t, 16> digest = sketch::canonical_bytes(sketch_pg::hash_item(hasher, PG_GETARG_DATUM(0)));
    bytea* result = static_cast<bytea*>(palloc(VARHDRSZ + digest.size()));
    SET_VARSIZE(result, VARHDRSZ + digest.size());
    memcpy(VARDATA(result), digest.data(), digest.size());
    PG_RETURN_BYTEA_P(result);
}
