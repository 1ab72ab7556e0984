#include "../../include/simt_trace.cuh"

extern "C" __global__ void switch4(const int* in, int* out, int n) {
    SIMT_SITE(1);                                   // entry
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i];
    int r;
    switch (v & 3) {
        case 0: SIMT_SITE(2); r = v + 10; break;
        case 1: SIMT_SITE(3); r = v * 7; break;
        case 2: SIMT_SITE(4); r = v ^ 0x5a5a; break;
        default: SIMT_SITE(5); r = -v; break;
    }
    SIMT_SITE(6);                                   // join
    out[i] = r;
}
