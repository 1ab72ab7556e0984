#include "../../include/simt_trace.cuh"

// 8-way switch on data: dense case labels 0..7.
extern "C" __global__ void switch8(const int* in, int* out) {
    SIMT_SITE(1);                                   // entry
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    int r;
    switch (v & 7) {
        case 0: SIMT_SITE(2); r = v * 11 + 3; break;
        case 1: SIMT_SITE(3); r = v ^ 0x1234; break;
        case 2: SIMT_SITE(4); r = v * v - 5; break;
        case 3: SIMT_SITE(5); r = (v << 3) + 9; break;
        case 4: SIMT_SITE(6); r = -v * 13; break;
        case 5: SIMT_SITE(7); r = (v >> 2) | 0x100; break;
        case 6: SIMT_SITE(8); r = v * 17 - 1; break;
        default: SIMT_SITE(9); r = v & 0xff0; break;
    }
    SIMT_SITE(10);                                  // join
    out[i] = r;
}
