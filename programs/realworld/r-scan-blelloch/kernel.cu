#include "../../include/simt_trace.cuh"

#define NB 512
// Exclusive prefix sum of each block's 512 elements (2 per thread): up-sweep, clear, down-sweep.
extern "C" __global__ void scan_blelloch(const int* in, int* out, int* sums) {
    SIMT_SITE(1);
    __shared__ int s[NB];
    int t = threadIdx.x;
    int base = blockIdx.x * NB;
    s[2 * t] = in[base + 2 * t];
    s[2 * t + 1] = in[base + 2 * t + 1];
    int offset = 1;
    for (int d = NB >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (t < d) {
            int ai = offset * (2 * t + 1) - 1, bi = offset * (2 * t + 2) - 1;
            s[bi] += s[ai];
        }
        offset <<= 1;
    }
    if (t == 0) { SIMT_SITE(2); sums[blockIdx.x] = s[NB - 1]; s[NB - 1] = 0; }
    for (int d = 1; d < NB; d <<= 1) {
        offset >>= 1;
        __syncthreads();
        if (t < d) {
            int ai = offset * (2 * t + 1) - 1, bi = offset * (2 * t + 2) - 1;
            int v = s[ai];
            s[ai] = s[bi];
            s[bi] += v;
        }
    }
    __syncthreads();
    out[base + 2 * t] = s[2 * t];
    out[base + 2 * t + 1] = s[2 * t + 1];
    SIMT_SITE(3);
}
