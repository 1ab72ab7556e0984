#include "../../include/simt_trace.cuh"

extern "C" __global__ void conv2d_3x3(const float* A, float* B, int ni, int nj) {
    SIMT_SITE(1);
    const float c11 = 0.25f, c12 = -0.5f, c13 = 0.125f,
                c21 = 0.75f, c22 = 0.5f, c23 = -0.25f,
                c31 = -0.125f, c32 = 0.375f, c33 = 0.0625f;
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i > 0 && j > 0 && i < ni - 1 && j < nj - 1) {
        SIMT_SITE(2);
        B[i * nj + j] = c11 * A[(i - 1) * nj + j - 1] + c12 * A[(i - 1) * nj + j] + c13 * A[(i - 1) * nj + j + 1]
                      + c21 * A[i * nj + j - 1] + c22 * A[i * nj + j] + c23 * A[i * nj + j + 1]
                      + c31 * A[(i + 1) * nj + j - 1] + c32 * A[(i + 1) * nj + j] + c33 * A[(i + 1) * nj + j + 1];
    }
    SIMT_SITE(3);
}
