#include "../../include/simt_trace.cuh"

// Data-dependent while loop: Collatz step count (capped at 300) of each thread's value.
extern "C" __global__ void collatz(const unsigned* in, unsigned* out) {
    SIMT_SITE(1);                                   // entry
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned x = in[i];
    unsigned steps = 0;
    while (x > 1u && steps < 300u) {
        SIMT_SITE(2);                               // loop body
        x = (x & 1u) ? 3u * x + 1u : x >> 1;
        steps++;
    }
    SIMT_SITE(3);                                   // after the loop
    out[i] = steps;
}
