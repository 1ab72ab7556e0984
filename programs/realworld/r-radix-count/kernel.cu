#include "../../include/simt_trace.cuh"

// counts[digit * gridDim.x + block] = how many of the block's 1024 keys have (key >> shift) & 15 == digit.
extern "C" __global__ void radix_count(const unsigned* keys, unsigned* counts, int shift) {
    SIMT_SITE(1);
    __shared__ unsigned hist[16];
    if (threadIdx.x < 16) hist[threadIdx.x] = 0;
    __syncthreads();
    const unsigned* k = keys + blockIdx.x * 1024;
    for (int i = threadIdx.x; i < 1024; i += blockDim.x)
        atomicAdd(&hist[(k[i] >> shift) & 15u], 1u);
    __syncthreads();
    if (threadIdx.x < 16) { SIMT_SITE(2); counts[threadIdx.x * gridDim.x + blockIdx.x] = hist[threadIdx.x]; }
    SIMT_SITE(3);
}
