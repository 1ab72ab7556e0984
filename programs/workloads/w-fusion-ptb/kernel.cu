// Persistent-threaded-block fusion (seed 000 Algorithm 2): PTB_BLOCKS blocks (2 per H100 SM) of
// CD_THREADS + TC_THREADS threads.  The CD warps loop over the user kernel's blocks
// blockIdx.x, blockIdx.x + gridDim.x, ... with a named barrier (bar.sync 1, 128); the TC warps
// convert the weights once (bar.sync 2, 128) and loop over the predictor's blocks the same way
// (ptbTCkernel: ptb = ceil(TC_BLOCKS / gridDim.x) trips).
#include "../../include/fusion_parts.cuh"

extern "C" __global__ void ptb(TC_PARAMS, CD_PARAMS, long long* clk) {
    SIMT_SITE(1);
    __shared__ TcShared s;
    __shared__ TcWarpShared ws[TC_WARPS];
    __shared__ CdShared cs;
    const long long t0 = clock64();
    if (threadIdx.x < CD_THREADS)
        cd_units<1>(cd_in, cd_out, cs, blockIdx.x, gridDim.x, threadIdx.x);
    else
        tc_units<2>(x, w1, w2, logits, pred, s, ws, blockIdx.x, gridDim.x, threadIdx.x - CD_THREADS);
    clock_pair(clk, 0, t0);
}
