// The two unfused kernels of the fusion workloads: the predictor (tensor cores) and the user kernel
// (CUDA cores), as the programmer wrote them.  w-fusion-tc-only, -cd-only, -serial and -streams
// share this code and differ only in their launches (manifest.yaml).
#pragma once
#include "fusion_parts.cuh"

// grid TC_BLOCKS, block TC_THREADS; clk pairs at clk[2 * (clk_first + block)]
extern "C" __global__ void tc_kernel(TC_PARAMS, long long* clk, int clk_first) {
    SIMT_SITE(1);
    __shared__ TcShared s;
    __shared__ TcWarpShared ws[TC_WARPS];
    const long long t0 = clock64();
    tc_units<0>(x, w1, w2, logits, pred, s, ws, blockIdx.x, TC_BLOCKS, threadIdx.x);
    clock_pair(clk, clk_first, t0);
}

// grid CD_BLOCKS, block CD_THREADS
extern "C" __global__ void cd_kernel(CD_PARAMS, long long* clk, int clk_first) {
    SIMT_SITE(1);
    __shared__ CdShared s;
    const long long t0 = clock64();
    cd_units<0>(cd_in, cd_out, s, blockIdx.x, CD_BLOCKS, threadIdx.x);
    clock_pair(clk, clk_first, t0);
}
