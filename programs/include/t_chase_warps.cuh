// t-chase-warps-N: does a dependent load's step grow when other warps share its scheduler?  N warps
// per sub-partition (4N warps in one block) each follow two dependent chains of 32 steps, reading
// the clock after each step, as t-chase-lanes' 32-lane chains do: 0 shared memory, every step 32
// different words of one 128-byte row; 1 global memory through L1 (LDG.E.CONSTANT, ptxas's
// IMAD.WIDE with a yield hint before each), 32 words of one line, second pass timed.
// clk[66 w + 33 part + k]: warp w's clock after step k - 1 of chain `part` (k = 0: before it).
#pragma once
#include "simt_trace.cuh"
#include "t_chase.cuh"

extern "C" __global__ void chase_warps(const unsigned* chain, unsigned* res, long long* clk) {
    SIMT_SITE(1);                                   // entry
    __shared__ unsigned s[WORDS];
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x / 32u;
    for (unsigned i = threadIdx.x; i < WORDS; i += blockDim.x) s[i] = chain[i];
    __syncthreads();
    long long* mine = clk + 66 * warp;
    unsigned r = chase<true>(s, lane, mine, lane == 0);
    unsigned b = chase<false>(chain, lane, mine + 33, false);
    r += chase<false>(chain, (b == 0xFFFFFFFFu ? 1u : 0u) + lane, mine + 33, lane == 0);
    res[threadIdx.x] = r;
    SIMT_SITE(2);                                   // exit
}
