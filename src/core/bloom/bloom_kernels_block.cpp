// block<Block, K'> kernels for every block type and K' = 1..kMaxKp.
#define BLOOM_KERNEL_NS kernels_block
#include "bloom/bloom_dispatch.hpp"
#include "bloom/bloom_kernels.hpp"

namespace sketch {
namespace bloom {

const OpsRow& dispatch::block_row(BlockType b) {
    return BLOOM_KERNEL_NS::BlockFamilyRows<BLOOM_KERNEL_NS::BlockSub>::rows[unsigned(b)];
}

}  // namespace bloom
}  // namespace sketch
