#include "../../include/simt_trace.cuh"

// Shared-memory pointer chase: one warp fills s[i] = (i + 33) % 1024, lane 0 chases 128 links.
#define NS 1024
#define STEPS 128
extern "C" __global__ void lat_shared(const unsigned* start, unsigned* res, long long* clk) {
    SIMT_SITE(1);                                   // entry
    __shared__ unsigned s[NS];
    for (unsigned i = threadIdx.x; i < NS; i += blockDim.x) s[i] = (i + 33u) % NS;
    __syncthreads();
    if (threadIdx.x == 0) {
        SIMT_SITE(2);                               // the chasing lane
        unsigned j = start[0];
        long long t0 = clock64();
#pragma unroll
        for (int k = 0; k < STEPS; k++) j = s[j];
        long long t1 = clock64();
        res[0] = j;
        clk[0] = t0;
        clk[1] = t1;
    }
    SIMT_SITE(3);                                   // exit
}
