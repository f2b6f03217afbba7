#include "item_types.hpp"

#include <cstring>

extern "C" {
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/transam.h"
#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/rel.h"
#include "utils/syscache.h"
}

namespace sketch_pg {

static_assert(sketch::kFirstNonBuiltinTypeOid == FirstGenbkiObjectId, "a built-in type's oid is one initdb fixes");

namespace {

// A type outside the catalog's fixed oids is named by a digest of its
// schema-qualified name, which a dump restores where the oid would differ.
uint32_t named_type_digest(Oid base) {
    const char* name = format_type_be_qualified(base);
    const uint32_t digest = uint32_t(sketch::hash_bytes(name, strlen(name), 0).lo);
    return digest != 0 ? digest : 1;  // 0 means "no type"
}

// The type of this database whose digest is `digest` (a scan of pg_type:
// errors only), or nullptr.
const char* named_type_with_digest(uint32_t digest) {
    Relation rel = table_open(TypeRelationId, AccessShareLock);
    SysScanDesc scan = systable_beginscan(rel, InvalidOid, false, nullptr, 0, nullptr);
    const char* found = nullptr;
    for (HeapTuple tup; found == nullptr && (tup = systable_getnext(scan)) != nullptr;) {
        const Oid oid = reinterpret_cast<Form_pg_type>(GETSTRUCT(tup))->oid;
        if (oid >= FirstGenbkiObjectId && named_type_digest(oid) == digest) found = format_type_be_qualified(oid);
    }
    systable_endscan(scan);
    table_close(rel, AccessShareLock);
    return found;
}

const char* class_name(sketch::ItemClass c) {
    using C = sketch::ItemClassCode;
    switch (c.code) {
        case C::unknown: return "(any)";
        case C::integer: return "smallint, integer or bigint";
        case C::text: return "text, varchar, char(n), name or bytea";
        case C::floating: return "real or double precision";
        case C::uuid: return "uuid";
        case C::builtin_type:
            // A fixed oid, but a value from another major version may name a
            // type this catalog lacks (format_type_be would fail with XX000).
            if (!SearchSysCacheExists1(TYPEOID, ObjectIdGetDatum(c.type)))
                return psprintf("a built-in type not in this server (oid %u)", c.type);
            return format_type_be(c.type);
        case C::named_type: {
            const char* name = named_type_with_digest(c.type);
            return name != nullptr ? name : psprintf("a type not in this database (digest %08x)", c.type);
        }
    }
    return "?";
}

// A type of class c to cast an item to, for a hint; nullptr when this
// database has none (text needs no cast).
const char* cast_for(sketch::ItemClass c) {
    using C = sketch::ItemClassCode;
    switch (c.code) {
        case C::integer: return "bigint";
        case C::floating: return "double precision";
        case C::uuid: return "uuid";
        case C::builtin_type:
            return SearchSysCacheExists1(TYPEOID, ObjectIdGetDatum(c.type)) ? format_type_be(c.type) : nullptr;
        case C::named_type: return named_type_with_digest(c.type);
        case C::unknown:
        case C::text: break;
    }
    return nullptr;
}

}  // namespace

sketch::ItemClass item_class_of(ItemKind kind, Oid base) {
    using C = sketch::ItemClassCode;
    switch (kind) {
        case ItemKind::bytes:
        case ItemKind::padded_chars:
        case ItemKind::name: return {C::text, 0};
        case ItemKind::integer2:
        case ItemKind::integer4:
        case ItemKind::integer8: return {C::integer, 0};
        case ItemKind::float4:
        case ItemKind::float8: return {C::floating, 0};
        case ItemKind::uuid: return {C::uuid, 0};
        case ItemKind::boolean:
        case ItemKind::text_output: break;
    }
    // "char" hashes as its one character, as text does (docs/hashing.md).
    if (base == CHAROID) return {C::text, 0};
    // The oids of initdb's own catalog entries are fixed in every cluster.
    if (base < FirstGenbkiObjectId) return {C::builtin_type, uint32_t(base)};
    return {C::named_type, named_type_digest(base)};
}

void item_mismatch(sketch::ItemClass filter, const ItemHasher* h, const char* what, const char* many) {
    const char* item_type = format_type_be(h->typid);
    if (!filter.known())
        ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                        errmsg("cannot add an array of type %s to %s as one item", item_type, what),
                        errhint("%s adds the elements of an array one by one.", many)));
    // A query parameter that a driver sends without a type (node-postgres,
    // pgbench -M prepared) resolves to text against anycompatible.
    const char* cast = h->typid == TEXTOID ? cast_for(filter) : nullptr;
    ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                    errmsg("%s holds items of type %s, not %s", what, class_name(filter), item_type),
                    errdetail("Items of these types hash differently: a lookup would not find what was added."),
                    h->is_array && many != nullptr ? errhint("%s takes the elements of an array one by one.", many)
                    : cast != nullptr
                        ? errhint("Cast the item, as in $1::%s: a parameter sent without a type, as node-postgres and "
                                  "pgbench -M prepared send them, is taken as text.",
                                  cast)
                        : 0));
    pg_unreachable();
}

void check_classes_meet(sketch::ItemClass a, sketch::ItemClass b, const char* what) {
    if (sketch::classes_compatible(a, b)) return;
    const char* first = class_name(a);
    ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                    errmsg("cannot %s: items of type %s and %s", what, first, class_name(b))));
}

}  // namespace sketch_pg
