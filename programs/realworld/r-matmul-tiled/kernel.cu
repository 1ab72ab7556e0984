#include "../../include/simt_trace.cuh"

#define TILE 16
// C = A B with A M x K, B K x N; each block stages one TILE x TILE tile of A and of B per step.
extern "C" __global__ void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
    SIMT_SITE(1);
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < K; t += TILE) {
        As[ty][tx] = A[row * K + t + tx];
        Bs[ty][tx] = B[(t + ty) * N + col];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
    SIMT_SITE(2);
}
