// t-diverge-w*: t-diverge's loop (64 iterations of an if/else on lane < split, 8 dependent FFMAs
// a side, run converged with split 32, then divergent with split 16) with every warp of a larger
// block running it at once: what several warps per sub-partition add to an iteration's BSSY /
// BSYNC and branches (Nsight Compute shows warps waiting branch_resolving after a BSYNC in the
// workload kernels).  Lane 0 of warp w records clk[4 * w + k] = [converged start, end,
// divergent start, end].
#pragma once
#include "simt_trace.cuh"

__device__ __forceinline__ float side(float v, float a, float b) {
#pragma unroll
    for (int k = 0; k < 8; k++) v = fmaf(v, a, b);
    return v;
}

__device__ __forceinline__ float run(int split, float x, float y, float a, float b, long long* t) {
    unsigned lane = threadIdx.x & 31u;
    t[0] = clock64();
#pragma unroll 1
    for (int i = 0; i < 64; i++) {
        if ((int)lane < split) x = side(x, a, b);
        else y = side(y, b, a);
    }
    t[1] = clock64();
    return x + y;
}

extern "C" __global__ void diverge_warps(const float* in, float* res, long long* clk, float a, float b,
                                         int converged, int divergent) {
    SIMT_SITE(1);                                   // entry
    float x = in[threadIdx.x], y = x + 1.0f;
    long long t[4];
    float r1 = run(converged, x, y, a, b, t);
    float r2 = run(divergent, x, y, a, b, t + 2);
    res[threadIdx.x] = r1 + r2;
    if ((threadIdx.x & 31) == 0)
        for (int k = 0; k < 4; k++) clk[4 * (threadIdx.x >> 5) + k] = t[k];
    SIMT_SITE(2);                                   // exit
}
