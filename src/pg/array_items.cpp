#include "array_items.hpp"

extern "C" {
#include "catalog/pg_type_d.h"
}

namespace sketch_pg {

AnswerArray::AnswerArray(ArrayType* items) {
    const int ndim = ARR_NDIM(items);
    const int n = ArrayGetNItems(ndim, ARR_DIMS(items));
    const bool with_nulls = ARR_HASNULL(items);
    const size_t overhead = with_nulls ? ARR_OVERHEAD_WITHNULLS(ndim, n) : ARR_OVERHEAD_NONULLS(ndim);
    // One byte per answer at most (a NULL takes none): finish() sets the size.
    result_ = static_cast<ArrayType*>(palloc0(overhead + size_t(n)));
    SET_VARSIZE(result_, overhead + size_t(n));
    result_->ndim = ndim;
    result_->dataoffset = with_nulls ? int32(overhead) : 0;
    result_->elemtype = BOOLOID;
    memcpy(ARR_DIMS(result_), ARR_DIMS(items), sizeof(int) * size_t(ndim));
    memcpy(ARR_LBOUND(result_), ARR_LBOUND(items), sizeof(int) * size_t(ndim));
    nulls_ = ARR_NULLBITMAP(result_);
}

void AnswerArray::put(bool answer) {
    if (nulls_ != nullptr) nulls_[next_ / 8] |= bits8(1 << (next_ % 8));
    ARR_DATA_PTR(result_)[used_++] = char(answer);
    ++next_;
}

void AnswerArray::put_null() { ++next_; }

ArrayType* AnswerArray::finish() {
    SET_VARSIZE(result_, ARR_DATA_OFFSET(result_) + used_);
    return result_;
}

}  // namespace sketch_pg
