// The loop t-diverge and t-diverge-w* time: 64 iterations of `if (lane < split) 8 dependent FFMAs
// on x else 8 on y` between two clock reads (t[0] start, t[1] end).
#pragma once

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
