// multiblock<Block, K'> kernels for every block type and K' = 1..kMaxKp.
#define BLOOM_KERNEL_NS kernels_multiblock
#include "bloom_dispatch.hpp"
#include "bloom_kernels.hpp"

namespace sketch {
namespace bloom {
namespace BLOOM_KERNEL_NS {
namespace {

template <typename W, unsigned NW>
struct Family {
    template <unsigned KP>
    struct Make {
        using type = Driver<MultiblockSub<W, NW, KP>>;
    };
};
using Seq = std::make_integer_sequence<unsigned, kMaxKp>;

const OpsRow kRows[kBlockTypes] = {
    make_row<Family<uint8_t, 1>::Make>(Seq{}),  make_row<Family<uint16_t, 1>::Make>(Seq{}),
    make_row<Family<uint32_t, 1>::Make>(Seq{}), make_row<Family<uint64_t, 1>::Make>(Seq{}),
    make_row<Family<uint64_t, 2>::Make>(Seq{}), make_row<Family<uint64_t, 4>::Make>(Seq{}),
    make_row<Family<uint64_t, 8>::Make>(Seq{}),
};

}  // namespace
}  // namespace BLOOM_KERNEL_NS

const OpsRow& dispatch::multiblock_row(BlockType b) { return BLOOM_KERNEL_NS::kRows[unsigned(b)]; }

}  // namespace bloom
}  // namespace sketch
