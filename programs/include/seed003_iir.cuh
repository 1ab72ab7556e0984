// Seed 003 (software pipelining / C-slow retiming): N independent second-order recurrence filters
// (biquads, direct form I), M steps each, on data in global memory:
//
//   y[t] = b0*x[t] + b1*x[t-1] + b2*x[t-2] - a2*y[t-2] - a1*y[t-1]      (x[-1] = x[-2] = y[-1] = y[-2] = 0)
//
// x and y are time-major, [M][N]: sample t of filter f is at t*N + f, so the lanes of a warp read
// and write consecutive words at every step.  Every multiply and add is rounded on its own
// (__fmul_rn / __fadd_rn: no FMA contraction), in the order written, so a numpy float32
// reference is bit-exact.  The loop-carried chain is y[t-1] -> (a1*y[t-1]) -> subtract: one FMUL
// and one FADD per step (8 cycles on an H100), as in the paper's Figure 5 (a multiply and an add
// in the cycle); everything else in a step is off the chain.
//
// C-slow retiming (the paper's Figures 4 and 7): every thread owns IIR_F = 4 filters, f, f + B,
// f + 2B, f + 3B (B = blockDim.x, so every access stays coalesced).  IIR_C = 1 (plain, Figure 4)
// runs them one after another: one dependent chain in flight.  IIR_C = C runs them in groups of C
// whose steps are interleaved (Figure 7): per step the C loads first, then the C chains, then the C
// stores, so C independent chains are in flight.  Same threads, same filters, same arithmetic in the
// same order per filter: the same work and bit-identical outputs; only the schedule differs.
// `#pragma unroll 1` keeps one step per loop iteration in every variant, so the variants differ by
// C alone (not by how far the compiler unrolls).  The C loads of a step are one inline-PTX group
// (load_group), because nvcc would otherwise sink each load next to its first use, and the PTX
// would then ask for the C loads one at a time, each after the previous chain: the paper's
// "loaded sequentially by the couples" is an order the programmer must be able to state.
// Block b covers filters [b*B*F, (b+1)*B*F).
//
// clk[2*b], clk[2*b+1]: clock64() at the start and end of block b (thread 0, after a barrier so the
// end is the block's last warp).
#pragma once
#include "simt_trace.cuh"

#ifndef IIR_C
#error "define IIR_C (chains interleaved per thread: 1, 2 or 4) before including seed003_iir.cuh"
#endif
#define IIR_F 4                 // filters per thread

// The C loads of one step, issued back to back (addresses p, p + stride, ...).
__device__ __forceinline__ void load_group(float (&v)[1], const float* p, int) {
    asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(v[0]) : "l"(__cvta_generic_to_global(p)));
}
__device__ __forceinline__ void load_group(float (&v)[2], const float* p, int stride) {
    asm volatile("{\n\tld.global.nc.f32 %0, [%2];\n\tld.global.nc.f32 %1, [%3];\n\t}"
                 : "=f"(v[0]), "=f"(v[1])
                 : "l"(__cvta_generic_to_global(p)), "l"(__cvta_generic_to_global(p + stride)));
}
__device__ __forceinline__ void load_group(float (&v)[4], const float* p, int stride) {
    asm volatile("{\n\tld.global.nc.f32 %0, [%4];\n\tld.global.nc.f32 %1, [%5];\n\t"
                 "ld.global.nc.f32 %2, [%6];\n\tld.global.nc.f32 %3, [%7];\n\t}"
                 : "=f"(v[0]), "=f"(v[1]), "=f"(v[2]), "=f"(v[3])
                 : "l"(__cvta_generic_to_global(p)), "l"(__cvta_generic_to_global(p + stride)),
                   "l"(__cvta_generic_to_global(p + 2 * stride)), "l"(__cvta_generic_to_global(p + 3 * stride)));
}

extern "C" __global__ void iir_cslow(const float* __restrict__ x, float* __restrict__ y, long long* clk,
                                     int n, int m, float b0, float b1, float b2,
                                     float a1, float a2) {
    SIMT_SITE(1);                                   // entry
    __syncthreads();
    long long t0 = clock64();
    const int base = blockIdx.x * blockDim.x * IIR_F + threadIdx.x;
#pragma unroll 1
    for (int group = 0; group < IIR_F / IIR_C; group++) {
        const int first = base + group * IIR_C * blockDim.x;
        float x1[IIR_C], x2[IIR_C], y1[IIR_C], y2[IIR_C];
#pragma unroll
        for (int c = 0; c < IIR_C; c++) {
            x1[c] = 0.0f; x2[c] = 0.0f; y1[c] = 0.0f; y2[c] = 0.0f;
        }
#pragma unroll 1
        for (int t = 0; t < m; t++) {
            const float* xt = x + (long long)t * n + first;
            float* yt = y + (long long)t * n + first;
            float x0[IIR_C], y0[IIR_C];
            load_group(x0, xt, blockDim.x);                                          // the C loads
            // the C chains, operation by operation across the filters (each line is C independent
            // instructions), so that an in-order issue stage finds them interleaved
            float p0[IIR_C], p1[IIR_C], p2[IIR_C], q1[IIR_C], q2[IIR_C], ff[IIR_C];
#pragma unroll
            for (int c = 0; c < IIR_C; c++) p0[c] = __fmul_rn(b0, x0[c]);
#pragma unroll
            for (int c = 0; c < IIR_C; c++) p1[c] = __fmul_rn(b1, x1[c]);
#pragma unroll
            for (int c = 0; c < IIR_C; c++) ff[c] = __fadd_rn(p0[c], p1[c]);
#pragma unroll
            for (int c = 0; c < IIR_C; c++) p2[c] = __fmul_rn(b2, x2[c]);
#pragma unroll
            for (int c = 0; c < IIR_C; c++) ff[c] = __fadd_rn(ff[c], p2[c]);
#pragma unroll
            for (int c = 0; c < IIR_C; c++) q2[c] = __fmul_rn(a2, y2[c]);
#pragma unroll
            for (int c = 0; c < IIR_C; c++) ff[c] = __fsub_rn(ff[c], q2[c]);
#pragma unroll
            for (int c = 0; c < IIR_C; c++) q1[c] = __fmul_rn(a1, y1[c]);
#pragma unroll
            for (int c = 0; c < IIR_C; c++) y0[c] = __fsub_rn(ff[c], q1[c]);
#pragma unroll
            for (int c = 0; c < IIR_C; c++) {                                       // the C stores
                yt[c * blockDim.x] = y0[c];
                x2[c] = x1[c]; x1[c] = x0[c];
                y2[c] = y1[c]; y1[c] = y0[c];
            }
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        SIMT_SITE(2);                               // thread 0 records the block span
        clk[2 * blockIdx.x] = t0;
        clk[2 * blockIdx.x + 1] = clock64();
    }
}
