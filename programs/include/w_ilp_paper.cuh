// Seed 002, ILP in the paper's own form (programs/workloads/w-ilp-paper-*): the A100 kernel of the report,
// test_speed in Experiments/fp32_fp64.cu, with its loop unchanged:
//   FP32 only:  for j < n:      b *= sdata[(i + j) % 32];
//   mixed:      a *= sdata[i % 32];  for j < n - 1: b *= sdata[(i + j) % 32];
// one dependent FP32 chain (b) per thread, one independent FP64 chain (a, a double multiplied by a
// float), every factor loaded from shared memory.  Differences from the report, none in the loop:
// a and b start at 1 (the report starts them at 0, so every product is 0), sdata holds the input
// `values` instead of 1.0f, the loop runs `iters` times instead of 10^6, and each thread writes its
// own out[t] = (float)(a + b).  programs/include/w_ilp.cuh is the register-operand, independent-
// chain form of the same experiment.
// Thread 0 records the block's span: clk[2 * block] = start, clk[2 * block + 1] = after the block's
// last warp has finished (a barrier).
#pragma once
#include "simt_trace.cuh"

#if !defined(ILP_N) || !defined(PAPER_MIXED)
#error "define ILP_N and PAPER_MIXED before including w_ilp_paper.cuh"
#endif

extern "C" __global__ void ilp_paper(const float* values, float* out, long long* clk, int iters) {
    SIMT_SITE(1);                                   // entry
    double a = 1.0;
    float b = 1.0f;
    __shared__ float sdata[32];
    if (threadIdx.x < 32)
        sdata[threadIdx.x] = values[threadIdx.x];
    __syncthreads();
    long long t0 = clock64();
    for (int i = 0; i < iters; i++) {
#if PAPER_MIXED
        a *= sdata[i % 32];
        for (int j = 0; j < ILP_N - 1; j++)
            b *= sdata[(i + j) % 32];
#else
        for (int j = 0; j < ILP_N; j++)
            b *= sdata[(i + j) % 32];
#endif
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = (float)(a + b);
    __syncthreads();                                // the block's span ends with its last warp
    if (threadIdx.x == 0) {
        clk[2 * blockIdx.x] = t0;
        clk[2 * blockIdx.x + 1] = clock64();
    }
}
