#include "../../include/simt_trace.cuh"

// C[i][j] = alpha * sum_k A[i][k] * B[k][j] + beta * C[i][j]; A is M x K, B is K x N, row-major.
extern "C" __global__ void gemm_naive(const float* A, const float* B, float* C, int M, int N, int K,
                                      float alpha, float beta) {
    SIMT_SITE(1);
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < M && j < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k)
            acc += A[i * K + k] * B[k * N + j];
        C[i * N + j] = alpha * acc + beta * C[i * N + j];
        SIMT_SITE(2);
    }
    SIMT_SITE(3);
}
