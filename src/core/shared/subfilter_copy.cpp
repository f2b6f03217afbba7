#include "shared/subfilter_copy.hpp"

namespace sketch::shared {

SubfilterCopy SubfilterCopy::of_bloom(const bloom::Geometry& g) {
    SubfilterCopy c;
    c.bytes_ = g.bytes + bloom::kTailPad;
    c.bloom_ = g;
    c.ops_ = &bloom::ops_for(g.layout, bloom::Path::best);
    c.span_ = bloom::span_for(g, nullptr);
    return c;
}

SubfilterCopy SubfilterCopy::of_cbf(const cbf::Geometry& g) {
    SubfilterCopy c;
    c.counting_ = true;
    c.bytes_ = g.counter_bytes();
    c.cbf_ = g;
    return c;
}

void SubfilterCopy::add(uint8_t* copy, const Hash128& h) const {
    if (counting_)
        cbf::add(cbf_, copy, h);
    else
        ops_->add_one(span(copy), h);
}

bool SubfilterCopy::contains(const uint8_t* copy, const Hash128& h) const {
    return counting_ ? cbf::contains(cbf_, copy, h) : ops_->contains_one(span(copy), h);
}

void SubfilterCopy::prefetch(const uint8_t* copy, const Hash128& h) const {
    if (counting_)
        cbf::prefetch(cbf_, copy, h);
    else
        ops_->prefetch_one(span(copy), h);
}

void SubfilterCopy::merge_into(uint8_t* into, const uint8_t* copy) const {
    if (counting_)
        cbf::merge_atomic(cbf_, into, copy);
    else
        bloom::union_into_atomic(into, copy, bloom_.bytes);
}

}  // namespace sketch::shared
