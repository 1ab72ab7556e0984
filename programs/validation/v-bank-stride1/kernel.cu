#include "../../include/simt_trace.cuh"

// Shared-memory bank conflicts, stride 1: lane l reads s[(l * 1 + k) % 1024] for k < 64
// (conflict-free).  Lane 0 of each warp records clk[2*warp], clk[2*warp+1] around the loop.
#define STRIDE 1
extern "C" __global__ void bank_stride1(int* out, long long* clk) {
    SIMT_SITE(1);                                   // entry
    __shared__ int s[1024];
    unsigned t = threadIdx.x, lane = t & 31u;
    for (unsigned e = t; e < 1024; e += blockDim.x) s[e] = (int)(e * 7u + 3u);
    __syncthreads();
    int acc = 0;
    long long t0 = clock64();
#pragma unroll 8
    for (unsigned k = 0; k < 64; k++) acc += s[(lane * STRIDE + k + (unsigned)(acc & 0)) & 1023u];
    long long t1 = clock64();
    out[blockIdx.x * blockDim.x + t] = acc;
    if (lane == 0) {
        SIMT_SITE(2);
        unsigned w = (blockIdx.x * blockDim.x + t) >> 5;
        clk[2 * w] = t0;
        clk[2 * w + 1] = t1;
    }
    SIMT_SITE(3);                                   // exit
}
