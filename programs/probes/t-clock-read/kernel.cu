#include "../../include/simt_trace.cuh"

// t-clock-read: the cost of reading the 64-bit clock (CS2R R, SR_CLOCKLO).  One thread reads
// clock64() 32 times back to back between two timed reads; clk = [t0, t1], so one read costs
// (t1 - t0) / 33.  The reads are xor-ed together so none is dead.
extern "C" __global__ void clock_read(long long* res, long long* clk) {
    SIMT_SITE(1);                                   // entry
    long long t0 = clock64();
    long long acc = 0;
#pragma unroll
    for (int k = 0; k < 32; k++) acc ^= clock64();
    long long t1 = clock64();
    res[0] = acc;
    clk[0] = t0;
    clk[1] = t1;
    SIMT_SITE(2);                                   // exit
}
