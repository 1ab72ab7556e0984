#include "../../include/simt_trace.cuh"

// Counted loop with break: accumulate the input until the sum passes a limit.
extern "C" __global__ void loop_break(const int* in, int* out, int n, int limit) {
    SIMT_SITE(1);                                   // entry
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int acc = 0, k;
    for (k = 0; k < 32; k++) {
        SIMT_SITE(2);                               // loop body
        acc += in[(i + k * 7) % n];
        if (acc > limit) { SIMT_SITE(3); break; }   // leaving early
    }
    SIMT_SITE(4);                                   // after the loop
    out[i] = acc * 64 + k;
}
