#include "../../include/simt_trace.cuh"

extern "C" __global__ void histo_global(const unsigned* in, unsigned* hist, int n) {
    SIMT_SITE(1);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&hist[in[i] & 255u], 1u);
    SIMT_SITE(2);
}
