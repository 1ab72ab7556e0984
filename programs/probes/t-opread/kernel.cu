#include "../../include/simt_trace.cuh"

// t-opread: how long a store holds its source register.  One warp runs a chain of 64 steps, each
// storing x to shared memory (STS reads x at some point after issue) and then overwriting x with
// x * a + b: ptxas keeps x in one register, so each FFMA waits on the store's read barrier (a
// write-after-read wait) as well as on the previous FFMA.  The same chain without the stores
// (pass 1) times the FFMAs alone; the difference per step is what the store's operand read adds.
// Two rounds, the second warm; clk[4 * round + 0..3]: start, after the stores' chain, start, after
// the plain chain.
#define STEPS 64

extern "C" __global__ void opread(float* out, long long* clk, float a, float b) {
    SIMT_SITE(1);                                   // entry
    __shared__ float sh[STEPS * 32];
    int i = threadIdx.x;
    float x = (float)i, y = (float)i + 0.5f;
    long long t[2][4];
#pragma unroll
    for (int round = 0; round < 2; round++) {
        t[round][0] = clock64();
#pragma unroll 1
        for (int k = 0; k < STEPS; k++) {
            sh[32 * k + i] = x;
            x = x * a + b;
        }
        t[round][1] = clock64();
        t[round][2] = clock64();
#pragma unroll 1
        for (int k = 0; k < STEPS; k++) y = y * a + b;
        t[round][3] = clock64();
    }
    __syncwarp();
    float s = 0.0f;
    for (int k = 0; k < STEPS; k++) s += sh[32 * k + ((i + k) & 31)];
    out[i] = x + y + s;
    if (i == 0) {
#pragma unroll
        for (int round = 0; round < 2; round++)
#pragma unroll
            for (int j = 0; j < 4; j++) clk[4 * round + j] = t[round][j];
    }
    SIMT_SITE(2);                                   // exit
}
