#include "../../include/simt_trace.cuh"

extern "C" __global__ void nested_if(const int* in, int* out, int n) {
    SIMT_SITE(1);                                   // entry
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i];
    int r;
    if (v > 0) {
        SIMT_SITE(2);
        if (v > 100) { SIMT_SITE(3); r = 1; }
        else if (v % 3 == 0) { SIMT_SITE(4); r = 2; }
        else { SIMT_SITE(5); r = 3; }
    } else {
        SIMT_SITE(6);
        if (v < -50) { SIMT_SITE(7); r = -1; }
        else { SIMT_SITE(8); r = v * v; }
    }
    SIMT_SITE(9);                                   // join
    out[i] = r;
}
