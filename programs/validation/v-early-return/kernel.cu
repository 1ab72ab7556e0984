#include "../../include/simt_trace.cuh"

// Early return twice: threads with negative input leave first, then those whose value is small.
extern "C" __global__ void early2(const int* in, int* out) {
    SIMT_SITE(1);                                   // entry
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    if (v < 0) { SIMT_SITE(2); out[i] = -1; return; }
    int r = v;
    for (int k = 0; k < 4; k++) r = r * 3 + k;
    if (r < 1000) { SIMT_SITE(3); out[i] = r; return; }
    SIMT_SITE(4);                                   // the rest
    for (int k = 0; k < 4; k++) r = (r ^ 0x77) >> 1;
    out[i] = r;
}
