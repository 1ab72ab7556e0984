// Seed 003 (software pipelining / C-slow retiming): N independent second-order recurrence filters
// (biquads, direct form I), M steps each, on data in global memory:
//
//   y[t] = b0*x[t] + b1*x[t-1] + b2*x[t-2] - a2*y[t-2] - a1*y[t-1]      (x[-1] = x[-2] = y[-1] = y[-2] = 0)
//
// x and y are time-major, [M][N]: sample t of filter f is at t*N + f, so the lanes of a warp read
// and write consecutive words at every step.  Every multiply and add is rounded on its own
// (__fmul_rn / __fadd_rn: no FMA contraction), in the order written, so a numpy float32
// reference is bit-exact.  The loop-carried chain is y[t-1] -> (a1*y[t-1]) -> subtract: one FMUL
// and one FADD per step (8 cycles on an H100), as in the paper's Figure 5 (a multiply and an add
// in the cycle); everything else in a step is off the chain.
//
// C-slow retiming (the paper's Figure 7): with IIR_C = C, each thread runs C filters, f, f + B,
// ..., f + (C-1)*B (B = blockDim.x, so every access stays coalesced), interleaving their steps:
// C independent chains in flight per thread.  The launch uses C times fewer threads for the same
// N filters, M steps: the same work.  Block b covers filters [b*B*C, (b+1)*B*C).
//
// clk[2*b], clk[2*b+1]: clock64() at the start and end of block b (thread 0, after a barrier so the
// end is the block's last warp).
#pragma once
#include "simt_trace.cuh"

#ifndef IIR_C
#error "define IIR_C (filters per thread) before including seed003_iir.cuh"
#endif

extern "C" __global__ void iir_cslow(const float* __restrict__ x, float* __restrict__ y, long long* clk,
                                     int n, int m, float b0, float b1, float b2,
                                     float a1, float a2) {
    SIMT_SITE(1);                                   // entry
    __syncthreads();
    long long t0 = clock64();
    const int first = blockIdx.x * blockDim.x * IIR_C + threadIdx.x;
    float x1[IIR_C], x2[IIR_C], y1[IIR_C], y2[IIR_C];
#pragma unroll
    for (int c = 0; c < IIR_C; c++) {
        x1[c] = 0.0f; x2[c] = 0.0f; y1[c] = 0.0f; y2[c] = 0.0f;
    }
#pragma unroll 2
    for (int t = 0; t < m; t++) {
        const float* xt = x + (long long)t * n + first;
        float* yt = y + (long long)t * n + first;
#pragma unroll
        for (int c = 0; c < IIR_C; c++) {
            float x0 = xt[c * blockDim.x];
            float ff = __fadd_rn(__fadd_rn(__fmul_rn(b0, x0), __fmul_rn(b1, x1[c])), __fmul_rn(b2, x2[c]));
            float y0 = __fsub_rn(__fsub_rn(ff, __fmul_rn(a2, y2[c])), __fmul_rn(a1, y1[c]));
            yt[c * blockDim.x] = y0;
            x2[c] = x1[c]; x1[c] = x0;
            y2[c] = y1[c]; y1[c] = y0;
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        SIMT_SITE(2);                               // thread 0 records the block span
        clk[2 * blockIdx.x] = t0;
        clk[2 * blockIdx.x + 1] = clock64();
    }
}
