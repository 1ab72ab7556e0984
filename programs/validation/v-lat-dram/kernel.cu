#include "../../include/simt_trace.cuh"

// DRAM latency (ld.global.cg, first cold pass, 4224-byte stride): chain[i] = i + 1056 (4224 bytes apart; buffer range(1056,1)); one thread.
// One cold pass, timed.
#define STRIDE 1056u
#define STEPS 32
extern "C" __global__ void lat_dram(const unsigned* chain, unsigned* res, long long* clk, unsigned start) {
    SIMT_SITE(1);                                   // entry
    unsigned j = start;
    long long t0 = clock64();
#pragma unroll
    for (int k = 0; k < STEPS; k++) j = __ldcg(&chain[j]);
    long long t1 = clock64();
    res[0] = j;
    clk[0] = t0;
    clk[1] = t1;
    SIMT_SITE(2);                                   // exit
}
