#include "../../include/simt_trace.cuh"

// y[r] = sum over the row's nonzeros of vals[k] * x[cols[k]]; each lane walks its own row.
extern "C" __global__ void spmv_csr_scalar(const int* rowptr, const int* cols, const float* vals,
                                           const float* x, float* y, int rows) {
    SIMT_SITE(1);
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float sum = 0.0f;
        int end = rowptr[r + 1];
        for (int k = rowptr[r]; k < end; ++k)
            sum += vals[k] * x[cols[k]];
        y[r] = sum;
    }
    SIMT_SITE(2);
}
