// One formula of bloom_formulas.cpp that the counting filter's block layout
// needs too (cbf_block.cpp), apart from bloom.hpp so that its users do not
// depend on it.
#pragma once

namespace sketch {
namespace bloom {

// The rate of a block layout with one subarray of b bits per item at the
// natural stride (m / b positions), the K' draws' coincidences counted
// exactly (kp <= 16: the inclusion-exclusion's coefficients stay small).
// fpr_for does this for blocks of up to 64 bits; the counting filter's block
// layout (128 counters a line, cbf_block.hpp) uses it for its lines.
double block_fpr_distinct_draws(double n, double m_bits, double b, unsigned kp);

}  // namespace bloom
}  // namespace sketch
