// Inner-block fusion (seed 004; seed 000 Algorithm 2 without the persistent loop): a block of
// CD_THREADS + TC_THREADS threads; warps [0, CD_THREADS / 32) run the user kernel, the rest the
// predictor.  Each part synchronises only its own threads with a named barrier (bar.sync 1, 128 and
// bar.sync 2, 128), so neither waits for the other.  Grid: max(TC_BLOCKS, CD_BLOCKS).
#include "../../include/fusion_parts.cuh"

extern "C" __global__ void inner_block(TC_PARAMS, CD_PARAMS, long long* clk) {
    SIMT_SITE(1);
    __shared__ TcShared s;
    __shared__ TcWarpShared ws[TC_WARPS];
    __shared__ CdShared cs;
    const long long t0 = clock64();
    if (threadIdx.x < CD_THREADS) {
        if (blockIdx.x < CD_BLOCKS)
            cd_units<1>(cd_in, cd_out, cs, blockIdx.x, CD_BLOCKS, threadIdx.x);
    } else if (blockIdx.x < TC_BLOCKS) {
        tc_units<2>(x, w1, w2, logits, pred, s, ws, blockIdx.x, TC_BLOCKS, threadIdx.x - CD_THREADS);
    }
    clock_pair(clk, 0, t0);
}
