// An empty kernel: what a launch costs with no work (calibrates sm.kernel_launch_latency).
#include "../../include/simt_trace.cuh"

extern "C" __global__ void empty(int* out) {
    SIMT_SITE(1);
    if (threadIdx.x == 1000000) out[0] = 1;   // never true; keeps the parameter
}
