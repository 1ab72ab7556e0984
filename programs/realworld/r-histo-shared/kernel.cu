#include "../../include/simt_trace.cuh"

extern "C" __global__ void histo_shared(const unsigned* in, unsigned* hist, int n) {
    SIMT_SITE(1);
    __shared__ unsigned local[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[in[i] & 255u], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x) {
        unsigned v = local[b];
        if (v) atomicAdd(&hist[b], v);
    }
    SIMT_SITE(2);
}
