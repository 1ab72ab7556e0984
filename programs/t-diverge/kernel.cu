#include "../include/simt_trace.cuh"

// t-diverge: the cost of a divergent if/else (BSSY, the two sides one after the other, BSYNC)
// against the same code run converged.  One warp runs the same loop twice: 64 iterations of
// `if (lane < split) 8 dependent FFMAs on x else 8 on y`, first with split = 32 (every lane on one
// side: converged), then with split = 16 (half and half: both sides run).  clk = [converged
// start, end, divergent start, end]; per-iteration cost = span / 64.
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

extern "C" __global__ void diverge(const float* in, float* res, long long* clk, float a, float b,
                                   int converged, int divergent) {
    SIMT_SITE(1);                                   // entry
    float x = in[threadIdx.x], y = x + 1.0f;
    long long t[4];
    float r1 = run(converged, x, y, a, b, t);
    float r2 = run(divergent, x, y, a, b, t + 2);
    res[threadIdx.x] = r1 + r2;
    if (threadIdx.x == 0)
        for (int k = 0; k < 4; k++) clk[k] = t[k];
    SIMT_SITE(2);                                   // exit
}
