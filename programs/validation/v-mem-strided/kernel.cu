#include "../../include/simt_trace.cuh"

// Strided (33 words apart, a permutation of 0..N-1): grid-stride loop, 4 elements per thread; element k of thread i reads in[(e * 33) % N].
#define N 4096
extern "C" __global__ void mem_strided(const int* in, int* out) {
    SIMT_SITE(1);                                   // entry
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int total = gridDim.x * blockDim.x;
    for (int e = i; e < N; e += total) {
        SIMT_SITE(2);                               // loop body
        out[e] = in[(e * 33) % N] * 3 + 1;
    }
    SIMT_SITE(3);                                   // exit
}
