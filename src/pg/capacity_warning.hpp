// The WARNING of an add that takes a filter value (bloom, cbf) past its
// capacity (fill_estimate.hpp's rule), once per value per statement.
#pragma once

#include "fill_estimate.hpp"
#include "pg.hpp"

extern "C" {
#include "datatype/timestamp.h"
}

namespace sketch_pg {

// The statement in which a function last warned (per backend, one per
// function). A statement is known by its transaction and its
// statement_timestamp(), which each message of the client's sets.
struct CapacityMemo {
    LocalTransactionId lxid;
    TimestampTz statement;
};

// What an add changed, with the filter's sizing, for the warning to name.
struct CapacityCheck {
    const char* function;       // the SQL function that added (or the aggregate that built)
    const char* structure;      // "a counting Bloom filter", "a Bloom filter"
    const char* hint;
    sketch::FillEstimate after;  // the value's fill once the add is done
    bool was_past;              // the value was past its capacity before the add
    uint64 capacity;
    double fpr;
};

// Raises the WARNING (SQLSTATE 01000) when the add left the value past its
// capacity: always when the add took it there (a value passes its
// capacity once), and for a value already past it only when the function
// has not warned yet in this statement (so a loop of adds to one value
// warns once; several values already past it in one statement warn once
// between them). An aggregate's final function passes no memo: it built
// the value, and warns for each one it built past its capacity.
void warn_past_capacity(CapacityMemo* memo, const CapacityCheck& c);

}  // namespace sketch_pg
