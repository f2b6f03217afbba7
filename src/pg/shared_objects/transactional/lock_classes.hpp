// The heavyweight locks of the transactional adds: advisory lock tags with
// classes of their own (pg_advisory_lock uses 1 and 2), so that they never
// meet a user's advisory locks. pg_locks shows them as locktype 'advisory',
// the class as objsubid.
#pragma once

#include "pg.hpp"

extern "C" {
#include "miscadmin.h"
#include "storage/lock.h"
}

namespace sketch_pg {
namespace shared {

enum class LockClass : uint16 {
    // An item's key, (object, item): held exclusively by the transaction
    // whose pending add of a new item it is (transactional_adds.hpp).
    key = 21320,
    // An object's adders and closers: row-exclusive by an adder that enters
    // while a closer is counted, share by a closer (object_adders.hpp).
    object = 21327,
    // An object's overflowing transaction, which adds without key locks:
    // held exclusively by it (transactional_adds.hpp).
    overflow = 21334,
};

// The tag of lock class c on the 64-bit id (an item key, or a file id) in
// this database.
inline void set_lock_tag(LOCKTAG* tag, uint64 id, LockClass c) {
    SET_LOCKTAG_ADVISORY(*tag, MyDatabaseId, uint32(id >> 32), uint32(id), uint16(c));
}

// Whether a lock of the lock manager's status data is one of class c in
// this database.
inline bool is_lock_of(const LOCKTAG& tag, LockClass c) {
    return tag.locktag_type == LOCKTAG_ADVISORY && tag.locktag_field4 == uint16(c) &&
           tag.locktag_field1 == MyDatabaseId;
}

// The 64-bit id a tag of set_lock_tag carries.
inline uint64 lock_tag_id(const LOCKTAG& tag) { return (uint64(tag.locktag_field2) << 32) | tag.locktag_field3; }

}  // namespace shared
}  // namespace sketch_pg
