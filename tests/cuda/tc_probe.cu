// Tensor-core probes: one warp per case computes D = A * B + C with a single tensor-core
// instruction, so the H100's rounding and accumulation order can be recorded bit for bit
// (tools/record_tensor_cores.py) and compared with the simulator.
//
// Every matrix is row-major in memory, one case after another: A is M x K, B is K x N,
// C and D are M x N.  The mma.sync kernels load fragments by hand, as the PTX manual lays them
// out (groupID = lane / 4, tig = lane % 4); the wmma kernels use the nvcuda::wmma API.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <mma.h>
#include <stdint.h>

using namespace nvcuda;

// Two consecutive 16-bit elements of a row-major matrix as one .b32 (lower index in the low half).
__device__ __forceinline__ uint32_t pair_row(const uint16_t* m, int ld, int r, int c) {
    return (uint32_t)m[r * ld + c] | ((uint32_t)m[r * ld + c + 1] << 16);
}

// Two 16-bit elements of a row-major K x N matrix down one column (rows k, k+1).
__device__ __forceinline__ uint32_t pair_col(const uint16_t* m, int ld, int k, int n) {
    return (uint32_t)m[k * ld + n] | ((uint32_t)m[(k + 1) * ld + n] << 16);
}

#define MMA_16816_F32(NAME, TYPE)                                                                  \
extern "C" __global__ void NAME(const uint16_t* A, const uint16_t* B, const float* C, float* D) { \
    int cs = blockIdx.x, lane = threadIdx.x, g = lane >> 2, t = lane & 3;                          \
    const uint16_t* a = A + cs * 256; const uint16_t* b = B + cs * 128;                            \
    const float* c = C + cs * 128; float* d = D + cs * 128;                                        \
    uint32_t a0 = pair_row(a, 16, g, 2 * t), a1 = pair_row(a, 16, g + 8, 2 * t);                   \
    uint32_t a2 = pair_row(a, 16, g, 2 * t + 8), a3 = pair_row(a, 16, g + 8, 2 * t + 8);           \
    uint32_t b0 = pair_col(b, 8, 2 * t, g), b1 = pair_col(b, 8, 2 * t + 8, g);                     \
    float c0 = c[g * 8 + 2 * t], c1 = c[g * 8 + 2 * t + 1];                                        \
    float c2 = c[(g + 8) * 8 + 2 * t], c3 = c[(g + 8) * 8 + 2 * t + 1];                            \
    float d0, d1, d2, d3;                                                                          \
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." TYPE "." TYPE ".f32 "                    \
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"                        \
                 : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)                                          \
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1),                           \
                   "f"(c0), "f"(c1), "f"(c2), "f"(c3));                                            \
    d[g * 8 + 2 * t] = d0; d[g * 8 + 2 * t + 1] = d1;                                              \
    d[(g + 8) * 8 + 2 * t] = d2; d[(g + 8) * 8 + 2 * t + 1] = d3;                                  \
}

#define MMA_1688_F32(NAME, TYPE)                                                                   \
extern "C" __global__ void NAME(const uint16_t* A, const uint16_t* B, const float* C, float* D) { \
    int cs = blockIdx.x, lane = threadIdx.x, g = lane >> 2, t = lane & 3;                          \
    const uint16_t* a = A + cs * 128; const uint16_t* b = B + cs * 64;                             \
    const float* c = C + cs * 128; float* d = D + cs * 128;                                        \
    uint32_t a0 = pair_row(a, 8, g, 2 * t), a1 = pair_row(a, 8, g + 8, 2 * t);                     \
    uint32_t b0 = pair_col(b, 8, 2 * t, g);                                                        \
    float c0 = c[g * 8 + 2 * t], c1 = c[g * 8 + 2 * t + 1];                                        \
    float c2 = c[(g + 8) * 8 + 2 * t], c3 = c[(g + 8) * 8 + 2 * t + 1];                            \
    float d0, d1, d2, d3;                                                                          \
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32." TYPE "." TYPE ".f32 "                     \
                 "{%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"                                   \
                 : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)                                          \
                 : "r"(a0), "r"(a1), "r"(b0), "f"(c0), "f"(c1), "f"(c2), "f"(c3));                 \
    d[g * 8 + 2 * t] = d0; d[g * 8 + 2 * t + 1] = d1;                                              \
    d[(g + 8) * 8 + 2 * t] = d2; d[(g + 8) * 8 + 2 * t + 1] = d3;                                  \
}

MMA_16816_F32(mma_m16n8k16_f16_f32, "f16")
MMA_16816_F32(mma_m16n8k16_bf16_f32, "bf16")
MMA_1688_F32(mma_m16n8k8_f16_f32, "f16")
MMA_1688_F32(mma_m16n8k8_bf16_f32, "bf16")

// f16 accumulator: C and D are 16 x 8 halves, two per register.
extern "C" __global__ void mma_m16n8k16_f16_f16(const uint16_t* A, const uint16_t* B, const uint16_t* C,
                                                uint16_t* D) {
    int cs = blockIdx.x, lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    const uint16_t* a = A + cs * 256; const uint16_t* b = B + cs * 128;
    const uint16_t* c = C + cs * 128; uint16_t* d = D + cs * 128;
    uint32_t a0 = pair_row(a, 16, g, 2 * t), a1 = pair_row(a, 16, g + 8, 2 * t);
    uint32_t a2 = pair_row(a, 16, g, 2 * t + 8), a3 = pair_row(a, 16, g + 8, 2 * t + 8);
    uint32_t b0 = pair_col(b, 8, 2 * t, g), b1 = pair_col(b, 8, 2 * t + 8, g);
    uint32_t c0 = pair_row(c, 8, g, 2 * t), c1 = pair_row(c, 8, g + 8, 2 * t);
    uint32_t d0, d1;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"
                 : "=r"(d0), "=r"(d1)
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "r"(c0), "r"(c1));
    d[g * 8 + 2 * t] = d0 & 0xffff; d[g * 8 + 2 * t + 1] = d0 >> 16;
    d[(g + 8) * 8 + 2 * t] = d1 & 0xffff; d[(g + 8) * 8 + 2 * t + 1] = d1 >> 16;
}

// wmma: one fragment product per warp through the C++ API (row-major A, B, C, D).
#define WMMA_F32(NAME, M, N, K, T)                                                                 \
extern "C" __global__ void NAME(const T* A, const T* B, const float* C, float* D) {              \
    int cs = blockIdx.x;                                                                           \
    wmma::fragment<wmma::matrix_a, M, N, K, T, wmma::row_major> fa;                                \
    wmma::fragment<wmma::matrix_b, M, N, K, T, wmma::row_major> fb;                                \
    wmma::fragment<wmma::accumulator, M, N, K, float> fc;                                          \
    wmma::load_matrix_sync(fa, A + cs * M * K, K);                                                 \
    wmma::load_matrix_sync(fb, B + cs * K * N, N);                                                 \
    wmma::load_matrix_sync(fc, C + cs * M * N, N, wmma::mem_row_major);                            \
    wmma::mma_sync(fc, fa, fb, fc);                                                                \
    wmma::store_matrix_sync(D + cs * M * N, fc, N, wmma::mem_row_major);                           \
}

WMMA_F32(wmma_m16n16k16_f16_f32, 16, 16, 16, half)
WMMA_F32(wmma_m32n8k16_f16_f32, 32, 8, 16, half)
WMMA_F32(wmma_m8n32k16_f16_f32, 8, 32, 16, half)
WMMA_F32(wmma_m16n16k16_bf16_f32, 16, 16, 16, __nv_bfloat16)

extern "C" __global__ void wmma_m16n16k16_f16_f16(const half* A, const half* B, const half* C, half* D) {
    int cs = blockIdx.x;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, half> fc;
    wmma::load_matrix_sync(fa, A + cs * 256, 16);
    wmma::load_matrix_sync(fb, B + cs * 256, 16);
    wmma::load_matrix_sync(fc, C + cs * 256, 16, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(D + cs * 256, fc, 16, wmma::mem_row_major);
}
