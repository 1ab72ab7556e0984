#include "../../include/simt_trace.cuh"

// B[i][j] = 0.2 (A[i][j] + A[i][j-1] + A[i][j+1] + A[i+1][j] + A[i-1][j]) for 0 < i, j < n-1.
extern "C" __global__ void jacobi2d(const float* A, float* B, int n) {
    SIMT_SITE(1);
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i > 0 && j > 0 && i < n - 1 && j < n - 1) {
        SIMT_SITE(2);
        B[i * n + j] = 0.2f * (A[i * n + j] + A[i * n + j - 1] + A[i * n + j + 1]
                               + A[(i + 1) * n + j] + A[(i - 1) * n + j]);
    }
    SIMT_SITE(3);
}
