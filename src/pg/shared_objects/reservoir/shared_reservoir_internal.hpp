// What the two files of the shared reservoir functions share, inside
// src/pg/shared_objects/reservoir/:
//   shared_reservoir_sql.cpp     the kind's registration, create, the adds, the
//                                reads (sample, seen, count, stats), seed, clear,
//                                and the helpers declared here
//   shared_reservoir_values.cpp  between objects and values: shared_create_from
//                                for reservoirs, shared_reservoir_snapshot,
//                                shared_reservoir_merge and the typed sample
#pragma once

#include "reservoir/shared_reservoir.hpp"
#include "shared_objects/registry/shared_registry.hpp"

namespace sketch_pg::shared_reservoir {

constexpr uint32 kReservoir = uint32(sketch::shared::Kind::reservoir);

// shared_reservoir_create's default item_size.
constexpr int64 kDefaultItemSize = 256;

// On the geometry validated when the file was mapped (sh::Mapping::fixed).
sketch::shared_reservoir::View view_of(const shared::Entry* e);

// The object named by argument 0, opened for `need`.
shared::Entry* open_arg(FunctionCallInfo fcinfo, uint8 need);

// ---- items as bytes ----

// padded_text: char(n), stored as its cast to text gives it (trailing spaces
// dropped), whether it comes alone or in an array.
enum class Form : uint8 { raw_bytes, text_bytes, padded_text, output };

// The form of a type (a domain's: of its base type).
Form form_of(Oid typid);

struct ItemBytes {
    const char* data;
    uint32 len;
    uint32 flags;
};

// The bytes stored for a value: bytea's bytes; text's bytes (char(n)'s
// without its padding); anything else its text form. Text is cut at a
// character boundary, bytea at item_size.
ItemBytes item_bytes(Datum value, Oid typid, Form form, uint32 item_size);

// The item type as the object records it: its schema-qualified name, which
// means the same type after a dump and restore (an OID would not).
const char* item_type_name(Oid typid);

// ---- the locks ----

// The rwlock shared and the reservoir's mutex, as held.
struct Held {
    sketch::ReadTicket ticket;
    uint32 me;
};

// Locks a mutable object (refusing a frozen one), checks its state and
// replays a crashed writer's journal.
void lock_for_write(shared::Entry* e, sketch::shared_reservoir::View& v, Held* h);
void unlock_reservoir(shared::Entry* e, const sketch::shared_reservoir::View& v, const Held& h);

// ---- reads ----

// The state a reader sees, copied out: under the rwlock (shared) and the
// mutex (a frozen object needs neither). The buffer is allocated before locking; if the sample
// grew meanwhile, again with the larger size.
struct Copy {
    uint64 seen;
    uint64 count;
    uint64 stored;
    uint64 stride;
    char* slots;  // count slots of stride bytes: uint32 len, uint32 flags, bytes
    double* keys;  // weighted, with the items: the log-key of each slot
    char item_type[sizeof(sketch::shared_reservoir::Control::item_type)];  // as View::item_type
};

Copy read_state(shared::Entry* e, bool with_items);

// Item i of a copy: its stored bytes and flags.
struct Slot {
    const char* data;
    uint32 len;
    uint32 flags;
};

Slot slot_of(const Copy& c, uint64 i);

// An item's text form: text items as stored, bytea items through byteaout.
char* item_cstring(const Slot& sl);

// The items of a copy as text values (bytea items in their text form).
Datum* items_as_text(const Copy& c);

// The rows of a set-returning function: one per item.
Datum return_set(FunctionCallInfo fcinfo, const Datum* items, uint64 count);

// The seed a new object's RNG starts from until shared_reservoir_seed.
uint64 creation_seed();

}  // namespace sketch_pg::shared_reservoir
