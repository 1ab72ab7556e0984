// Seed 001 (the branching article), Figures 8-9, as a CUDA kernel: every thread reads its own loop
// count and loops that many times,
//
//   uint thread_id = get_thread_id();  uint iter_count = memory[thread_id];
//   for (uint i = 0; i < iter_count; i++) { /* Do smth */ }
//
// "Do smth" is LOOPSORT_ROUNDS dependent mixing rounds (h ^= h >> 15; h *= 0x2C1B3C6D), which
// the compiler cannot fold into a closed form (a plain `acc += thread_id` it would turn into one
// multiply and delete the loop).  out[thread_id] = h, exact against a numpy uint32 reference.
// A warp runs as many iterations as its largest count; lanes whose count is reached wait masked
// off.  The programs w-loopsort-unsorted and w-loopsort-sorted run this same kernel on the same
// counts, in random order and sorted ascending (Figure 9), so that the lanes of a warp have
// similar counts.
//
// SIMT_SITE(2) in the loop records each warp's mask at every iteration (the mask shrinking as
// lanes finish); clk[2*b], clk[2*b+1]: clock64() at the start and end of block b.
#pragma once
#include "simt_trace.cuh"

#define LOOPSORT_ROUNDS 4

extern "C" __global__ void loop_count(const unsigned int* __restrict__ counts, unsigned int* __restrict__ out,
                                      long long* clk) {
    SIMT_SITE(1);                                   // entry
    __syncthreads();
    long long t0 = clock64();
    const unsigned int thread_id = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned int iter_count = counts[thread_id];
    unsigned int h = thread_id;
    for (unsigned int i = 0; i < iter_count; i++) {
        SIMT_SITE(2);                               // one iteration: the lanes still looping
#pragma unroll
        for (int r = 0; r < LOOPSORT_ROUNDS; r++) {
            h ^= h >> 15;
            h *= 0x2C1B3C6Du;
        }
    }
    out[thread_id] = h;
    __syncthreads();
    if (threadIdx.x == 0) {
        SIMT_SITE(3);                               // thread 0 records the block span
        clk[2 * blockIdx.x] = t0;
        clk[2 * blockIdx.x + 1] = clock64();
    }
}
