#include "../../include/simt_trace.cuh"

// words[op * 64 + slot]: op 0 add, 1 sub, 2 max, 3 min, 4 unused, 5 or, 6 xor (all starting at 0);
// andw[slot]: and (starting all ones).  Thread g, round r hits slot (g * 7 + r * 13) % 64 with vals[g] + r.
extern "C" __global__ void atomics_mix(const int* vals, int* words, int* andw) {
    SIMT_SITE(1);
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int v0 = vals[g];
    for (int r = 0; r < 8; ++r) {
        int slot = (g * 7 + r * 13) & 63;
        int v = v0 + r;
        atomicAdd(&words[0 * 64 + slot], v);
        atomicSub(&words[1 * 64 + slot], v);
        atomicMax(&words[2 * 64 + slot], v);
        atomicMin(&words[3 * 64 + slot], v);
        atomicOr(&words[5 * 64 + slot], v & 0x0f0f0f0f);
        atomicXor(&words[6 * 64 + slot], v);
        atomicAnd(&andw[slot], v | 0x7ffff0ff);
    }
    SIMT_SITE(2);
}
