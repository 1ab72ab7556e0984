#include "../../include/simt_trace.cuh"

// If/else inside a counted loop: which lanes take which side changes every iteration.
extern "C" __global__ void loop_div(const int* in, int* out) {
    SIMT_SITE(1);                                   // entry
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int r = in[i];
    for (int k = 0; k < 12; k++) {
        SIMT_SITE(2);                               // loop head
        if ((lane + k) % 3 == 0) {
            SIMT_SITE(3);
            r = r * 5 + k;
            r ^= r >> 3;
        } else {
            SIMT_SITE(4);
            r = r - 3 * k;
            r = r * 7 + 1;
        }
    }
    SIMT_SITE(5);                                   // after the loop
    out[i] = r;
}
