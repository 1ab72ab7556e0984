// Seed 002, tiled matrix multiplication (programs/workloads/w-matmul-*): C = A * B for n x n row-major
// float matrices, n a multiple of 32.  Blocks of 32 x 32 threads, one output element per thread;
// each step stages a 32 x 32 tile of A and of B in shared memory (the paper's mat_mul.cu).
//
// MM_FORM picks the variant:
//   MM_PLAIN     every product accumulates in FP32: acc = fma(a, b, acc), the fma.rn.f32 that nvcc
//                makes of the paper's acc += a * b;
//   MM_ILP       the paper's 24:8 split: products j = 0, 4, ..., 28 of each tile go to an FP64
//                accumulator (acc64 += (double)(a * b): a float product added in double, as in
//                mat_mul_fp32_fp64.cu), the other 24 to the FP32 one; C = (float)(acc + acc64);
//   MM_WARPSPEC  warps with threadIdx.y < fp64_warps accumulate every product in FP64 (as above),
//                the others in FP32 (mat_mul_fp32_fp64_warp.cu);
//   MM_PIPELINE  MM_PLAIN with the tiles double-buffered through the CUDA pipeline primitives
//                (__pipeline_memcpy_async = cp.async): tile t + 1 is in flight while tile t is
//                multiplied (the paper's mat_mul_pipeline.cu, with one 4-byte copy per thread).
// Thread (0, 0) records the block's span: clk[2 * b] = start, clk[2 * b + 1] = after the block's last
// warp has finished (a barrier), b = blockIdx.y * gridDim.x + blockIdx.x.
#pragma once
#include "simt_trace.cuh"

#define MM_PLAIN 0
#define MM_ILP 1
#define MM_WARPSPEC 2
#define MM_PIPELINE 3
#define TILE 32

#ifndef MM_FORM
#error "define MM_FORM before including w_matmul.cuh"
#endif
#if MM_FORM == MM_PIPELINE
#include <cuda_pipeline.h>
#endif

// The two accumulations, written with intrinsics so that the rounding is fixed by the source rather
// than by nvcc's contraction choices (which otherwise differ between the forms).
__device__ __forceinline__ void add_fp32(float& acc, float a, float b) { acc = __fmaf_rn(a, b, acc); }
__device__ __forceinline__ void add_fp64(double& acc64, float a, float b) { acc64 += (double)__fmul_rn(a, b); }

// One tile's 32 products of row ty of sa and column tx of sb, in the variant's precision.
__device__ __forceinline__ void multiply_tile(const float* sa, const float* sb, int ty, int tx,
                                              bool in_fp64, float& acc, double& acc64) {
#if MM_FORM == MM_ILP
    (void)in_fp64;
#pragma unroll
    for (int j = 0; j < TILE; j++) {
        if (j % 4 == 0)
            add_fp64(acc64, sa[ty * TILE + j], sb[j * TILE + tx]);
        else
            add_fp32(acc, sa[ty * TILE + j], sb[j * TILE + tx]);
    }
#else
    if (in_fp64) {
#pragma unroll
        for (int j = 0; j < TILE; j++)
            add_fp64(acc64, sa[ty * TILE + j], sb[j * TILE + tx]);
    } else {
#pragma unroll
        for (int j = 0; j < TILE; j++)
            add_fp32(acc, sa[ty * TILE + j], sb[j * TILE + tx]);
    }
#endif
}

extern "C" __global__ void matmul(const float* A, const float* B, float* C, long long* clk, int n,
                                  int fp64_warps) {
    SIMT_SITE(1);                                   // entry
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    // Only the warp-specialised form reads fp64_warps; a warp is one row ty of the block.
    bool in_fp64 = MM_FORM == MM_WARPSPEC && ty < fp64_warps;
    float acc = 0.0f;
    double acc64 = 0.0;
    int tiles = n / TILE;
    long long t0 = clock64();
#if MM_FORM == MM_PIPELINE
    __shared__ float sa[2][TILE * TILE], sb[2][TILE * TILE];
    __pipeline_memcpy_async(&sa[0][ty * TILE + tx], &A[row * n + tx], sizeof(float));
    __pipeline_memcpy_async(&sb[0][ty * TILE + tx], &B[ty * n + col], sizeof(float));
    __pipeline_commit();
    for (int t = 0; t < tiles; t++) {
        if (t + 1 < tiles) {                        // the next tile's copy overlaps this tile's work
            int k = (t + 1) * TILE;
            __pipeline_memcpy_async(&sa[(t + 1) & 1][ty * TILE + tx], &A[row * n + k + tx], sizeof(float));
            __pipeline_memcpy_async(&sb[(t + 1) & 1][ty * TILE + tx], &B[(k + ty) * n + col], sizeof(float));
        }
        __pipeline_commit();
        __pipeline_wait_prior(1);                   // tile t has landed (this thread's copies)
        __syncthreads();                            // ... and every other thread's
        multiply_tile(sa[t & 1], sb[t & 1], ty, tx, in_fp64, acc, acc64);
        __syncthreads();                            // the buffer is free for tile t + 2
    }
#else
    __shared__ float sa[TILE * TILE], sb[TILE * TILE];
    for (int t = 0; t < tiles; t++) {
        int k = t * TILE;
        sa[ty * TILE + tx] = A[row * n + k + tx];
        sb[ty * TILE + tx] = B[(k + ty) * n + col];
        __syncthreads();
        multiply_tile(sa, sb, ty, tx, in_fp64, acc, acc64);
        __syncthreads();
    }
#endif
    C[row * n + col] = MM_FORM == MM_PLAIN || MM_FORM == MM_PIPELINE ? acc : (float)((double)acc + acc64);
    __syncthreads();                                // the block's span ends with its last warp
    if (tx == 0 && ty == 0) {
        int b = blockIdx.y * gridDim.x + blockIdx.x;
        clk[2 * b] = t0;
        clk[2 * b + 1] = clock64();
    }
}
