// The items of an array argument (the bulk forms: *_add_many,
// *_contains_many): its elements in storage order, whatever its shape, read
// one at a time (an array of a gigabyte is never copied into a Datum array),
// and the boolean array of a lookup's answers in the same shape.
#pragma once

#include "pg.hpp"

extern "C" {
#include "miscadmin.h"
#include "utils/array.h"
}

namespace sketch_pg {

// Calls item(Datum) for each non-NULL element; checks for interrupts now and
// then (item must own nothing a longjmp would leak).
template <typename Item>
void for_each_item(ArrayType* items, Item item) {
    ArrayIterator it = array_create_iterator(items, 0, nullptr);
    Datum value;
    bool isnull;
    for (uint32 i = 1; array_iterate(it, &value, &isnull); ++i) {
        if ((i & 0xffff) == 0) CHECK_FOR_INTERRUPTS();
        if (!isnull) item(value);
    }
    array_free_iterator(it);
}

// A boolean array of the shape of `items`, filled in element order.
class AnswerArray {
public:
    explicit AnswerArray(ArrayType* items);
    void put(bool answer);
    void put_null();
    ArrayType* finish();

private:
    ArrayType* result_;
    bits8* nulls_;  // nullptr: items has no NULLs
    uint32 next_ = 0;
    uint32 used_ = 0;
};

// answer(Datum) for each element of items, NULL for each NULL one, in an
// array of the same shape.
template <typename Answer>
ArrayType* answers_for(ArrayType* items, Answer answer) {
    AnswerArray out(items);
    ArrayIterator it = array_create_iterator(items, 0, nullptr);
    Datum value;
    bool isnull;
    for (uint32 i = 1; array_iterate(it, &value, &isnull); ++i) {
        if ((i & 0xffff) == 0) CHECK_FOR_INTERRUPTS();
        if (isnull)
            out.put_null();
        else
            out.put(answer(value));
    }
    array_free_iterator(it);
    return out.finish();
}

}  // namespace sketch_pg
