// Seed 002, warp specialisation (programs/workloads/w-warpspec-*): in a 1024-thread block the first
// `fp64_warps` warps do their work in FP64, the others the same work in FP32.
//
// Every warp does `iters` iterations of 8 dependent multiplies on one chain per thread (the paper's
// `a *= ...` / `b *= ...` loops): FP64 warps d *= md, FP32 warps x *= m.  The paper read the
// multiplier from shared memory; here it is a kernel argument, so that the FP32 and FP64 pipes,
// not shared-memory loads, are what the variants compare.  On an H100 warp w runs on sub-partition
// w % 4, so 4 FP64 warps put one on each SMSP beside 7 FP32 warps (the paper's 7:1 layout).
// Outputs: out32[t] = x (0 in FP64 warps), out64[t] = d (0 in FP32 warps).
// Thread 0 records the block's span: clk[2 * block] = start, clk[2 * block + 1] = after the block's
// last warp has finished (a barrier).
#pragma once
#include "simt_trace.cuh"

#define WS_STEPS 8     // multiplies per iteration

extern "C" __global__ void warp_specialised(const float* in, float* out32, double* out64, long long* clk,
                                            float m, double md, int iters, int fp64_warps) {
    SIMT_SITE(1);                                   // entry
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float x = 0.0f;
    double d = 0.0;
    long long t0 = clock64();
    if ((int)(threadIdx.x >> 5) < fp64_warps) {
        SIMT_SITE(2);                               // an FP64 warp
        d = (double)in[t];
#pragma unroll 1
        for (int i = 0; i < iters; i++) {
#pragma unroll
            for (int k = 0; k < WS_STEPS; k++)
                d *= md;
        }
    } else {
        SIMT_SITE(3);                               // an FP32 warp
        x = in[t];
#pragma unroll 1
        for (int i = 0; i < iters; i++) {
#pragma unroll
            for (int k = 0; k < WS_STEPS; k++)
                x *= m;
        }
    }
    out32[t] = x;
    out64[t] = d;
    __syncthreads();                                // the block's span ends with its last warp
    if (threadIdx.x == 0) {
        clk[2 * blockIdx.x] = t0;
        clk[2 * blockIdx.x + 1] = clock64();
    }
}
