#include "../../include/simt_trace.cuh"

// t-chase-lanes: does a load's latency depend on how many lanes it serves?  One warp follows four
// dependent chains of 32 steps, reading the clock after each step (lane 0's clocks are kept):
//   0 shared memory, lane 0 alone                      (LDS)
//   1 shared memory, all 32 lanes, each step 32 different words of one 128-byte row (no bank conflict)
//   2 global memory through L1, lane 0 alone           (LDG.E.CONSTANT, lines already in L1)
//   3 global memory through L1, all 32 lanes reading 32 different words of one 128-byte line
// The global chains run twice; the second pass is timed (the first brings the 32 lines into L1).
// chain[i] = 32 ((i / 32 + 1) % 32) + (7 (i % 32) + 3) % 32: the next line, another word of it.
// clk[33 * part + k + 1] - clk[33 * part + k] is step k's latency.
#include "../../include/t_chase.cuh"

extern "C" __global__ void chase_lanes(const unsigned* chain, unsigned* res, long long* clk) {
    SIMT_SITE(1);                                   // entry
    __shared__ unsigned s[WORDS];
    const unsigned lane = threadIdx.x;
    for (unsigned i = lane; i < WORDS; i += 32) s[i] = 32u * ((i / 32u + 1u) % 32u) + (i / 32u + 1u + lane) % 32u;
    __syncwarp();
    unsigned r = 0;
    if (lane == 0) r += chase<true>(s, 0, clk, true);
    __syncwarp();
    r += chase<true>(s, lane, clk + 33, lane == 0);
    __syncwarp();
    if (lane == 0) {
        unsigned a = chase<false>(chain, 0, clk + 66, false);
        r += chase<false>(chain, a == 0xFFFFFFFFu ? 1u : 0u, clk + 66, true);
    }
    __syncwarp();
    unsigned b = chase<false>(chain, lane, clk + 99, false);
    r += chase<false>(chain, (b == 0xFFFFFFFFu ? 1u : 0u) + lane, clk + 99, lane == 0);
    res[lane] = r;
    SIMT_SITE(2);                                   // exit
}
