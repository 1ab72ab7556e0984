#include "../../include/simt_trace.cuh"

// If/else on the lane parity: even and odd lanes interleave (16/16 with no contiguous halves).
extern "C" __global__ void split_alt(const int* in, int* out) {
    SIMT_SITE(1);                                   // entry
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    int r;
    if (threadIdx.x & 1) {
        SIMT_SITE(2);
        r = v;
        for (int k = 0; k < 8; k++) r = r * 3 + k;
    } else {
        SIMT_SITE(3);
        r = -v;
        for (int k = 0; k < 8; k++) r = (r ^ 0x55) * 5;
    }
    SIMT_SITE(4);                                   // join
    out[i] = r;
}
