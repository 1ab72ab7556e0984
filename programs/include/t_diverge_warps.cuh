// t-diverge-w*: t-diverge's loop (64 iterations of an if/else on lane < split, 8 dependent FFMAs
// a side, run converged with split 32, then divergent with split 16) with every warp of a larger
// block running it at once: what several warps per sub-partition add to an iteration's BSSY /
// BSYNC and branches (Nsight Compute shows warps waiting branch_resolving after a BSYNC in the
// workload kernels).  Lane 0 of warp w records clk[4 * w + k] = [converged start, end,
// divergent start, end].
#pragma once
#include "simt_trace.cuh"
#include "t_diverge.cuh"

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
