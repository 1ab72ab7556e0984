#include "../../include/simt_trace.cuh"

// Nested if/else: level 1 on lane bit 4, level 2 on lane bit 3, level 3 on the data sign.
extern "C" __global__ void nested3(const int* in, int* out) {
    SIMT_SITE(1);                                   // entry
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int v = in[i];
    int r = v;
    if (lane & 16) {
        SIMT_SITE(2);
        if (lane & 8) {
            SIMT_SITE(3);
            if (v > 0) { SIMT_SITE(4); for (int k = 0; k < 4; k++) r = r * 3 + k; }
            else       { SIMT_SITE(5); for (int k = 0; k < 4; k++) r = r * 5 - k; }
            SIMT_SITE(6);
        } else {
            SIMT_SITE(7);
            for (int k = 0; k < 4; k++) r = (r ^ 0x33) + k;
        }
        SIMT_SITE(8);
    } else {
        SIMT_SITE(9);
        if (v & 1) { SIMT_SITE(10); for (int k = 0; k < 4; k++) r = r * 7 + 1; }
        else       { SIMT_SITE(11); for (int k = 0; k < 4; k++) r = r - (k << 2); }
        SIMT_SITE(12);
    }
    SIMT_SITE(13);                                  // join
    out[i] = r;
}
