#include "../../include/simt_trace.cuh"

// Warp w handles row w: lane l sums nonzeros l, l+32, ...; then a shuffle tree; lane 0 writes.
extern "C" __global__ void spmv_csr_vector(const int* rowptr, const int* cols, const float* vals,
                                           const float* x, float* y, int rows) {
    SIMT_SITE(1);
    int lane = threadIdx.x & 31;
    int row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (row < rows) {
        float sum = 0.0f;
        int end = rowptr[row + 1];
        for (int k = rowptr[row] + lane; k < end; k += 32)
            sum += vals[k] * x[cols[k]];
        for (int off = 16; off > 0; off >>= 1)
            sum += __shfl_down_sync(0xffffffffu, sum, off);
        if (lane == 0) { SIMT_SITE(2); y[row] = sum; }
    }
    SIMT_SITE(3);
}
