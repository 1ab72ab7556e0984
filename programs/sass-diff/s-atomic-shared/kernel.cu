#include "../../include/sass_diff.cuh"

// ATOMS (shared-memory atomics: add, exch, cas, min, max, and, or, xor, inc, 64-bit cas) each on
// a shared slot of its own (deterministic old values), and shared counters updated by many
// threads with order-independent integer adds / min / max.
extern "C" __global__ void s_atomic_shared(const unsigned* a, const unsigned* b, unsigned* out, int n) {
    SIMT_SITE(1);                                   // entry (trace variant only)
    __shared__ unsigned slot[8][256];
    __shared__ unsigned long long slot64[256];
    __shared__ unsigned counter[4];
    int i = SASS_DIFF_TID();
    unsigned t = threadIdx.x;                         // the block is 256 threads
    unsigned x = a[i], y = b[i];
    for (int k = 0; k < 8; k++) slot[k][t] = (k & 1) ? y : x ^ (k * 0x01010101u);
    slot64[t] = (unsigned long long)x << 32 | y;
    if (t < 4) counter[t] = t == 2 ? 0xffffffffu : 0u;
    __syncthreads();
    PUT(0, atomicAdd(&slot[0][t], y));
    PUT(1, atomicExch(&slot[1][t], x));
    PUT(2, atomicCAS(&slot[2][t], (t & 1) ? x : y, y));   // succeeds on odd t
    PUT(3, (unsigned)atomicMin((int*)&slot[3][t], (int)x));
    PUT(4, atomicMax(&slot[4][t], y));
    PUT(5, atomicAnd(&slot[5][t], y));
    PUT(6, atomicOr(&slot[6][t], x));
    PUT(7, atomicInc(&slot[7][t], x));
    unsigned long long o = atomicCAS(&slot64[t], (t & 2) ? ((unsigned long long)x << 32 | y) : 0ull,
                                     (unsigned long long)y << 32 | x);
    PUT(8, (unsigned)o);
    PUT(9, (unsigned)(o >> 32));
    atomicAdd(&counter[0], x);
    atomicXor(&counter[1], y);
    atomicMin(&counter[2], x);
    atomicMax(&counter[3], y);
    __syncthreads();
    for (int k = 0; k < 8; k++) PUT(10 + k, slot[k][t]);
    PUT(18, (unsigned)slot64[t]);
    PUT(19, (unsigned)(slot64[t] >> 32));
    PUT(20, counter[t & 3]);
}
