// Inner-thread fusion (seed 004): every thread does the predictor's work and then the user
// kernel's, in a grid of max(TC_BLOCKS, CD_BLOCKS) blocks of max(TC_THREADS, CD_THREADS) threads.
#include "../../include/fusion_parts.cuh"

static_assert(TC_THREADS == CD_THREADS, "inner-thread fusion here assumes equal block sizes");

extern "C" __global__ void inner_thread(TC_PARAMS, CD_PARAMS, long long* clk) {
    SIMT_SITE(1);
    __shared__ TcShared s;
    __shared__ TcWarpShared ws[TC_WARPS];
    __shared__ CdShared cs;
    const long long t0 = clock64();
    if (blockIdx.x < TC_BLOCKS)             // block-uniform: __syncthreads inside is safe
        tc_units<0>(x, w1, w2, logits, pred, s, ws, blockIdx.x, TC_BLOCKS, threadIdx.x);
    if (blockIdx.x < CD_BLOCKS)
        cd_units<0>(cd_in, cd_out, cs, blockIdx.x, CD_BLOCKS, threadIdx.x);
    clock_pair(clk, 0, t0);
}
