#include "../../include/simt_trace.cuh"

// Block sum: shared-memory tree reduction with __syncthreads; out[block] = sum of 256 inputs.
extern "C" __global__ void smem_reduce(const int* in, int* out) {
    SIMT_SITE(1);                                   // entry
    __shared__ int s[256];
    unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride) {
            SIMT_SITE(2);                           // active half
            s[t] += s[t + stride];
        }
        __syncthreads();
    }
    if (t == 0) { SIMT_SITE(3); out[blockIdx.x] = s[0]; }
    SIMT_SITE(4);                                   // exit
}
