#include "../../include/simt_trace.cuh"

// x[i] += sum_j A[j][i] * y[j]; consecutive lanes read consecutive words of row j.
extern "C" __global__ void mvt_col(const float* A, const float* y, float* x, int n) {
    SIMT_SITE(1);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float acc = x[i];
        for (int j = 0; j < n; ++j)
            acc += A[j * n + i] * y[j];
        x[i] = acc;
    }
    SIMT_SITE(2);
}
