// t-fp64-issue-*: what an instruction for a half-rate pipe costs a busy scheduler's issue.  One block
// of 1024 threads (8 warps on each sub-partition, so issue is the bottleneck) runs T_ITERS
// iterations of 8 multiplies on independent chains per thread:
//   T_FP64 of them FP64 (DMUL), the rest FP32 (FMUL; two FMA pipes, one FMUL per cycle);
//   T_IMAD = 1: one FP32 chain replaced by an integer one (IMAD, on the FMA-heavy pipe only);
//   T_CVT = 1: after the FP32 chains, one FP64 multiply by the last FP32 chain's value
//              (F2F.F64.F32 then DMUL, as a dependent mixed loop does);
//   T_CVT = 2: the first FP32 chain goes through FP64 each iteration, x = (float)((double)x * md)
//              (F2F.F64.F32, DMUL, F2F.F32.F64 dependent: the conversions' latencies);
//   T_FP32:    the number of FP32 chains when not 8 - T_FP64 - T_IMAD (t-fmul*: where the IMAD
//              falls after the FMULs);
//   T_UNROLL = 2: two iterations per trip of the loop (one loop branch per 16 multiplies);
//   T_VREG = 1: the FP64 factor in a vector register pair (DMUL R, R, R), not a uniform one.
// Lane 0 of warp w records clk[2w] before the loop and clk[2w + 1] after it (a barrier first, so
// every warp starts together).  out32 / out64: each thread's chains summed.
#pragma once
#include "simt_trace.cuh"

#ifndef T_FP64
#define T_FP64 0
#endif
#ifndef T_IMAD
#define T_IMAD 0
#endif
#ifndef T_CVT
#define T_CVT 0
#endif
#ifndef T_UNROLL
#define T_UNROLL 1
#endif
#ifndef T_VREG
#define T_VREG 0
#endif
#ifndef T_FP32
#define T_FP32 (8 - T_FP64 - T_IMAD)
#endif

extern "C" __global__ void fp64_issue(const float* in, float* out32, double* out64, long long* clk,
                                      float m, double md, unsigned mi, int iters) {
    SIMT_SITE(1);                                   // entry
    int t = threadIdx.x;
    float v = in[t];
    float x[T_FP32];
#pragma unroll
    for (int k = 0; k < T_FP32; k++) x[k] = v + (float)k * 0.0009765625f;
    double d[T_FP64 + T_CVT + 1];
#pragma unroll
    for (int k = 0; k <= T_FP64 + T_CVT; k++) d[k] = (double)v + k;
    unsigned u = (unsigned)t;
#if T_VREG
    md += (double)v * 0.0;                          // per thread as far as ptxas knows (x * 0.0 is not folded)
#endif
    __syncthreads();
    long long t0 = clock64();
#pragma unroll 1
    for (int i = 0; i < iters; i += T_UNROLL) {
#pragma unroll
        for (int j = 0; j < T_UNROLL; j++) {
#pragma unroll
            for (int k = 0; k < T_FP64; k++) d[k] *= md;
#pragma unroll
            for (int k = 0; k < T_FP32; k++) x[k] *= m;
#if T_IMAD
            u = u * mi + 1u;
#endif
#if T_CVT == 1
            d[T_FP64] *= (double)x[T_FP32 - 1];
#elif T_CVT == 2
            x[0] = (float)((double)x[0] * md);
#endif
        }
    }
    long long t1 = clock64();
    float s = (float)u;
#pragma unroll
    for (int k = 0; k < T_FP32; k++) s += x[k];
    double sd = 0.0;
#pragma unroll
    for (int k = 0; k <= T_FP64 + T_CVT; k++) sd += d[k];
    out32[t] = s;
    out64[t] = sd;
    if ((t & 31) == 0) {
        clk[2 * (t >> 5)] = t0;
        clk[2 * (t >> 5) + 1] = t1;
    }
    SIMT_SITE(2);                                   // exit
}
