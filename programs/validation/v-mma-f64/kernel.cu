#include "../../include/simt_trace.cuh"

// DMMA latency/function: one warp, D = A(8x4) * B(4x8) + C(8x8), accumulated 16 times into C.
// Fragments (PTX ISA, m8n8k4 .f64): A: row = lane >> 2, col = lane % 4; B: row (k) = lane % 4,
// col = lane >> 2; C/D: row = lane >> 2, cols (lane % 4) * 2 + {0, 1}.  A, B, C row-major.
#define REPS 16
extern "C" __global__ void mma_f64(const double* A, const double* B, const double* C, double* D, long long* clk) {
    SIMT_SITE(1);                                   // entry
    unsigned lane = threadIdx.x & 31u;
    unsigned row = lane >> 2, q = lane & 3u;
    double a = A[row * 4 + q];
    double b = B[q * 8 + row];
    double c0 = C[row * 8 + q * 2], c1 = C[row * 8 + q * 2 + 1];
    long long t0 = clock64();
#pragma unroll
    for (int r = 0; r < REPS; r++) {
        asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
                     : "+d"(c0), "+d"(c1) : "d"(a), "d"(b));
    }
    long long t1 = clock64();
    D[row * 8 + q * 2] = c0;
    D[row * 8 + q * 2 + 1] = c1;
    if (lane == 0) {
        SIMT_SITE(2);
        clk[0] = t0;
        clk[1] = t1;
    }
    SIMT_SITE(3);                                   // exit
}
