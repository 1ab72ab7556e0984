#include "../../include/simt_trace.cuh"

extern "C" __global__ void scatter_add(const int* src, const int* index, int* out, int n) {
    SIMT_SITE(1);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&out[index[i]], src[i]);
    SIMT_SITE(2);
}
