#include "../../include/simt_trace.cuh"

// x[i] += sum_j A[i][j] * y[j]; thread i walks row i (lanes 4 KB apart).
extern "C" __global__ void mvt_row(const float* A, const float* y, float* x, int n) {
    SIMT_SITE(1);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float acc = x[i];
        for (int j = 0; j < n; ++j)
            acc += A[i * n + j] * y[j];
        x[i] = acc;
    }
    SIMT_SITE(2);
}
