#include "../../include/simt_trace.cuh"

// L1 hit latency (ld.global.ca, second pass): chain[i] = i + 32 (128 bytes apart; buffer range(32,1)); one thread.
// Two passes over the same lines; the second is timed.
#define STRIDE 32u
#define STEPS 32
extern "C" __global__ void lat_l1(const unsigned* chain, unsigned* res, long long* clk, unsigned start) {
    SIMT_SITE(1);                                   // entry
    unsigned j = start;
#pragma unroll
    for (int k = 0; k < STEPS; k++) j = __ldca(&chain[j]);       // first (cold) pass, untimed
    j -= STRIDE * STEPS;                            // back to the start, opaque to the compiler
    long long t0 = clock64();
#pragma unroll
    for (int k = 0; k < STEPS; k++) j = __ldca(&chain[j]);
    long long t1 = clock64();
    res[0] = j;
    clk[0] = t0;
    clk[1] = t1;
    SIMT_SITE(2);                                   // exit
}
