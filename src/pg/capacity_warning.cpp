#include "capacity_warning.hpp"

#include "pg_compat.hpp"

extern "C" {
#include "access/xact.h"
}

namespace sketch_pg {

void warn_past_capacity(CapacityMemo* memo, const CapacityCheck& c) {
    if (!sketch::past_capacity(c.after, c.capacity, c.fpr)) return;
    if (memo != nullptr) {
        const LocalTransactionId lxid = compat::local_xid();
        const TimestampTz statement = GetCurrentStatementStartTimestamp();
        if (c.was_past && memo->lxid == lxid && memo->statement == statement) return;
        memo->lxid = lxid;
        memo->statement = statement;
    }
    const char* verb = memo == nullptr ? "built" : c.was_past ? "added to" : "took";
    ereport(WARNING,
            (errmsg("%s %s %s past its capacity: about %.0f distinct items for a capacity of %llu", c.function, verb,
                    c.structure, c.after.count, (unsigned long long)c.capacity),
             errdetail("Its false-positive rate is about %.3g, above the %g it was sized for.", c.after.fpr, c.fpr),
             errhint("%s", c.hint)));
}

}  // namespace sketch_pg
