#include "../../include/simt_trace.cuh"

// Short conditional statements: nvcc emits predicated instructions / selp, not branches.
// Sites only at entry and exit so the instrumentation does not force branches.
extern "C" __global__ void predicated(const int* in, int* out) {
    SIMT_SITE(1);                                   // entry
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    int r = (v > 0) ? v * 3 : v - 7;
    if (v & 1) r += 5;
    if (r > 100) r = 100;
    int m = (v < 0) ? -v : v;
    r = (m > 50) ? r ^ m : r + m;
    SIMT_SITE(2);                                   // exit
    out[i] = r;
}
