// Internal: the kernel tables each translation unit contributes (one TU per
// family keeps the build parallel and the AVX2 code in its own TU).
#pragma once

#include "bloom/bloom.hpp"

namespace sketch {
namespace bloom {
namespace dispatch {

const OpsRow& block_row(BlockType b);       // bloom_kernels_block.cpp
const Ops* classic_ops(unsigned k);         // bloom_kernels_block.cpp: classic<k>, null past kClassicFixedK
const OpsRow& multiblock_row(BlockType b);  // bloom_kernels_multiblock.cpp
const OpsRow& fast_row(Kind kind, Path p);  // bloom_kernels_fast.cpp: scalar, sse2 (fast_multiblock32)
const OpsRow* avx2_row(Kind kind);          // bloom_avx2.cpp: null if not built for x86-64
const Ops& cbf_ops();                       // bloom.cpp

}  // namespace dispatch
}  // namespace bloom
}  // namespace sketch
