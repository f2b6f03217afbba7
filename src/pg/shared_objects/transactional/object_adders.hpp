// The adders of an object and the closers that wait for them (internal to
// the transactional adds: transactional_adds.cpp, object_adders.cpp).
//
// A transaction with pending adds to an object is its adder from its first
// add; a freeze or a drop of the object is a closer, which waits for the
// adders (their commits must find the object mutable and its file in place)
// and holds new ones off until it ends. Adders should not all meet in one
// lock: a heavyweight lock every adder of an object takes is one tag, whose
// lock-manager partition every add of every backend would pass through.
//
// So an adder enters by its slot in the object's header (sketch::shared's
// enter_adder): its local transaction id in the slot of its process number,
// then a look at the header's count of closers. A closer counts itself in,
// then reads every slot and waits for each transaction named there
// (VirtualXactLock: a lock wait, with deadlock detection, lock_timeout and
// cancel), then takes the object's lock (LockClass::object) in
// share mode to the end of its transaction. An adder that sees a closer
// counted, or whose process number is past the slots, takes that lock
// row-exclusive instead, and so waits for the closers there. The adder
// empties its slot when its transaction ends, or the subtransaction that
// entered rolls back (with all its adds to the object); the closer counts
// itself out after PostgreSQL let go of its locks (or when the
// subtransaction that counted rolls back). Either side may find a slot
// another transaction of the same process left (a killed backend's: the
// new server run clears them): waiting on an ended transaction's id returns
// at once.
#pragma once

#include "shared_objects/transactional/transactional_adds.hpp"

namespace sketch_pg {
namespace shared {

struct PendingObject;

// Enters the current transaction as an adder of the object, once per
// transaction (and subtransaction that rolls back); then raises 55006 or
// 55000 when a closer won the race (the object was dropped or frozen).
void enter_object(PendingObject& po);
// At the end of the transaction, or of the subtransaction that entered:
// empties the process's slot in the object (already empty if it entered by
// the lock), if the process still maps the file it entered. Never raises.
void leave_object(const PendingObject& po);

}  // namespace shared
}  // namespace sketch_pg
