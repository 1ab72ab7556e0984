#include "../../include/simt_trace.cuh"

extern "C" __global__ void while_loop(const int* trips, int* out, int n) {
    SIMT_SITE(1);                                   // entry
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) { SIMT_SITE(2); return; }           // out of range
    int t = trips[i];
    int acc = 0, k = 0;
    while (k < t) {
        SIMT_SITE(3);                               // loop body
        acc += k * k + i;
        k++;
    }
    SIMT_SITE(4);                                   // after the loop
    out[i] = acc;
}
