#include "../../include/simt_trace.cuh"

// Warp votes on data: out[3*i..] = ballot(v > 0), any(v > 90), all(v > -95).
extern "C" __global__ void vote(const int* in, unsigned* out) {
    SIMT_SITE(1);                                   // entry
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    unsigned b = __ballot_sync(0xffffffffu, v > 0);
    int any = __any_sync(0xffffffffu, v > 90);
    int all = __all_sync(0xffffffffu, v > -95);
    out[3 * i] = b;
    out[3 * i + 1] = (unsigned)any;
    out[3 * i + 2] = (unsigned)all;
    SIMT_SITE(2);                                   // exit
}
