// Seed 002, ILP: FP32 vs FP32 + FP64 instruction-level parallelism (programs/workloads/w-ilp-*).
//
// Every thread runs `iters` iterations; each iteration does ILP_N multiplies on independent chains:
//   ILP_FP32       ILP_N FP32 chains (x[k] *= m);
//   ILP_MIXED      one FP64 chain (d *= md, independent of the FP32 work) + ILP_N - 1 FP32 chains;
//   ILP_DEPENDENT  ILP_N - 1 FP32 chains, then one FP64 multiply that consumes this iteration's last
//                  FP32 result (d *= (double)x[ILP_N - 1]): the FP64 unit waits for the FP32 one.
// The paper (seed 002) kept the multiplier in shared memory; here it is a kernel argument, so that
// the arithmetic pipes, not shared-memory loads, are what the variants compare.
// Outputs: out32[t] = x[first] + ... + x[ILP_N - 1] (left to right), out64[t] = d (FP32: the input).
// Thread 0 records the block's span: clk[2 * block] = start, clk[2 * block + 1] = after the block's
// last warp has finished (a barrier).
#pragma once
#include "simt_trace.cuh"

#define ILP_FP32 0
#define ILP_MIXED 1
#define ILP_DEPENDENT 2

#if !defined(ILP_N) || !defined(ILP_MODE)
#error "define ILP_N and ILP_MODE before including w_ilp.cuh"
#endif

// The mixed and dependent forms give the first chain's slot to the FP64 multiply.
#define ILP_FIRST ((ILP_MODE == ILP_FP32) ? 0 : 1)

extern "C" __global__ void ilp_loop(const float* in, float* out32, double* out64, long long* clk,
                                    float m, double md, int iters) {
    SIMT_SITE(1);                                   // entry
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[t];
    float x[ILP_N];
#pragma unroll
    for (int k = 0; k < ILP_N; k++)
        x[k] = v + (float)k * 0.0009765625f;        // chains start near the input (2^-10 apart)
    double d = (double)v;
    long long t0 = clock64();
#pragma unroll 1
    for (int i = 0; i < iters; i++) {
#if ILP_MODE == ILP_MIXED
        d *= md;                                    // first in the iteration, as in the paper
#endif
#pragma unroll
        for (int k = ILP_FIRST; k < ILP_N; k++)
            x[k] *= m;
#if ILP_MODE == ILP_DEPENDENT
        d *= (double)x[ILP_N - 1];
#endif
    }
    float s = x[ILP_FIRST];
#pragma unroll
    for (int k = ILP_FIRST + 1; k < ILP_N; k++)
        s += x[k];
    out32[t] = s;
    out64[t] = d;
    __syncthreads();                                // the block's span ends with its last warp
    if (threadIdx.x == 0) {
        clk[2 * blockIdx.x] = t0;
        clk[2 * blockIdx.x + 1] = clock64();
    }
}
