#include "../../include/simt_trace.cuh"

// Warp reduction with __shfl_down_sync: out[warp] = sum of the warp's 32 values.
extern "C" __global__ void shfl_down_sum(const int* in, int* out) {
    SIMT_SITE(1);                                   // entry
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    if ((threadIdx.x & 31) == 0) { SIMT_SITE(2); out[i >> 5] = v; }
    SIMT_SITE(3);                                   // exit
}
