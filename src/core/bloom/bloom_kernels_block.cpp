// block<Block, K'> kernels for every block type and K' = 1..kMaxKp, and the
// classic<K> kernels with K fixed at compile time.
#define BLOOM_KERNEL_NS kernels_block
#include "bloom/bloom_dispatch.hpp"
#include "bloom/bloom_kernels.hpp"

namespace sketch {
namespace bloom {
namespace BLOOM_KERNEL_NS {
namespace {

using ClassicDriver = Driver<BlockSub<uint8_t, 1, 1>>;

template <unsigned... I>
constexpr std::array<Ops, kClassicFixedK> classic_row(std::integer_sequence<unsigned, I...>) {
    return {{ClassicDriver::ops<I + 1, 1>()...}};
}
const std::array<Ops, kClassicFixedK> kClassic = classic_row(std::make_integer_sequence<unsigned, kClassicFixedK>{});

}  // namespace
}  // namespace BLOOM_KERNEL_NS

const OpsRow& dispatch::block_row(BlockType b) {
    return BLOOM_KERNEL_NS::BlockFamilyRows<BLOOM_KERNEL_NS::BlockSub>::rows[unsigned(b)];
}

const Ops* dispatch::classic_ops(unsigned k) { return k >= 1 && k <= kClassicFixedK ? &BLOOM_KERNEL_NS::kClassic[k - 1] : nullptr; }

}  // namespace bloom
}  // namespace sketch
