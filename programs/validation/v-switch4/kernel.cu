#include "../../include/simt_trace.cuh"

// 4-way switch on the lane id: every warp splits four ways.
extern "C" __global__ void switch_lane4(const int* in, int* out) {
    SIMT_SITE(1);                                   // entry
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    int r = v;
    switch (threadIdx.x & 3) {
        case 0: SIMT_SITE(2); for (int k = 0; k < 4; k++) r = r * 3 + k; break;
        case 1: SIMT_SITE(3); for (int k = 0; k < 4; k++) r = (r ^ 0x5a) * 5; break;
        case 2: SIMT_SITE(4); for (int k = 0; k < 4; k++) r = r - (v << k); break;
        default: SIMT_SITE(5); for (int k = 0; k < 4; k++) r = r * r + 1; break;
    }
    SIMT_SITE(6);                                   // join
    out[i] = r;
}
