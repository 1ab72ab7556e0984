// Inter-block fusion (seed 004): TC_BLOCKS + CD_BLOCKS blocks of max(TC_THREADS, CD_THREADS)
// threads; the first TC_BLOCKS run the predictor, the others the user kernel, each block unchanged.
#include "../../include/fusion_parts.cuh"

static_assert(TC_THREADS == CD_THREADS, "inter-block fusion here assumes equal block sizes");

extern "C" __global__ void inter_block(TC_PARAMS, CD_PARAMS, long long* clk) {
    SIMT_SITE(1);
    __shared__ TcShared s;
    __shared__ TcWarpShared ws[TC_WARPS];
    __shared__ CdShared cs;
    const long long t0 = clock64();
    if (blockIdx.x < TC_BLOCKS)             // block-uniform: __syncthreads inside is safe
        tc_units<0>(x, w1, w2, logits, pred, s, ws, blockIdx.x, TC_BLOCKS, threadIdx.x);
    else
        cd_units<0>(cd_in, cd_out, cs, blockIdx.x - TC_BLOCKS, CD_BLOCKS, threadIdx.x);
    clock_pair(clk, 0, t0);
}
