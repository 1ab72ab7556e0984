// Seed 003 (software pipelining, the paper's Figures 1-2 on a GPU): every thread walks m
// iterations; iteration i loads one word x[i*n + g] from global memory (g = the thread's global
// index, so a warp reads one 128-byte line) and runs a chain of ROUNDS dependent integer mixing
// rounds on it:
//
//   h = h + v;   ROUNDS times: h ^= h >> 15; h *= 0x2C1B3C6D;      out[g] = h
//
// The chain is non-linear (the shift-xor) so the compiler cannot fold it, and integer so a numpy
// uint32 reference is exact.
//
// PIPE_DOUBLE = 0 (plain): load, wait, compute.  `#pragma unroll 1` keeps one load per iteration,
// issued after the previous iteration's compute, so every iteration pays the load latency and the
// chain one after the other.
// PIPE_DOUBLE = 1 (double-buffered, software-pipelined): the load of iteration i+1 is issued before
// the compute of iteration i (prologue loads iteration 0; the last iteration loads nothing), so
// the load latency overlaps the chain.  Same loads, same arithmetic, same result.
//
// clk[2*b], clk[2*b+1]: clock64() at the start and end of block b (thread 0, between barriers).
#pragma once
#include "simt_trace.cuh"

#ifndef PIPE_DOUBLE
#error "define PIPE_DOUBLE (0 plain, 1 double-buffered) before including seed003_pipe.cuh"
#endif
#define PIPE_ROUNDS 8

__device__ __forceinline__ unsigned int pipe_mix(unsigned int h, unsigned int v) {
    h += v;
#pragma unroll
    for (int r = 0; r < PIPE_ROUNDS; r++) {
        h ^= h >> 15;
        h *= 0x2C1B3C6Du;
    }
    return h;
}

extern "C" __global__ void pipe_loop(const unsigned int* __restrict__ x, unsigned int* __restrict__ out,
                                     long long* clk, int n, int m) {
    SIMT_SITE(1);                                   // entry
    __syncthreads();
    long long t0 = clock64();
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int h = (unsigned int)g;
#if PIPE_DOUBLE
    unsigned int next = m > 0 ? x[g] : 0u;
#pragma unroll 1
    for (int i = 0; i < m; i++) {
        unsigned int cur = next;
        if (i + 1 < m) next = x[(long long)(i + 1) * n + g];     // in flight during the chain below
        h = pipe_mix(h, cur);
    }
#else
#pragma unroll 1
    for (int i = 0; i < m; i++) {
        h = pipe_mix(h, x[(long long)i * n + g]);
    }
#endif
    out[g] = h;
    __syncthreads();
    if (threadIdx.x == 0) {
        SIMT_SITE(2);                               // thread 0 records the block span
        clk[2 * blockIdx.x] = t0;
        clk[2 * blockIdx.x + 1] = clock64();
    }
}
