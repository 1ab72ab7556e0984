#include "../../include/simt_trace.cuh"

// out[block] = sum of the block's grid-stride share of in.
extern "C" __global__ void reduce_shfl(const int* in, int* out, int n) {
    SIMT_SITE(1);
    __shared__ int warp_sums[32];
    int sum = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        sum += in[i];
    for (int off = 16; off > 0; off >>= 1)
        sum += __shfl_down_sync(0xffffffffu, sum, off);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        SIMT_SITE(2);
        sum = lane < (int)(blockDim.x >> 5) ? warp_sums[lane] : 0;
        for (int off = 16; off > 0; off >>= 1)
            sum += __shfl_down_sync(0xffffffffu, sum, off);
        if (lane == 0) out[blockIdx.x] = sum;
    }
    SIMT_SITE(3);
}
