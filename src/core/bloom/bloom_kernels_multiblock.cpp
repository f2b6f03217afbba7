// multiblock<Block, K'> kernels for every block type and K' = 1..kMaxKp.
#define BLOOM_KERNEL_NS kernels_multiblock
#include "bloom/bloom_dispatch.hpp"
#include "bloom/bloom_kernels.hpp"

namespace sketch {
namespace bloom {

const OpsRow& dispatch::multiblock_row(BlockType b) {
    return BLOOM_KERNEL_NS::BlockFamilyRows<BLOOM_KERNEL_NS::MultiblockSub>::rows[unsigned(b)];
}

}  // namespace bloom
}  // namespace sketch
