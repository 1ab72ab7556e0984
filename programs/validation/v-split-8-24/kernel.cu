#include "../../include/simt_trace.cuh"

// If/else on the lane id: lanes < split take one side (8/24 here), the rest the other.
extern "C" __global__ void split(const int* in, int* out, int split) {
    SIMT_SITE(1);                                   // entry
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int v = in[i];
    int r;
    if (lane < split) {
        SIMT_SITE(2);                               // then side
        r = v * 3 + 1;
        for (int k = 0; k < 8; k++) r = (r * 5) ^ (k + lane);
    } else {
        SIMT_SITE(3);                               // else side
        r = v - 7;
        for (int k = 0; k < 8; k++) r = r * 7 + (k ^ v);
    }
    SIMT_SITE(4);                                   // join
    out[i] = r;
}
